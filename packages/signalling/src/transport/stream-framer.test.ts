import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SipParseError } from '../errors.js';
import { StreamFramer } from './stream-framer.js';

const MESSAGE = 'OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nContent-Length: 4\r\n\r\nbody';

describe('StreamFramer', () => {
  it('frames messages split at every byte, with a ping between them', () => {
    const framer = new StreamFramer(65535);
    const out = [];
    for (const byte of Buffer.from(MESSAGE)) out.push(...framer.push(Buffer.from([byte])));
    out.push(...framer.push(Buffer.from('\r\n\r\n')));
    for (const byte of Buffer.from(MESSAGE)) out.push(...framer.push(Buffer.from([byte])));
    assert.deepEqual(
      out.map((o) => (o.kind === 'message' ? o.data.toString() : 'ping')),
      [MESSAGE, 'ping', MESSAGE],
    );
    assert.equal(framer.buffered, 0);
  });

  it('stays linear when a header section arrives one byte at a time', () => {
    const framer = new StreamFramer(65535);
    const header = Buffer.from(`OPTIONS sip:a@b SIP/2.0\r\n${'X-Pad: 0123456789abcdef\r\n'.repeat(2400)}`);
    const started = performance.now();
    for (let i = 0; i < header.length; i++) framer.push(header.subarray(i, i + 1));
    const ms = performance.now() - started;
    assert.equal(framer.buffered, header.length);
    // Concatenating and rescanning per byte took seconds for these 60 KB; linear work takes a few ms.
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms for ${header.length} one-byte chunks`);
    assert.throws(() => framer.push(Buffer.alloc(6000, 0x41)), SipParseError);
  });
});
