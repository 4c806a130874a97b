import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { Channel } from '../channels/channel.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import type { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import type { MediaTarget, PlayToneRequest } from '../media/media-engine.js';
import { SoundIndex } from '../sounds/sound-index.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { systemClock } from '../util/time.js';
import { type PlaybackBridge, PlaybackManager } from './playback-manager.js';

class FakeBridge implements PlaybackBridge {
  isDestroyed = false;
  readonly #hooks: (() => void)[] = [];
  constructor(readonly id: string) {}
  onDestroy(hook: () => void) {
    this.#hooks.push(hook);
  }
  destroy() {
    this.isDestroyed = true;
    for (const hook of this.#hooks) hook();
  }
}

describe('PlaybackManager: bridges, tones and recordings', () => {
  let media: RecordingMediaEngine;
  let manager: PlaybackManager;
  let events: TimedDomainEvent[];
  let channel: Channel;
  let recordingDir: string;

  beforeEach(() => {
    const bus = new EventBus();
    events = [];
    bus.subscribe((e) => events.push(e));
    media = new RecordingMediaEngine();
    const sounds = mkdtempSync(join(tmpdir(), 'sounds-'));
    mkdirSync(join(sounds, 'en'));
    for (const name of ['a', 'b']) writeFileSync(join(sounds, 'en', `${name}.wav`), 'x');
    recordingDir = mkdtempSync(join(tmpdir(), 'recs-'));
    writeFileSync(join(recordingDir, 'msg.wav'), 'x');
    manager = new PlaybackManager({
      bus,
      media,
      sounds: new SoundIndex([sounds], 'en', silentLogger),
      log: silentLogger,
      clock: systemClock,
      recordingFile: (name) => (name === 'msg' ? join(recordingDir, 'msg.wav') : undefined),
    });
    channel = new ChannelRegistry(bus, silentLogger).create(sipChannelInit('x', new RecordingTechnology()));
  });

  const tones = () => media.requests.filter((r) => r.method === 'playTone').map((r) => r.args as [MediaTarget, PlayToneRequest]);

  it('queues bridge plays one after another and reports them with a bridge target', async () => {
    const bridge = new FakeBridge('b1');
    const first = manager.playOnBridge(bridge, ['sound:a'], { defaultLanguage: 'en' });
    const second = manager.playOnBridge(bridge, ['sound:b'], { defaultLanguage: 'en' });
    assert.equal(first.target_uri, 'bridge:b1');
    await settle();
    assert.equal(media.plays.length, 1);
    assert.equal(media.plays[0]?.legId, 'bridge:b1');
    assert.equal(manager.get(second.id).snapshot().state, 'enqueued');
    media.emit({
      type: 'playbackFinished',
      legId: '',
      bridgeId: 'b1',
      playbackId: media.plays[0]?.request.playbackId ?? '',
      reason: 'complete',
    });
    await settle();
    assert.equal(media.plays.length, 2);
    assert.match(media.plays[1]?.request.file ?? '', /b\.wav$/);
    await manager.stop(second.id);
    assert.equal(media.stops.length, 1);
    assert.equal(media.requests.at(-1)?.method, 'stopBridgePlayback');
  });

  it('passes the announcer format of a bridge playback to every item, files and tones', async () => {
    const bridge = new FakeBridge('b3');
    const snap = manager.playOnBridge(bridge, ['sound:a', 'tone:ring'], { defaultLanguage: 'en', announcerFormat: 'slin16' });
    await settle();
    assert.equal(media.plays[0]?.request.announcerFormat, 'slin16');
    media.emit({
      type: 'playbackFinished',
      legId: '',
      bridgeId: 'b3',
      playbackId: media.plays[0]?.request.playbackId ?? '',
      reason: 'complete',
    });
    await settle();
    assert.equal(tones()[0]?.[1].announcerFormat, 'slin16');
    await manager.stop(snap.id);
    manager.playOnBridge(bridge, ['sound:b'], { defaultLanguage: 'en' });
    await settle();
    assert.equal(media.plays[1]?.request.announcerFormat, undefined, 'absent: the bridge rate');
  });

  it('ends every playback of a bridge that goes away and refuses plays on a destroyed bridge', async () => {
    const bridge = new FakeBridge('b2');
    manager.playOnBridge(bridge, ['sound:a'], { defaultLanguage: 'en' });
    manager.playOnBridge(bridge, ['sound:b'], { defaultLanguage: 'en' });
    await settle();
    bridge.destroy();
    assert.equal(events.filter((e) => e.type === 'PlaybackFinished').length, 2);
    assert.throws(
      () => manager.playOnBridge(bridge, ['sound:a'], { defaultLanguage: 'en' }),
      (e: CoreError) => e.code === 'not_found',
    );
  });

  it('plays tones until stopped; pause and unpause start them over; reverse and forward are 409', async () => {
    const snap = manager.playOnChannel(channel, ['tone:busy']);
    await settle();
    const [target, request] = tones()[0] ?? [];
    assert.deepEqual(target, { kind: 'leg', legId: 'leg-1' });
    assert.equal(request?.repeat, true);
    assert.deepEqual(request?.segments[0], { frequencies: [480, 620], durationMs: 500 });
    await assert.rejects(manager.control(snap.id, 'reverse'), (e: CoreError) => e.code === 'conflict');
    await assert.rejects(manager.control(snap.id, 'forward'), (e: CoreError) => e.code === 'conflict');
    await manager.control(snap.id, 'pause');
    assert.equal(media.stops.length, 1);
    await manager.control(snap.id, 'unpause');
    await manager.control(snap.id, 'restart');
    assert.equal(tones().length, 3);
    await manager.stop(snap.id);
    const finished = events.at(-1);
    assert.ok(finished?.type === 'PlaybackFinished' && finished.playback.state === 'complete');
  });

  it('plays raw tone patterns on bridges, stored recordings, and fails http and unknown recordings as items', async () => {
    manager.playOnBridge(new FakeBridge('b3'), ['tone:!350+440/100,!0/100,425/500'], { defaultLanguage: 'en' });
    await settle();
    assert.deepEqual(tones()[0]?.[0], { kind: 'bridge', bridgeId: 'b3' });
    assert.equal(tones()[0]?.[1].segments.length, 3);

    const snap = manager.playOnChannel(channel, ['http://example.com/a.wav', 'recording:nope', 'recording:msg']);
    await settle();
    assert.equal(media.plays.at(-1)?.request.file, join(recordingDir, 'msg.wav'));
    assert.equal(manager.get(snap.id).snapshot().media_uri, 'recording:msg');
  });
});
