import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkerNotification } from '../protocol.js';
import { Bridge } from './bridge.js';
import type { BridgeMember } from './members.js';

/** A member that says a constant and keeps what the bridge gives it. */
function member(legId: string, value: number): BridgeMember & { heard: Array<Int16Array | null> } {
  const heard: Array<Int16Array | null> = [];
  return {
    legId,
    endpoint: null,
    nativeRate: 8000,
    heard,
    input: () => new Int16Array(160).fill(value),
    output: (frame) => heard.push(frame === null ? null : frame.slice()),
    dtmf: () => {},
    videoFormat: () => null,
    attachVideo: () => {},
    sendVideo: () => {},
    requestKeyframe: () => {},
    requestRetransmission: () => {},
    close: () => {},
  };
}

const notes: WorkerNotification[] = [];
const newBridge = (kind: 'mixing' | 'holding') =>
  new Bridge(
    'b',
    kind,
    (n) => notes.push(n),
    () => null,
  );

describe('Bridge.step', () => {
  it('mixing: each member hears the others; a muted member is heard by nobody', () => {
    const bridge = newBridge('mixing');
    const [a, b, c] = [member('a', 1), member('b', 10), member('c', 100)];
    for (const m of [a, b, c]) bridge.add(m, undefined);
    bridge.step();
    assert.deepEqual([a.heard[0]?.[0], b.heard[0]?.[0], c.heard[0]?.[0]], [110, 101, 11]);
    bridge.update('c', { mute: true });
    bridge.step();
    assert.deepEqual([a.heard[1]?.[0], b.heard[1]?.[0], c.heard[1]?.[0]], [10, 1, 11]);
  });

  it('holding: participants hear the announcer only; the announcer is sent nothing', () => {
    const bridge = newBridge('holding');
    const [a, b, c] = [member('a', 1), member('b', 10), member('c', 100)];
    bridge.add(a, { role: 'announcer' });
    bridge.add(b, undefined);
    bridge.add(c, undefined);
    bridge.step();
    assert.equal(a.heard[0], null);
    assert.deepEqual([b.heard[0]?.[0], c.heard[0]?.[0]], [1, 1]);
  });

  it('passes DTMF to the others unless the sender absorbs it', () => {
    const bridge = newBridge('mixing');
    const got: string[] = [];
    const listener = (legId: string): BridgeMember => ({ ...member(legId, 0), dtmf: (digit) => got.push(`${legId}:${digit}`) });
    bridge.add(listener('a'), { absorbDtmf: true });
    bridge.add(listener('b'), undefined);
    bridge.add(listener('c'), undefined);
    bridge.dtmfFrom('b', '7', 100);
    bridge.dtmfFrom('a', '9', 100);
    assert.deepEqual(got.sort(), ['a:7', 'c:7']);
  });
});
