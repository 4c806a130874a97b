import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import type { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import type { PlayFileRequest } from '../media/media-engine.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { BridgeMusic } from './bridge-music.js';
import { BridgeRegistry } from './bridge-registry.js';
import { parseBridgeType } from './bridge-type.js';

class LegTechnology extends RecordingTechnology {
  override readonly mediaLegId: string;
  constructor(legId: string) {
    super();
    this.mediaLegId = legId;
  }
}

describe('parseBridgeType', () => {
  it('reads attributes, kinds and video modes, refusing unknown and contradictory ones', () => {
    assert.equal(parseBridgeType(undefined).kind, 'mixing');
    assert.equal(parseBridgeType(undefined).videoMode, 'talker');
    assert.equal(parseBridgeType('holding').videoMode, 'none');
    assert.equal(parseBridgeType('mixing, dtmf_events,video_sfu').videoMode, 'sfu');
    assert.equal(parseBridgeType('video_single').videoMode, 'single');
    for (const bad of ['mixing,holding', 'bogus', 'video_sfu,video_single']) {
      assert.throws(
        () => parseBridgeType(bad),
        (e: CoreError) => e.code === 'invalid_argument',
        bad,
      );
    }
  });
});

describe('BridgeRegistry', () => {
  let bus: EventBus;
  let media: RecordingMediaEngine;
  let apps: ApplicationRegistry;
  let channels: ChannelRegistry;
  let bridges: BridgeRegistry;
  let events: TimedDomainEvent[];
  let appEvents: ApplicationEvent[];
  let mohDir: string;
  let count = 0;

  const newChannel = (inApp = true): Channel => {
    count += 1;
    const channel = channels.create(
      sipChannelInit('a', new LegTechnology(`leg-${count}`), { name: `SIP/a-${String(count).padStart(8, '0')}` }),
    );
    if (inApp) void apps.enter(channel, 'demo', []);
    return channel;
  };

  beforeEach(() => {
    bus = new EventBus();
    events = [];
    appEvents = [];
    bus.subscribe((e) => events.push(e));
    media = new RecordingMediaEngine();
    apps = new ApplicationRegistry(bus, silentLogger);
    apps.register('demo', (e) => appEvents.push(e));
    channels = new ChannelRegistry(bus, silentLogger);
    mohDir = mkdtempSync(join(tmpdir(), 'moh-'));
    mkdirSync(join(mohDir, 'default'));
    writeFileSync(join(mohDir, 'default', 'tune.wav'), '');
    const music = new BridgeMusic({
      config: { classes: { default: { name: 'default', directory: join(mohDir, 'default'), sort: 'alpha' } } },
      confDir: mohDir,
      media,
      log: silentLogger,
    });
    bridges = new BridgeRegistry({ bus, media, applications: apps, channels, music, log: silentLogger });
  });

  const bridgeEvents = () =>
    events
      .filter((e) => e.type.includes('Bridge'))
      .map((e) => `${e.type}${'channel' in e && e.channel ? `:${e.channel.id}` : ''}${'bridge' in e && e.bridge ? `@${e.bridge.id}` : ''}`);

  it('creates bridges with caller-chosen or generated ids and refuses duplicates', async () => {
    const bridge = await bridges.create({ id: 'b1', type: 'mixing', name: 'conf' });
    const snap = bridge.snapshot();
    assert.deepEqual(
      { ...snap, creationtime: undefined },
      {
        id: 'b1',
        technology: 'simple_bridge',
        bridge_type: 'mixing',
        bridge_class: 'app',
        creator: 'App',
        name: 'conf',
        channels: [],
        video_mode: 'talker',
        creationtime: undefined,
      },
    );
    assert.deepEqual(media.requests[0], { method: 'createBridge', args: [{ bridgeId: 'b1', kind: 'mixing' }] });
    await assert.rejects(bridges.create({ id: 'b1' }), (e: CoreError) => e.code === 'conflict');
    const generated = await bridges.create({ type: 'holding' });
    assert.match(generated.id, /^[0-9a-f-]{36}$/);
    assert.equal(generated.snapshot().technology, 'holding_bridge');
    assert.deepEqual(bridgeEvents(), ['BridgeCreated@b1', `BridgeCreated@${generated.id}`]);
  });

  it('adds channels with one role for the request, subscribes their application and joins their legs', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    const [a, b] = [newChannel(), newChannel()];
    await bridges.addChannels(bridge, bridges.resolveChannelsToAdd([a.id, b.id]), { role: 'partner', mute: true });
    assert.deepEqual(bridge.snapshot().channels, [a.id, b.id]);
    assert.equal(bridge.participants.get(a.id)?.options.role, 'partner');
    assert.equal(bridge.participants.get(b.id)?.options.role, 'partner');
    const joins = media.requests.filter((r) => r.method === 'joinBridge').map((r) => r.args);
    assert.deepEqual(joins, [
      ['b1', a.tech.mediaLegId, { role: 'participant', mute: true, absorbDtmf: false }],
      ['b1', b.tech.mediaLegId, { role: 'participant', mute: true, absorbDtmf: false }],
    ]);
    assert.ok(apps.get('demo')?.isSubscribed('bridge', 'b1'));
    assert.ok(appEvents.some((e) => e.type === 'ChannelEnteredBridge'));
    assert.equal(bridge.snapshot().technology, 'simple_bridge');
    await bridges.addChannels(bridge, [newChannel()]);
    assert.equal(bridge.snapshot().technology, 'softmix');
  });

  it("connects two parties' lines on entry (ChannelConnectedLine), not when inhibited or in a holding bridge", async () => {
    const [a, b] = [newChannel(), newChannel()];
    a.setCaller({ name: 'Alice', number: '201' });
    b.setCaller({ name: 'Bob', number: '202' });
    const connected = () => events.filter((e) => e.type === 'ChannelConnectedLine');
    const quiet = await bridges.create({ id: 'quiet' });
    await bridges.addChannels(quiet, [a, b], { inhibitConnectedLineUpdates: true });
    assert.equal(connected().length, 0, 'inhibited: no update');
    const hold = await bridges.create({ id: 'hold', type: 'holding' });
    await bridges.addChannels(hold, [a, b]);
    assert.equal(connected().length, 0, 'a holding bridge connects nobody');
    const talk = await bridges.create({ id: 'talk' });
    await bridges.addChannels(talk, [a]);
    assert.equal(connected().length, 0, 'one party alone is connected to nobody');
    await bridges.addChannels(talk, [b]);
    assert.deepEqual(a.connected, { name: 'Bob', number: '202' });
    assert.deepEqual(b.connected, { name: 'Alice', number: '201' });
    assert.deepEqual(
      connected().map((e) => (e.type === 'ChannelConnectedLine' ? e.channel.id : '')),
      [a.id, b.id],
    );
    await bridges.addChannels(talk, [newChannel()]);
    assert.equal(connected().length, 2, 'a third party changes nothing');
  });

  it('refuses unknown channels (400), channels outside applications (422) and removal of non-members (422)', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    const outsider = newChannel(false);
    assert.throws(
      () => bridges.resolveChannelsToAdd(['nope']),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => bridges.resolveChannelsToAdd([]),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => bridges.resolveChannelsToAdd([outsider.id]),
      (e: CoreError) => e.code === 'unprocessable',
    );
    assert.throws(
      () => bridges.resolveChannelsToRemove(bridge, [newChannel().id]),
      (e: CoreError) => e.code === 'unprocessable',
    );
    assert.throws(
      () => bridges.resolveChannelsToRemove(bridge, ['nope']),
      (e: CoreError) => e.code === 'invalid_argument',
    );
  });

  it('moves a channel from its old bridge and clears its role on every entry', async () => {
    const first = await bridges.create({ id: 'first' });
    const second = await bridges.create({ id: 'second', type: 'holding' });
    const channel = newChannel();
    await bridges.addChannels(first, [channel], { role: 'announcer' });
    await bridges.addChannels(second, [channel]);
    assert.deepEqual(first.snapshot().channels, []);
    assert.deepEqual(second.snapshot().channels, [channel.id]);
    assert.equal(second.participants.get(channel.id)?.options.role, undefined);
    assert.equal(bridges.bridgeOf(channel.id), second);
    assert.deepEqual(bridgeEvents().slice(2), [
      `ChannelEnteredBridge:${channel.id}@first`,
      `ChannelLeftBridge:${channel.id}@first`,
      `ChannelEnteredBridge:${channel.id}@second`,
    ]);
    await bridges.addChannels(second, [channel], { role: 'announcer' });
    const last = media.requests.at(-1);
    assert.deepEqual(last, {
      method: 'setBridgeParticipant',
      args: ['second', channel.tech.mediaLegId, { role: 'announcer', mute: false, absorbDtmf: false }],
    });
  });

  it('takes a hung-up channel out of its bridge and destroys bridges with their remaining channels', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    const [a, b] = [newChannel(), newChannel()];
    await bridges.addChannels(bridge, [a, b]);
    a.remoteHangup(16);
    await settle();
    assert.deepEqual(bridge.snapshot().channels, [b.id]);
    let destroyed = false;
    bridge.onDestroy(() => {
      destroyed = true;
    });
    await bridges.destroy(bridge);
    assert.ok(destroyed);
    assert.equal(bridges.get('b1'), undefined);
    assert.equal(bridges.bridgeOf(b.id), undefined);
    assert.deepEqual(bridgeEvents().slice(-3), [`ChannelLeftBridge:${a.id}@b1`, `ChannelLeftBridge:${b.id}@b1`, 'BridgeDestroyed@b1']);
    assert.ok(!apps.get('demo')?.hasExactSubscription('bridge', 'b1'));
    // The engine's destroyBridge takes the remaining legs out: no leave request for each.
    assert.deepEqual(media.requests.at(-1), { method: 'destroyBridge', args: ['b1'] });
    assert.ok(!media.requests.some((r) => r.method === 'leaveBridge'));
  });

  it('takes a channel that leaves its application out of the bridge', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    const channel = newChannel();
    await bridges.addChannels(bridge, [channel]);
    apps.continueInDialplan(channel, {});
    await settle();
    assert.deepEqual(bridge.snapshot().channels, []);
    assert.equal(bridges.bridgeOf(channel.id), undefined);
    assert.deepEqual(media.requests.at(-1), { method: 'leaveBridge', args: ['b1', channel.tech.mediaLegId] });
  });

  it('sets and clears the video source of members only', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    const [a, b] = [newChannel(), newChannel()];
    await bridges.addChannels(bridge, [a]);
    assert.throws(
      () => bridges.setVideoSource(bridge, b.id),
      (e: CoreError) => e.code === 'unprocessable',
    );
    assert.throws(
      () => bridges.setVideoSource(bridge, 'nope'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    bridges.setVideoSource(bridge, a.id);
    assert.equal(bridge.snapshot().video_source_id, a.id);
    assert.equal(bridge.snapshot().video_mode, 'single');
    bridges.clearVideoSource(bridge);
    assert.equal(bridge.snapshot().video_source_id, undefined);
    assert.equal(bridge.snapshot().video_mode, 'talker');
    const changes = events.filter((e) => e.type === 'BridgeVideoSourceChanged');
    assert.equal(changes.length, 2);
    assert.ok(changes[1]?.type === 'BridgeVideoSourceChanged' && changes[1].old_video_source_id === a.id);
  });

  it('drives the media engine video: sfu at creation, the source leg when set, talker when cleared', async () => {
    const videoRequests = () => media.requests.filter((r) => r.method === 'setBridgeVideo').map((r) => r.args);
    await bridges.create({ id: 'plain' });
    await bridges.create({ id: 'single', type: 'video_single' });
    assert.deepEqual(videoRequests(), [], 'mixing bridges start in talker mode in the engine already');
    const sfu = await bridges.create({ id: 'sfu', type: 'mixing,video_sfu' });
    assert.deepEqual(videoRequests(), [['sfu', { mode: 'sfu' }]]);
    const a = newChannel();
    await bridges.addChannels(sfu, [a]);
    await bridges.setVideoSource(sfu, a.id);
    assert.deepEqual(videoRequests().at(-1), ['sfu', { mode: 'single', sourceLegId: a.tech.mediaLegId }]);
    await bridges.clearVideoSource(sfu);
    assert.deepEqual(videoRequests().at(-1), ['sfu', { mode: 'talker' }]);
    // The source leaving the bridge hands the video back to the talker.
    await bridges.setVideoSource(sfu, a.id);
    await bridges.removeChannels(sfu, [a]);
    assert.deepEqual(videoRequests().at(-1), ['sfu', { mode: 'talker' }]);
  });

  it('plays looping music from the class directory and stops it; stopping silence is a 409', async () => {
    const bridge = await bridges.create({ id: 'b1' });
    await assert.rejects(bridges.stopMusic(bridge), (e: CoreError) => e.code === 'conflict');
    await bridges.startMusic(bridge, 'no-such-class');
    const play = media.requests.find((r) => r.method === 'playFileOnBridge');
    assert.equal(play?.args[0], 'b1');
    const request = play?.args[1] as PlayFileRequest;
    assert.equal(request.file, join(mohDir, 'default', 'tune.wav'));
    assert.equal(request.loop, true);
    await bridges.stopMusic(bridge);
    assert.deepEqual(media.requests.at(-1), { method: 'stopBridgePlayback', args: ['b1', request.playbackId] });
    assert.equal(media.requests.filter((r) => r.method === 'setBridgeParticipant').length, 0);
  });

  it('refuses control of a bridge core made for itself (409)', async () => {
    await bridges.create({ id: 'internal', appOwned: false });
    assert.throws(
      () => bridges.requireControlled('internal'),
      (e: CoreError) => e.code === 'conflict',
    );
    assert.throws(
      () => bridges.requireControlled('nope'),
      (e: CoreError) => e.code === 'not_found',
    );
    assert.equal(bridges.require('internal').snapshot().bridge_class, 'base');
  });

  it("makes a system bridge with its class (Dial's basic bridge) and can leave a ringing caller unanswered in it", async () => {
    const bridge = await bridges.create({ id: 'dial', type: 'mixing', appOwned: false, bridgeClass: 'basic' });
    assert.equal(bridge.snapshot().bridge_class, 'basic');
    assert.equal(bridge.snapshot().creator, '');
    const ringing = () => {
      count += 1;
      const tech = new LegTechnology(`leg-${count}`);
      const channel = channels.create(sipChannelInit('r', tech, { name: `SIP/r-${count}`, state: 'Ring' }));
      return { channel, tech };
    };
    const early = ringing();
    await bridges.addChannels(bridge, [early.channel], { keepUnanswered: true });
    assert.equal(early.channel.state, 'Ring', 'early media: the caller still rings');
    assert.ok(!early.tech.calls.includes('answer'));
    assert.deepEqual(bridge.snapshot().channels, [early.channel.id]);
    // Channels outside applications enter without any application subscribing to the bridge.
    assert.ok(!apps.get('demo')?.hasExactSubscription('bridge', 'dial'));
    const plain = ringing();
    await bridges.addChannels(bridge, [plain.channel]);
    assert.ok(plain.tech.calls.includes('answer'), 'without the option an inbound call is answered on entry');
    assert.equal(bridge.snapshot().technology, 'simple_bridge');
  });
});
