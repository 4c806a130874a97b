import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { sleep, waitFor } from '../test-support/wait.js';
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
  const endpoint = new MediaEndpoint(io, () => {});
  endpoint.bridgeId = 'b'; // as the worker marks a linked leg
  return { endpoint, sent };
}

/** Every port a test opens is closed afterwards, even when it fails: an open port keeps the process alive. */
const opened: MessagePort[] = [];
function channel(): MessageChannel {
  const created = new MessageChannel();
  opened.push(created.port1, created.port2);
  return created;
}

describe('cross-worker frame forwarding (BridgeLink ↔ RemoteMember)', () => {
  afterEach(() => {
    for (const port of opened.splice(0)) port.close();
  });

  it('carries the leg frames up and the mix down, in order, with a one-frame prefill', async () => {
    const { port1, port2 } = channel();
    const upDigits: string[] = [];
    const downDigits: string[] = [];
    const remote = new RemoteMember(
      'leg-7',
      port1,
      (digit) => upDigits.push(digit),
      () => {},
    );
    const { endpoint, sent } = fakeEndpoint(7);
    const link = new BridgeLink(
      'b',
      endpoint,
      port2,
      (digit) => downDigits.push(digit),
      () => {},
    );
    for (let tick = 0; tick < 3; tick += 1) {
      endpoint.capture();
      link.sendUp();
    }
    // A port delivers in order: once the digit is through, so are the frames before it.
    link.forwardDtmf('5', 100);
    await waitFor('frames up', () => (upDigits.length > 0 ? true : undefined));
    assert.deepEqual(upDigits, ['5']);
    const up = [remote.input(), remote.input(), remote.input(), remote.input()];
    assert.deepEqual(
      up.map((frame) => frame?.[0] ?? null),
      [7, 7, 7, null],
      'three frames arrived; the fourth tick finds the queue dry',
    );
    remote.output(new Int16Array(160).fill(100));
    remote.output(new Int16Array(160).fill(200));
    remote.dtmf('6', 100);
    await waitFor('frames down', () => (downDigits.length > 0 ? true : undefined));
    for (let tick = 0; tick < 2; tick += 1) {
      link.takeDown();
      endpoint.render();
    }
    assert.deepEqual(
      sent.map((frame) => frame[0]),
      [100, 200],
      'the mix reaches the leg in order',
    );
    assert.deepEqual(downDigits, ['6']);
    link.close();
    remote.close();
  });

  it('tells each side when the other end closes (a worker died)', async () => {
    // The home worker's end goes away: the leg's side hears of it.
    const first = channel();
    let linkGone = false;
    const link = new BridgeLink(
      'b',
      fakeEndpoint(1).endpoint,
      first.port2,
      () => {},
      () => {
        linkGone = true;
      },
    );
    first.port1.close();
    // The leg's worker's end goes away: the home's member hears of it.
    const second = channel();
    let memberGone = false;
    const remote = new RemoteMember(
      'x',
      second.port1,
      () => {},
      () => {
        memberGone = true;
      },
    );
    second.port2.close();
    await waitFor('both sides told', () => (linkGone && memberGone ? true : undefined));
    link.close();
    remote.close();
  });

  it('does not report its own close as the other side going away', async () => {
    const { port1, port2 } = channel();
    let linkGone = false;
    const link = new BridgeLink(
      'b',
      fakeEndpoint(1).endpoint,
      port2,
      () => {},
      () => {
        linkGone = true;
      },
    );
    link.close();
    await sleep(20); // a 'close' on our own port, had it been taken for the other side, would have come by now
    assert.equal(linkGone, false);
    port1.close();
  });
});
