import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import type { StartRecordingRequest } from '../media/media-engine.js';
import { RecordingMediaEngine, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { type RecordTarget, RecordingManager } from './recording-manager.js';
import { StoredRecordings } from './stored-recordings.js';

/** Time moves only when the test says so. */
class ManualClock implements Clock {
  time = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  #next = 0;
  now() {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number) {
    this.#next += 1;
    this.timers.set(this.#next, { at: this.time + ms, fn });
    return this.#next;
  }
  clearTimeout(handle: unknown) {
    this.timers.delete(handle as number);
  }
  advance(ms: number) {
    this.time += ms;
    for (const [id, t] of [...this.timers]) {
      if (t.at <= this.time) {
        this.timers.delete(id);
        t.fn();
      }
    }
  }
}

describe('RecordingManager', () => {
  let media: RecordingMediaEngine;
  let manager: RecordingManager;
  let events: TimedDomainEvent[];
  let clock: ManualClock;
  let root: string;
  let goneHooks: (() => void)[];
  let target: RecordTarget;

  beforeEach(() => {
    const bus = new EventBus();
    events = [];
    bus.subscribe((e) => events.push(e));
    media = new RecordingMediaEngine();
    clock = new ManualClock();
    root = join(mkdtempSync(join(tmpdir(), 'recmgr-')), 'recordings');
    manager = new RecordingManager({ bus, media, stored: new StoredRecordings(root), log: silentLogger, clock });
    goneHooks = [];
    target = { uri: 'channel:c1', media: { kind: 'leg', legId: 'leg-1' }, onGone: (hook) => goneHooks.push(hook) };
  });

  const started = () => media.requests.filter((r) => r.method === 'startRecording').map((r) => r.args[1] as StartRecordingRequest);
  const recordingEvents = () => events.flatMap((e) => ('recording' in e ? [`${e.type}:${e.recording.state}`] : []));

  it('goes queued → recording ⇄ paused → done, with durations in whole seconds', async () => {
    const snap = manager.record(target, { name: 'calls/one', format: 'wav', maxSilenceSeconds: 2, terminateOn: '#' });
    assert.equal(snap.state, 'queued');
    const request = started()[0];
    assert.equal(request.file, join(root, 'calls/one.wav'));
    assert.equal(request.maxSilenceMs, 2000);
    assert.equal(request.terminateOn, '#');
    await assert.rejects(manager.pause('calls/one'), (e: CoreError) => e.code === 'conflict');

    media.emit({ type: 'recordingStarted', recordingId: request.recordingId });
    assert.equal(manager.getLive('calls/one').state, 'recording');
    await manager.pause('calls/one');
    assert.equal(manager.getLive('calls/one').state, 'paused');
    await manager.mute('calls/one');
    assert.equal(manager.getLive('calls/one').state, 'paused');
    await manager.unpause('calls/one');
    assert.equal(manager.getLive('calls/one').state, 'recording');

    await manager.stop('calls/one');
    media.emit({
      type: 'recordingFinished',
      recordingId: request.recordingId,
      reason: 'stopped',
      durationMs: 5900,
      talkingMs: 3100,
      silenceMs: 2800,
    });
    assert.deepEqual(recordingEvents(), ['RecordingStarted:recording', 'RecordingFinished:done']);
    const finished = events.at(-1);
    assert.ok(finished?.type === 'RecordingFinished');
    assert.deepEqual(finished.recording, {
      name: 'calls/one',
      format: 'wav',
      target_uri: 'channel:c1',
      state: 'done',
      total_duration: 5,
      talking_duration: 3,
      silence_duration: 2,
    });
    assert.throws(
      () => manager.getLive('calls/one'),
      (e: CoreError) => e.code === 'not_found',
    );
    assert.deepEqual(
      media.requests.filter((r) => r.method === 'setRecordingState').map((r) => r.args[1]),
      [{ paused: true }, { muted: true }, { paused: false }],
    );
  });

  it('reports no talking/silence durations without silence detection, and failures as RecordingFailed', async () => {
    manager.record(target, { name: 'a', format: 'wav' });
    media.emit({ type: 'recordingFinished', recordingId: started()[0].recordingId, reason: 'max-duration', durationMs: 2000 });
    const done = events.at(-1);
    assert.ok(done?.type === 'RecordingFinished' && done.recording.talking_duration === undefined && done.recording.total_duration === 2);

    manager.record(target, { name: 'b', format: 'wav' });
    media.emit({ type: 'recordingFinished', recordingId: started()[1].recordingId, reason: 'failed', durationMs: 0, error: 'disk full' });
    const failed = events.at(-1);
    assert.ok(failed?.type === 'RecordingFailed' && failed.recording.state === 'failed' && failed.recording.cause === 'disk full');
  });

  it('cancels (discarding the file) and finishes on its own when the engine never answers', async () => {
    manager.record(target, { name: 'c', format: 'ulaw' });
    await manager.cancel('c');
    assert.deepEqual(media.requests.find((r) => r.method === 'stopRecording')?.args[1], { discard: true });
    assert.equal(manager.getLive('c').state, 'queued');
    clock.advance(5000);
    assert.deepEqual(recordingEvents(), ['RecordingFinished:canceled']);
  });

  it('stops when the target goes away', async () => {
    manager.record(target, { name: 'd', format: 'wav' });
    for (const hook of goneHooks) hook();
    await settle();
    assert.deepEqual(media.requests.find((r) => r.method === 'stopRecording')?.args[1], { discard: false });
    media.emit({ type: 'recordingFinished', recordingId: started()[0].recordingId, reason: 'target-gone', durationMs: 1000 });
    assert.deepEqual(recordingEvents(), ['RecordingFinished:done']);
  });

  it('passes the recorder format on: a channel format as given, a recording format as its own capture; unknown is 422', () => {
    const bridge: RecordTarget = { uri: 'bridge:b1', media: { kind: 'bridge', bridgeId: 'b1' }, onGone: () => {} };
    manager.record(bridge, { name: 'wide', format: 'g722', recorderFormat: 'slin16' });
    manager.record(bridge, { name: 'narrow', format: 'wav', recorderFormat: 'ulaw' });
    manager.record(bridge, { name: 'same', format: 'g722', recorderFormat: 'wav' });
    manager.record(bridge, { name: 'default', format: 'wav' });
    assert.deepEqual(
      started().map((r) => r.recorderFormat),
      ['slin16', 'ulaw', 'slin', undefined],
    );
    assert.throws(
      () => manager.record(bridge, { name: 'bad', format: 'wav', recorderFormat: 'avi' }),
      (e: CoreError) => e.code === 'unprocessable',
    );
  });

  it('checks name, format and existing files: 400, 422, 409 and ifExists', () => {
    assert.throws(
      () => manager.record(target, { name: '../x', format: 'wav' }),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => manager.record(target, { name: 'x', format: 'mp4' }),
      (e: CoreError) => e.code === 'unprocessable',
    );
    assert.throws(
      () => manager.record(target, { name: 'x', format: '../wav' }),
      (e: CoreError) => e.code === 'unprocessable',
    );
    manager.record(target, { name: 'live', format: 'wav' });
    assert.throws(
      () => manager.record(target, { name: 'live', format: 'wav' }),
      (e: CoreError) => e.code === 'conflict',
    );

    writeFileSync(join(root, 'old.wav'), 'x');
    assert.throws(
      () => manager.record(target, { name: 'old', format: 'wav' }),
      (e: CoreError) => e.code === 'recording_exists',
    );
    manager.record(target, { name: 'old', format: 'wav', ifExists: 'append' });
    assert.equal(started().at(-1)?.append, true);
  });
});
