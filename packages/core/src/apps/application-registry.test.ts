import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ChannelRegistry } from '../channels/channel-registry.js';
import { EventBus } from '../events/event-bus.js';
import { sipChannelInit, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { ApplicationEvent } from './application.js';
import { ApplicationRegistry } from './application-registry.js';

describe('ApplicationRegistry', () => {
  let bus: EventBus;
  let apps: ApplicationRegistry;
  let channels: ChannelRegistry;
  const newChannel = () => channels.create(sipChannelInit('a', new RecordingTechnology(), { state: 'Ring' }));

  beforeEach(() => {
    bus = new EventBus();
    apps = new ApplicationRegistry(bus, silentLogger);
    channels = new ChannelRegistry(bus, silentLogger);
  });

  it('subscribes an application to a channel that enters it and ends with AppEnd on hangup', async () => {
    const received: ApplicationEvent[] = [];
    const other: ApplicationEvent[] = [];
    apps.register('demo', (e) => received.push(e));
    apps.register('bystander', (e) => other.push(e));
    const channel = newChannel();
    const exit = apps.enter(channel, 'demo', ['x']);
    channel.setState('Up');
    channel.remoteHangup(16);
    assert.deepEqual(await exit, { kind: 'hangup' });
    assert.deepEqual(
      received.map((e) => e.type),
      ['AppStart', 'ChannelStateChange', 'AppEnd', 'ChannelDestroyed'],
    );
    assert.equal(other.length, 0, 'unsubscribed applications get nothing');
    assert.deepEqual(apps.require('demo').snapshot().channel_ids, []);
  });

  it('fails to enter an application that is not registered', async () => {
    const exit = await apps.enter(newChannel(), 'nobody', []);
    assert.equal(exit.kind, 'failed');
  });

  it('continues in the dialplan when told to', async () => {
    apps.register('demo', () => undefined);
    const channel = newChannel();
    const exit = apps.enter(channel, 'demo', []);
    apps.continueInDialplan(channel, { exten: '200' });
    assert.deepEqual(await exit, { kind: 'continue', exten: '200' });
    assert.throws(() => apps.requireControlled(channel));
  });

  it('counts subscriptions: events stop only when the count returns to zero', () => {
    const received: string[] = [];
    const app = apps.register('watcher', (e) => received.push(e.type));
    const channel = newChannel();
    app.subscribe('channel', channel.id);
    app.subscribe('channel', channel.id);
    assert.ok(app.unsubscribe('channel', channel.id));
    channel.setState('Ringing');
    assert.ok(app.unsubscribe('channel', channel.id));
    assert.equal(app.unsubscribe('channel', channel.id), false);
    channel.setState('Up');
    assert.deepEqual(received, ['ChannelStateChange']);
  });

  it('applies event filters with the deny list winning', () => {
    const received: string[] = [];
    const app = apps.register('filtered', (e) => received.push(e.type), { subscribeAll: true });
    app.setEventFilter(['ChannelStateChange', 'ChannelDestroyed'], ['ChannelDestroyed']);
    const channel = newChannel();
    channel.setState('Up');
    channel.remoteHangup(16);
    assert.deepEqual(received, ['ChannelStateChange']);
  });

  it('tells a replaced connection ApplicationReplaced and stops sending to it', async () => {
    const first: string[] = [];
    const second: string[] = [];
    const firstSink = (e: ApplicationEvent) => first.push(e.type);
    apps.register('demo', firstSink, { subscribeAll: true });
    apps.register('demo', (e) => second.push(e.type), { subscribeAll: true });
    newChannel();
    await settle();
    assert.deepEqual(first, ['ApplicationReplaced']);
    assert.deepEqual(second, ['ChannelCreated']);
    apps.unregister('demo', firstSink);
    assert.ok(apps.get('demo'), 'a replaced connection cannot unregister the application');
  });

  it('delivers a user event to the named application and to subscribers of its sources only', () => {
    const got: Record<string, string[]> = { named: [], watcher: [], other: [] };
    apps.register('named', (e) => got.named.push(e.type));
    const watcher = apps.register('watcher', (e) => got.watcher.push(e.type));
    apps.register('other', (e) => got.other.push(e.type));
    const channel = newChannel();
    watcher.subscribe('channel', channel.id);
    got.watcher.length = 0;
    bus.publish({
      type: 'ChannelUserevent',
      application: 'named',
      eventname: 'ping',
      userevent: { eventname: 'ping' },
      channel: channel.snapshot(),
    });
    assert.deepEqual(got, { named: ['ChannelUserevent'], watcher: ['ChannelUserevent'], other: [] });
  });
  it('offers an unregistered application to the activator, and enters the application it names', async () => {
    const received: ApplicationEvent[] = [];
    const asked: string[] = [];
    apps.setActivator((name, channel) => {
      asked.push(name);
      if (name === 'never') return Promise.resolve(undefined);
      if (name !== 'on-demand') return undefined;
      const own = `${name}:${channel.name}`;
      apps.register(own, (e) => received.push(e));
      return Promise.resolve(own);
    });
    const channel = newChannel();
    const exit = apps.enter(channel, 'on-demand', []);
    await settle();
    assert.deepEqual(
      received.map((e) => [e.type, 'application' in e ? e.application : undefined]),
      [['AppStart', `on-demand:${channel.name}`]],
    );
    assert.equal(channel.application, `on-demand:${channel.name}`);
    await channel.hangup();
    assert.deepEqual(await exit, { kind: 'hangup' });
    assert.equal((await apps.enter(newChannel(), 'never', [])).kind, 'failed');
    assert.equal((await apps.enter(newChannel(), 'unknown', [])).kind, 'failed');
    assert.deepEqual(asked, ['on-demand', 'never', 'unknown']);
  });
});
