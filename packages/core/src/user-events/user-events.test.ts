import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { CoreError } from '../errors.js';
import { sipChannelInit, RecordingTechnology } from '../test-support.js';
import { startTestCore, type TestCore } from './test-core.js';

const codeOf = (work: () => unknown) => {
  try {
    work();
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof CoreError);
    return err.code;
  }
};

describe('subscriptions and user events', () => {
  let t: TestCore;
  before(async () => {
    t = await startTestCore();
  });
  after(async () => {
    await t.close();
    t.remove();
  });

  const newChannel = () => t.core.channels.create(sipChannelInit('alice', new RecordingTechnology(), { state: 'Ring' }));

  it('counts subscriptions: two subscribes need two unsubscribes', () => {
    t.core.applications.register('counter', () => undefined);
    const channel = newChannel();
    t.core.subscriptions.subscribe('counter', [
      `channel:${channel.id}`,
      `channel:${channel.id}`,
      'endpoint:PJSIP/alice',
      'deviceState:App:door',
      'bridges:',
    ]);
    assert.deepEqual(t.core.applications.require('counter').snapshot().endpoint_ids, ['SIP/alice']);
    assert.deepEqual(t.core.applications.require('counter').snapshot().bridge_ids, ['__AST_BRIDGE_ALL_TOPIC']);
    t.core.subscriptions.unsubscribe('counter', [`channel:${channel.id}`]);
    assert.deepEqual(t.core.applications.require('counter').snapshot().channel_ids, [channel.id]);
    t.core.subscriptions.unsubscribe('counter', [`channel:${channel.id}`]);
    assert.deepEqual(t.core.applications.require('counter').snapshot().channel_ids, []);
    assert.equal(
      codeOf(() => t.core.subscriptions.unsubscribe('counter', [`channel:${channel.id}`])),
      'unprocessable',
    );
    void channel.hangup(16);
  });

  it('refuses unknown sources (422), bad schemes (400) and unknown applications (404), applying nothing', () => {
    t.core.applications.register('strict', () => undefined);
    assert.equal(
      codeOf(() => t.core.subscriptions.subscribe('strict', ['endpoint:SIP/alice', 'channel:nope'])),
      'unprocessable',
    );
    assert.deepEqual(t.core.applications.require('strict').snapshot().endpoint_ids, []);
    assert.equal(
      codeOf(() => t.core.subscriptions.subscribe('strict', ['mailbox:1000'])),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => t.core.subscriptions.subscribe('strict', ['endpoint:IAX2/bob'])),
      'unprocessable',
    );
    assert.equal(
      codeOf(() => t.core.subscriptions.subscribe('nobody', ['channel:'])),
      'not_found',
    );
  });

  it('sends a user event to the named application with its sources and variables', () => {
    const received: ApplicationEvent[] = [];
    t.core.applications.register('listener', (e) => received.push(e));
    t.core.userEvents.send('listener', 'Knock', ['endpoint:SIP/alice'], { who: 'postman', count: 2 });
    const event = received.find((e) => e.type === 'ChannelUserevent');
    assert.ok(event && event.type === 'ChannelUserevent');
    assert.equal(event.eventname, 'Knock');
    assert.deepEqual(event.userevent, { who: 'postman', count: 2, eventname: 'Knock' });
    assert.equal(event.endpoint?.resource, 'alice');
    assert.equal(
      codeOf(() => t.core.userEvents.send('listener', 'x', ['channel:gone'], {})),
      'unprocessable',
    );
    assert.equal(
      codeOf(() => t.core.userEvents.send('listener', 'x', ['deviceState:App:door'], {})),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => t.core.userEvents.send('nobody', 'x', [], {})),
      'not_found',
    );
  });
});
