import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { ChannelRegistry } from '../channels/channel-registry.js';
import type { Channel } from '../channels/channel.js';
import type { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { SoundIndex } from '../sounds/sound-index.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { systemClock } from '../util/time.js';
import { PlaybackManager } from './playback-manager.js';

function soundsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sounds-'));
  mkdirSync(join(dir, 'en', 'digits'), { recursive: true });
  for (const name of ['a', 'b', 'c', 'digits/1', 'digits/2']) writeFileSync(join(dir, 'en', `${name}.wav`), 'x');
  return dir;
}

describe('PlaybackManager', () => {
  let bus: EventBus;
  let media: RecordingMediaEngine;
  let manager: PlaybackManager;
  let channel: Channel;
  let tech: RecordingTechnology;
  let events: TimedDomainEvent[];

  beforeEach(() => {
    bus = new EventBus();
    events = [];
    bus.subscribe((e) => events.push(e));
    media = new RecordingMediaEngine();
    const sounds = new SoundIndex([soundsDir()], 'en', silentLogger);
    manager = new PlaybackManager({ bus, media, sounds, log: silentLogger, clock: systemClock });
    tech = new RecordingTechnology();
    channel = new ChannelRegistry(bus, silentLogger).create(sipChannelInit('x', tech));
    events.length = 0;
  });

  const playbackEvents = () =>
    events.filter((e) => e.type.startsWith('Playback')).map((e) => `${e.type}:${'playback' in e ? e.playback.media_uri : ''}`);

  it('plays a list as one playback with PlaybackContinuing between items', async () => {
    const snap = manager.playOnChannel(channel, ['sound:a', 'sound:b']);
    assert.equal(snap.state, 'enqueued');
    await settle();
    assert.equal(manager.get(snap.id).snapshot().next_media_uri, 'sound:b');
    media.finishLast();
    await settle();
    media.finishLast();
    await settle();
    assert.deepEqual(playbackEvents(), [
      'PlaybackStarted:sound:a',
      'PlaybackContinuing:sound:a',
      'PlaybackStarted:sound:b',
      'PlaybackFinished:sound:b',
    ]);
    const finished = events.at(-1);
    assert.ok(finished?.type === 'PlaybackFinished' && finished.playback.state === 'complete');
    assert.throws(
      () => manager.get(snap.id),
      (e: CoreError) => e.code === 'not_found',
    );
  });

  it('applies offsetms to the first item only and plays digits file by file', async () => {
    manager.playOnChannel(channel, ['sound:a', 'digits:12'], { offsetMs: 500 });
    await settle();
    assert.equal(media.plays[0].request.offsetMs, 500);
    media.finishLast();
    await settle();
    assert.equal(media.plays[1].request.offsetMs, 0);
    assert.match(media.plays[1].request.file, /digits\/1\.wav$/);
    media.finishLast();
    await settle();
    assert.match(media.plays[2].request.file, /digits\/2\.wav$/);
  });

  it('queues a second playback behind the first and refuses to control it while enqueued', async () => {
    const first = manager.playOnChannel(channel, ['sound:a']);
    const second = manager.playOnChannel(channel, ['sound:b']);
    await settle();
    assert.equal(media.plays.length, 1);
    assert.equal(manager.get(second.id).snapshot().state, 'enqueued');
    await assert.rejects(manager.control(second.id, 'pause'), (e: CoreError) => e.code === 'conflict');
    media.finishLast();
    await settle();
    assert.equal(media.plays.length, 2);
    assert.match(media.plays[1].request.file, /b\.wav$/);
    assert.throws(() => manager.get(first.id));
  });

  it('skips a failed item silently and reports failure only for the last one', async () => {
    manager.playOnChannel(channel, ['sound:missing', 'sound:a', 'sound:also-missing']);
    await settle();
    media.finishLast();
    await settle();
    const types = playbackEvents();
    assert.deepEqual(types, ['PlaybackStarted:sound:a', 'PlaybackContinuing:sound:a', 'PlaybackFinished:sound:also-missing']);
    const finished = events.at(-1);
    assert.ok(finished?.type === 'PlaybackFinished' && finished.playback.state === 'failed');
  });

  it('sends progress, not answer, to an unanswered channel', async () => {
    const ringing = new ChannelRegistry(bus, silentLogger).create(sipChannelInit('y', tech, { state: 'Ring' }));
    manager.playOnChannel(ringing, ['sound:a']);
    await settle();
    assert.deepEqual(tech.calls, ['progress']);
    assert.equal(ringing.state, 'Ring');
  });

  it('pauses, resumes from the paused position and stops', async () => {
    const snap = manager.playOnChannel(channel, ['sound:a']);
    await settle();
    await manager.control(snap.id, 'pause');
    assert.equal(media.stops.length, 1);
    await assert.rejects(manager.control(snap.id, 'forward'), (e: CoreError) => e.code === 'conflict');
    await manager.control(snap.id, 'unpause');
    assert.equal(media.plays.length, 2);
    await manager.stop(snap.id);
    const finished = events.at(-1);
    assert.ok(finished?.type === 'PlaybackFinished' && finished.playback.state === 'complete');
  });

  it('ends every playback of a channel that hangs up', async () => {
    manager.playOnChannel(channel, ['sound:a']);
    manager.playOnChannel(channel, ['sound:b']);
    await settle();
    channel.remoteHangup(16);
    const finished = events.filter((e) => e.type === 'PlaybackFinished');
    assert.equal(finished.length, 2);
  });

  it('refuses a playback id that is already in use', async () => {
    manager.playOnChannel(channel, ['sound:a'], { playbackId: 'p1' });
    assert.throws(
      () => manager.playOnChannel(channel, ['sound:b'], { playbackId: 'p1' }),
      (e: CoreError) => e.code === 'conflict',
    );
  });
});
