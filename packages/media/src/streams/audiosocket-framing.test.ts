import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIOSOCKET_KIND, AudioSocketReader, encodeAudioSocket, uuidBytes } from './audiosocket-framing.js';

describe('AudioSocket framing', () => {
  it('encodes kind, big-endian length and payload; a hang-up is three zero bytes', () => {
    assert.deepEqual([...encodeAudioSocket(AUDIOSOCKET_KIND.hangup)], [0, 0, 0]);
    assert.deepEqual([...encodeAudioSocket(AUDIOSOCKET_KIND.dtmf, Buffer.from('5'))], [3, 0, 1, 0x35]);
    assert.throws(() => encodeAudioSocket(AUDIOSOCKET_KIND.slin, new Uint8Array(0x10000)), RangeError);
  });

  it('reads messages split and joined arbitrarily across TCP chunks', () => {
    const stream = Buffer.concat([
      encodeAudioSocket(AUDIOSOCKET_KIND.uuid, uuidBytes('0123456789abcdef0123456789abcdef') as Buffer),
      encodeAudioSocket(AUDIOSOCKET_KIND.slin16, Buffer.alloc(640, 7)),
      encodeAudioSocket(AUDIOSOCKET_KIND.hangup),
    ]);
    const reader = new AudioSocketReader();
    const messages = [];
    for (let i = 0; i < stream.length; i += 100) messages.push(...reader.push(stream.subarray(i, i + 100)));
    assert.deepEqual(
      messages.map((m) => [m.kind, m.payload.length]),
      [
        [1, 16],
        [0x12, 640],
        [0, 0],
      ],
    );
    assert.equal(messages[0]?.payload.toString('hex'), '0123456789abcdef0123456789abcdef');
  });

  it('accepts a UUID with or without dashes and refuses anything else', () => {
    assert.equal(uuidBytes('01234567-89ab-cdef-0123-456789abcdef')?.length, 16);
    assert.equal(uuidBytes('not-a-uuid'), undefined);
  });
});
