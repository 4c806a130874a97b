import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { sleep } from '../test-support/wait.js';
import { type AudioIo, MediaEndpoint } from '../worker/media-endpoint.js';
import { BridgeLink } from './bridge-link.js';
import { RemoteMember } from './members.js';

/** An endpoint whose leg "receives" a constant frame and records what it is sent. */
function fakeEndpoint(value: number): { endpoint: MediaEndpoint; sent: Int16Array[] } {
  const sent: Int16Array[] = [];
  const io: AudioIo = {
    id: `leg-${value}`,
    readFrame: () => new Int16Array(160).fill(value),
    writeFrame: (pcm) => sent.push(pcm.slice()),
    startTalkspurt: () => {},
    close: () => {},
  };
  return { endpoint: new MediaEndpoint(io, () => {}), sent };
}

describe('cross-worker frame forwarding (BridgeLink ↔ RemoteMember)', () => {
  it('carries the leg frames up and the mix down, in order, with a one-frame prefill', async () => {
    const { port1, port2 } = new MessageChannel();
    const digits: string[] = [];
    const remote = new RemoteMember(
      'leg-7',
      port1,
      (digit) => digits.push(digit),
      () => {},
    );
    const { endpoint, sent } = fakeEndpoint(7);
    const link = new BridgeLink(
      'b',
      endpoint,
      port2,
      () => {},
      () => {},
    );
    for (let tick = 0; tick < 3; tick += 1) {
      endpoint.capture();
      link.sendUp();
    }
    await sleep(20);
    const up = [remote.input(), remote.input(), remote.input(), remote.input()];
    assert.deepEqual(
      up.map((frame) => frame?.[0] ?? null),
      [7, 7, 7, null],
      'three frames arrived; the fourth tick finds the queue dry',
    );
    remote.output(new Int16Array(160).fill(100));
    remote.output(new Int16Array(160).fill(200));
    await sleep(20);
    for (let tick = 0; tick < 2; tick += 1) {
      link.takeDown();
      endpoint.render();
    }
    assert.deepEqual(
      sent.map((frame) => frame[0]),
      [100, 200],
      'the mix reaches the leg in order',
    );
    link.forwardDtmf('5', 100);
    await sleep(20);
    assert.deepEqual(digits, ['5']);
    link.close();
    remote.close();
  });

  it('tells each side when the other end closes (a worker died)', async () => {
    // The home worker's end goes away: the leg's side hears of it.
    const first = new MessageChannel();
    let linkGone = false;
    const link = new BridgeLink(
      'b',
      fakeEndpoint(1).endpoint,
      first.port2,
      () => {},
      () => (linkGone = true),
    );
    first.port1.close();
    // The leg's worker's end goes away: the home's member hears of it.
    const second = new MessageChannel();
    let memberGone = false;
    const remote = new RemoteMember(
      'x',
      second.port1,
      () => {},
      () => (memberGone = true),
    );
    second.port2.close();
    await sleep(20);
    assert.equal(linkGone, true);
    assert.equal(memberGone, true);
    link.close();
    remote.close();
  });

  it('does not report its own close as the other side going away', async () => {
    const { port1, port2 } = new MessageChannel();
    let linkGone = false;
    const link = new BridgeLink(
      'b',
      fakeEndpoint(1).endpoint,
      port2,
      () => {},
      () => (linkGone = true),
    );
    link.close();
    await sleep(20);
    assert.equal(linkGone, false);
    port1.close();
  });
});
