import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { WorkerCommand, WorkerToMain } from '../protocol.js';
import { sine, wav16 } from '../test-support/audio-fixtures.js';
import { waitFor } from '../test-support/wait.js';
import { WorkerHost } from './worker-host.js';

const remote = { address: '127.0.0.1', port: 9, codec: { name: 'PCMU' as const, payloadType: 0, clockRate: 8000 } };

/** A host driven in-process: every posted message is recorded in order. */
function harness() {
  const messages: WorkerToMain[] = [];
  const host = new WorkerHost((message) => messages.push(message), 0);
  let nextId = 1;
  const send = (command: WorkerCommand): number => {
    const id = nextId++;
    host.receive({ kind: 'request', id, command });
    return id;
  };
  const reply = (id: number) =>
    waitFor(`reply ${id}`, () => messages.find((m): m is Extract<WorkerToMain, { kind: 'reply' }> => m.kind === 'reply' && m.id === id));
  const indexOfReply = (id: number) => messages.findIndex((m) => m.kind === 'reply' && m.id === id);
  const indexOfFinish = (playbackId: string) =>
    messages.findIndex(
      (m) => m.kind === 'notification' && m.notification.type === 'playbackFinished' && m.notification.playbackId === playbackId,
    );
  return { host, messages, send, reply, indexOfReply, indexOfFinish };
}

describe('WorkerHost', () => {
  let dir = '';
  let tone = '';
  let h = harness();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-media-host-'));
    tone = join(dir, 'tone.wav');
    await writeFile(tone, wav16(sine(440, 8000, 2000), 8000));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await h.reply(h.send({ type: 'close' }));
    h = harness();
  });

  it('binds a leg and answers each request once, matched by id', { timeout: 5000 }, async () => {
    const created = await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    assert.ok(created.ok);
    assert.ok(created.ok && created.result !== null && 'localPort' in created.result && created.result.localPort > 0);
    const counters = await h.reply(h.send({ type: 'getCounters', legId: 'a' }));
    assert.deepEqual(counters.ok && counters.result, {
      packetsSent: 0,
      packetsReceived: 0,
      bytesSent: 0,
      bytesReceived: 0,
      packetsDropped: 0,
    });
    assert.equal(h.messages.filter((m) => m.kind === 'reply').length, 2);
  });

  it('answers an unknown leg with leg_not_found and a taken port with port_in_use', { timeout: 5000 }, async () => {
    const missing = await h.reply(h.send({ type: 'setLegRemote', legId: 'nope', remote }));
    assert.deepEqual(missing, { kind: 'reply', id: 1, ok: false, error: { code: 'leg_not_found', message: 'no media leg nope' } });

    const squatter = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => squatter.bind(0, '127.0.0.1', resolve));
    try {
      const taken = await h.reply(h.send({ type: 'createLeg', legId: 'b', bindAddress: '127.0.0.1', port: squatter.address().port }));
      assert.equal(taken.ok, false);
      assert.equal(!taken.ok && taken.error.code, 'port_in_use');
    } finally {
      squatter.close();
    }
  });

  it('posts the reply to a replacing playFile before the replaced playback finishes stopped', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    await h.reply(h.send({ type: 'setLegRemote', legId: 'a', remote }));
    await h.reply(
      h.send({ type: 'playFile', target: { kind: 'leg', legId: 'a' }, loop: false, playbackId: 'first', file: tone, offsetMs: 0 }),
    );
    await waitFor('first started', () => h.messages.find((m) => m.kind === 'notification' && m.notification.type === 'playbackStarted'));
    const second = h.send({
      type: 'playFile',
      target: { kind: 'leg', legId: 'a' },
      loop: false,
      playbackId: 'second',
      file: tone,
      offsetMs: 0,
    });
    await h.reply(second);
    await waitFor('first stopped', () => (h.indexOfFinish('first') >= 0 ? true : undefined));
    assert.ok(h.indexOfReply(second) < h.indexOfFinish('first'), 'reply first, then the notification it caused');
    const finish = h.messages[h.indexOfFinish('first')];
    assert.deepEqual(finish.kind === 'notification' && finish.notification, {
      type: 'playbackFinished',
      legId: 'a',
      playbackId: 'first',
      reason: 'stopped',
    });
  });

  it('fails a playback on a leg without a remote, after the reply', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    const id = h.send({ type: 'playFile', target: { kind: 'leg', legId: 'a' }, loop: false, playbackId: 'p', file: tone, offsetMs: 0 });
    await h.reply(id);
    assert.ok(h.indexOfReply(id) < h.indexOfFinish('p'));
    const finish = h.messages[h.indexOfFinish('p')];
    assert.ok(finish.kind === 'notification' && finish.notification.type === 'playbackFinished');
    assert.equal(finish.notification.reason, 'failed');
    assert.match(finish.notification.error ?? '', /no remote yet/);
  });

  it('finishes at once, complete and without starting, when the offset is past the end', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    await h.reply(h.send({ type: 'setLegRemote', legId: 'a', remote }));
    await h.reply(
      h.send({ type: 'playFile', target: { kind: 'leg', legId: 'a' }, loop: false, playbackId: 'p', file: tone, offsetMs: 60_000 }),
    );
    await waitFor('finish', () => (h.indexOfFinish('p') >= 0 ? true : undefined));
    const finish = h.messages[h.indexOfFinish('p')];
    assert.ok(finish.kind === 'notification' && finish.notification.type === 'playbackFinished');
    assert.equal(finish.notification.reason, 'complete');
    assert.ok(!h.messages.some((m) => m.kind === 'notification' && m.notification.type === 'playbackStarted'));
  });

  it('stops the playback when the leg is destroyed, and forgets the leg', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    await h.reply(h.send({ type: 'setLegRemote', legId: 'a', remote }));
    await h.reply(h.send({ type: 'playFile', target: { kind: 'leg', legId: 'a' }, loop: false, playbackId: 'p', file: tone, offsetMs: 0 }));
    const destroy = h.send({ type: 'destroyLeg', legId: 'a' });
    await h.reply(destroy);
    assert.ok(h.indexOfReply(destroy) < h.indexOfFinish('p'));
    const again = await h.reply(h.send({ type: 'getCounters', legId: 'a' }));
    assert.equal(!again.ok && again.error.code, 'leg_not_found');
  });
  it('answers stopRecording once the file is complete, then posts recordingFinished', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    await h.reply(h.send({ type: 'setLegRemote', legId: 'a', remote }));
    const file = join(dir, 'host.wav');
    const start = h.send({
      type: 'startRecording',
      target: { kind: 'leg', legId: 'a' },
      request: { recordingId: 'r', file, format: 'wav' },
    });
    await h.reply(start);
    const started = h.messages.findIndex((m) => m.kind === 'notification' && m.notification.type === 'recordingStarted');
    assert.ok(started > h.indexOfReply(start), 'recordingStarted follows the start reply');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stop = h.send({ type: 'stopRecording', recordingId: 'r', discard: false });
    await h.reply(stop);
    const finished = h.messages.findIndex((m) => m.kind === 'notification' && m.notification.type === 'recordingFinished');
    assert.ok(finished > h.indexOfReply(stop), 'the reply comes first');
    const note = h.messages[finished];
    assert.ok(note.kind === 'notification' && note.notification.type === 'recordingFinished' && note.notification.reason === 'stopped');
    const again = await h.reply(h.send({ type: 'stopRecording', recordingId: 'r', discard: false }));
    assert.equal(!again.ok && again.error.code, 'recording_not_found');
  });

  it('ends a leg recording as target-gone when the leg is destroyed', { timeout: 5000 }, async () => {
    await h.reply(h.send({ type: 'createLeg', legId: 'a', bindAddress: '127.0.0.1', port: 0 }));
    await h.reply(
      h.send({
        type: 'startRecording',
        target: { kind: 'leg', legId: 'a' },
        request: { recordingId: 'g', file: join(dir, 'gone.sln'), format: 'sln' },
      }),
    );
    await h.reply(h.send({ type: 'destroyLeg', legId: 'a' }));
    const note = await waitFor('recordingFinished', () =>
      h.messages.find((m) => m.kind === 'notification' && m.notification.type === 'recordingFinished'),
    );
    assert.ok(note.kind === 'notification' && note.notification.type === 'recordingFinished' && note.notification.reason === 'target-gone');
  });
});
