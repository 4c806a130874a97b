import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../util/logger.js';
import { RemoteChanges } from './remote-changes.js';

describe('remote changes between nodes', () => {
  it('keeps the newest endpoint announcement of a node when two arrive out of order', () => {
    const sender = new RemoteChanges('node-two', silentLogger);
    const receiver = new RemoteChanges('node-one', silentLogger);
    const heard: string[] = [];
    receiver.onEndpoint((node, name, state) => heard.push(`${node} ${name} ${state}`));
    // A call on node two: INUSE while the channel is down, RINGING, then INUSE once answered.
    const inUse = sender.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'INUSE' });
    const ringing = sender.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'RINGING' });
    const answered = sender.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'INUSE' });
    // Sent on pooled connections, the answer overtook the ringing.
    receiver.receive(inUse);
    receiver.receive(answered);
    receiver.receive(ringing);
    assert.deepEqual(heard, ['node-two SIP/bob INUSE', 'node-two SIP/bob INUSE']);
  });

  it('orders each node and device on its own, and ignores its own announcements', () => {
    const two = new RemoteChanges('node-two', silentLogger);
    const three = new RemoteChanges('node-three', silentLogger);
    const one = new RemoteChanges('node-one', silentLogger);
    const heard: string[] = [];
    one.onEndpoint((node, name, state) => heard.push(`${node} ${name} ${state}`));
    const bob = two.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'INUSE' });
    const alice = two.payload({ kind: 'endpoint', name: 'SIP/alice', state: 'RINGING' });
    const carol = three.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'RINGING' });
    one.receive(alice);
    one.receive(bob);
    one.receive(carol);
    one.receive(one.payload({ kind: 'endpoint', name: 'SIP/bob', state: 'NOT_INUSE' }));
    assert.deepEqual(heard, ['node-two SIP/alice RINGING', 'node-two SIP/bob INUSE', 'node-three SIP/bob RINGING']);
  });
});
