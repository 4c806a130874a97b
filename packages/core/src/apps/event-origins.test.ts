import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Application } from './application.js';
import { eventOrigin, ORIGIN_FIELD, RecentSends, takeOrigin } from './event-origins.js';
import { applyDelta, SharedSubscriptions } from './shared-subscriptions.js';

describe('event origins between nodes', () => {
  it('numbers what is sent, and gives back what came after the last number stored', () => {
    const recent = new RecentSends();
    const sent = [1, 2, 3, 4].map((n) => recent.tag('app', { type: 'ChannelVarset', value: String(n) }));
    recent.tag('other', { type: 'ChannelVarset', value: 'elsewhere' });
    assert.deepEqual(
      sent.map((e) => (e[ORIGIN_FIELD] as { seq: number }).seq),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      recent.takeAfter('app', 2).map((e) => e.value),
      ['3', '4'],
    );
    assert.deepEqual(recent.takeAfter('app', 0), [], 'taken once');
  });

  it('takes the origin off a received event and marks the copy the application is given', () => {
    const [fields, mark] = takeOrigin({ type: 'ChannelVarset', [ORIGIN_FIELD]: { run: 'r1', seq: 7 } });
    assert.deepEqual(fields, { type: 'ChannelVarset' });
    const delivered = { ...fields, timestamp: new Date(0) };
    mark(delivered);
    assert.deepEqual(eventOrigin(delivered), { run: 'r1', seq: 7 });
    const [plain] = takeOrigin({ type: 'ChannelVarset' });
    assert.equal(eventOrigin(plain), undefined);
  });
});

describe('shared subscriptions on a node', () => {
  it('brings an application to the shared counts and back', () => {
    const shared = new SharedSubscriptions();
    const app = new Application('app', () => undefined, false);
    const change = (kind: 'channel' | 'all', source: string, count: number) => {
      const subscription = { application: 'app', kind, source, count };
      applyDelta(app, subscription, shared.set(subscription));
    };
    change('channel', 'C1', 1);
    change('channel', 'C1', 2);
    assert.ok(app.isSubscribed('channel', 'C1'));
    assert.ok(shared.anyTo('channel', 'C1'));
    change('channel', 'C1', 1);
    assert.ok(app.isSubscribed('channel', 'C1'), 'one count left');
    change('channel', 'C1', 0);
    assert.equal(app.isSubscribed('channel', 'C1'), false);
    assert.equal(shared.has('app'), false);

    change('all', '', 1);
    assert.ok(app.subscribeAll);
    const fresh = new Application('app', () => undefined, false);
    shared.applyAll('app', fresh);
    assert.ok(fresh.subscribeAll, 'a new stand-in is given every shared subscription');
  });
});
