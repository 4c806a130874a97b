import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { StartRecordingRequest } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('recordings resource', () => {
  let h: Harness;
  let root: string;
  before(async () => {
    h = await startHarness();
    root = h.core.recordings.stored.root;
    mkdirSync(join(root, 'calls'), { recursive: true });
    writeFileSync(join(root, 'greeting.wav'), 'RIFF-greeting');
    writeFileSync(join(root, 'calls', 'one.ulaw'), 'ulaw-bytes');
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    writeFileSync(join(outside, 'secret.wav'), 'secret');
    symlinkSync(outside, join(root, 'escape'));
  });
  after(() => h.close());

  const req = (method: 'GET' | 'POST' | 'DELETE', url: string) => h.inject({ method, url: `/ari${url}` });
  const lastStart = () => h.media.requests.filter((r) => r.method === 'startRecording').at(-1)?.args[1] as StartRecordingRequest;

  test('stored recordings: list, get, file, copy and delete, with escapes refused', async () => {
    assert.deepEqual((await req('GET', '/recordings/stored')).json(), [
      { name: 'calls/one', format: 'ulaw' },
      { name: 'greeting', format: 'wav' },
    ]);
    assert.deepEqual((await req('GET', '/recordings/stored/calls%2Fone')).json(), { name: 'calls/one', format: 'ulaw' });
    assert.equal((await req('GET', '/recordings/stored/missing')).statusCode, 404);
    assert.equal((await req('GET', '/recordings/stored/..%2F..%2Fetc%2Fpasswd')).statusCode, 404);
    assert.equal((await req('GET', '/recordings/stored/escape%2Fsecret')).statusCode, 404);
    assert.equal((await req('GET', '/recordings/stored/escape%2Fsecret/file')).statusCode, 404);

    const file = await req('GET', '/recordings/stored/greeting/file');
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'audio/wav');
    assert.equal(file.body, 'RIFF-greeting');
    assert.equal((await req('GET', '/recordings/stored/missing/file')).statusCode, 404);

    const copy = await req('POST', '/recordings/stored/greeting/copy?destinationRecordingName=copies/greeting2');
    assert.equal(copy.statusCode, 200);
    assert.deepEqual(copy.json(), { name: 'copies/greeting2', format: 'wav' });
    assert.equal((await req('POST', '/recordings/stored/greeting/copy?destinationRecordingName=copies/greeting2')).statusCode, 409);
    assert.equal((await req('POST', '/recordings/stored/greeting/copy?destinationRecordingName=..%2F..%2Fstolen')).statusCode, 400);
    assert.equal((await req('POST', '/recordings/stored/greeting/copy?destinationRecordingName=escape/stolen')).statusCode, 400);
    assert.equal((await req('POST', '/recordings/stored/missing/copy?destinationRecordingName=x')).statusCode, 404);

    assert.equal((await req('DELETE', '/recordings/stored/copies%2Fgreeting2')).statusCode, 204);
    assert.ok(!existsSync(join(root, 'copies', 'greeting2.wav')));
    assert.equal((await req('DELETE', '/recordings/stored/copies%2Fgreeting2')).statusCode, 404);
  });

  test('record a channel and control the live recording through its states', async () => {
    const channel = h.createChannel();
    h.enterApplication(channel, 'rec-app');
    const res = await req('POST', `/channels/${channel.id}/record?name=live1&format=wav&maxDurationSeconds=10&beep=yes`);
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers.location, '/ari/recordings/live/live1');
    assert.deepEqual(res.json(), { name: 'live1', format: 'wav', target_uri: `channel:${channel.id}`, state: 'queued' });
    assert.equal(channel.state, 'Up');
    const start = lastStart();
    assert.equal(start.file, join(root, 'live1.wav'));
    assert.equal(start.maxDurationMs, 10000);
    assert.equal(start.beep, true);

    // Queued: only stop and cancel are allowed (reference gaps.md [3-b]).
    for (const [method, path] of [
      ['POST', '/pause'],
      ['DELETE', '/pause'],
      ['POST', '/mute'],
      ['DELETE', '/mute'],
    ] as const) {
      assert.equal((await req(method, `/recordings/live/live1${path}`)).statusCode, 409, `${method} ${path}`);
    }
    h.media.emit({ type: 'recordingStarted', recordingId: start.recordingId });
    assert.equal((await req('GET', '/recordings/live/live1')).json().state, 'recording');
    assert.equal((await req('POST', '/recordings/live/live1/pause')).statusCode, 204);
    assert.equal((await req('GET', '/recordings/live/live1')).json().state, 'paused');
    assert.equal((await req('DELETE', '/recordings/live/live1/pause')).statusCode, 204);
    assert.equal((await req('POST', '/recordings/live/live1/mute')).statusCode, 204);
    assert.equal((await req('DELETE', '/recordings/live/live1/mute')).statusCode, 204);
    assert.equal((await req('GET', '/recordings/live/live1')).json().state, 'recording');
    // SPEC §4.7's forms: POST .../unpause and POST .../unmute.
    assert.equal((await req('POST', '/recordings/live/live1/pause')).statusCode, 204);
    assert.equal((await req('POST', '/recordings/live/live1/unpause')).statusCode, 204);
    assert.equal((await req('GET', '/recordings/live/live1')).json().state, 'recording');
    assert.equal((await req('POST', '/recordings/live/live1/mute')).statusCode, 204);
    assert.equal((await req('POST', '/recordings/live/live1/unmute')).statusCode, 204);
    assert.equal((await req('POST', '/recordings/live/live1/stop')).statusCode, 204);
    h.media.emit({ type: 'recordingFinished', recordingId: start.recordingId, reason: 'stopped', durationMs: 4200 });
    assert.equal((await req('GET', '/recordings/live/live1')).statusCode, 404);

    for (const [method, path] of [
      ['DELETE', ''],
      ['POST', '/stop'],
      ['POST', '/pause'],
      ['DELETE', '/pause'],
      ['POST', '/mute'],
      ['DELETE', '/mute'],
      ['POST', '/unpause'],
      ['POST', '/unmute'],
    ] as const) {
      assert.equal((await req(method, `/recordings/live/none${path}`)).statusCode, 404, `${method} ${path}`);
    }
  });

  test('channel record errors: 400, 404, 409, 412 and 422', async () => {
    const channel = h.createChannel({ state: 'Up' });
    h.enterApplication(channel, 'rec-app');
    const outsider = h.createChannel({ state: 'Up' });
    const outbound = h.createChannel({ direction: 'outbound', state: 'Ringing' });
    h.enterApplication(outbound, 'rec-app');

    assert.equal((await req('POST', `/channels/${channel.id}/record?name=..%2Fx&format=wav`)).statusCode, 400);
    assert.equal((await req('POST', `/channels/${channel.id}/record?format=wav`)).statusCode, 400);
    assert.equal((await req('POST', `/channels/${channel.id}/record?name=x&format=wav&terminateOn=5`)).statusCode, 400);
    assert.equal((await req('POST', '/channels/nope/record?name=x&format=wav')).statusCode, 404);
    assert.equal((await req('POST', `/channels/${outsider.id}/record?name=x&format=wav`)).statusCode, 409);
    assert.equal((await req('POST', `/channels/${outbound.id}/record?name=x&format=wav`)).statusCode, 412);
    assert.equal((await req('POST', `/channels/${channel.id}/record?name=x&format=avi`)).statusCode, 422);
    // SPEC §4.4 rule 6: an existing file with ifExists=fail is a 422 (the reference says 409).
    assert.equal((await req('POST', `/channels/${channel.id}/record?name=greeting&format=wav`)).statusCode, 422);
    assert.equal((await req('POST', `/channels/${channel.id}/record?name=greeting&format=wav&ifExists=overwrite`)).statusCode, 201);
    assert.equal((await req('POST', `/channels/${channel.id}/record?name=greeting&format=wav&ifExists=overwrite`)).statusCode, 409);
    assert.equal((await req('DELETE', '/recordings/live/greeting')).statusCode, 204);
  });
});
