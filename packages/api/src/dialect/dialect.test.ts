import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { basic, type Harness, startHarness } from '../testing/harness.js';
import { ALL_DIALECTS, dialectOf } from './dialect.js';
import { DIALECT_RENAMES } from './renames.js';

/** `classic` is served in the asterisk dialect, `alice` in SPEC.md's. */
const CLASSIC = basic('classic', 'stasis');

type Doc = { apis: { path: string; operations: { nickname: string; responseClass: string; errorResponses: { code: number }[] }[] }[] };
type Models = Record<
  string,
  { id: string; subTypes?: string[]; properties: Record<string, { type: string; allowableValues?: { values: string[] } }> }
>;

describe('dialects', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const get = (url: string, auth?: string) => h.inject({ method: 'GET', url: `/ari${url}`, auth });

  test('the rename table reads the same both ways: every dialect name maps back to one SPEC.md name', () => {
    for (const name of ALL_DIALECTS) {
      const dialect = dialectOf(name);
      for (const r of DIALECT_RENAMES.resources)
        assert.equal(dialect.declaredResourceName(dialect.resourceName(r.switchboard)), r.switchboard);
      const written = DIALECT_RENAMES.models.map((r) => dialect.type(r.switchboard));
      assert.equal(new Set(written).size, written.length, `${name}: two models share a name`);
    }
    assert.equal(dialectOf('switchboard').type('List[SystemInfo]'), 'List[SystemInfo]');
    assert.equal(dialectOf('asterisk').type('List[SystemInfo]'), 'List[AsteriskInfo]');
  });

  test('the listing and the resource documents use the reference names for an asterisk user', async () => {
    const listing = (await get('/api-docs/resources.json', CLASSIC)).json<{ apis: { path: string }[] }>();
    assert.equal(listing.apis[0]?.path, '/api-docs/asterisk.{format}');
    assert.ok(!listing.apis.some((a) => a.path.includes('system')));
    const spec = (await get('/api-docs/resources.json')).json<{ apis: { path: string }[] }>();
    assert.equal(spec.apis[0]?.path, '/api-docs/system.{format}');

    const doc = (await get('/api-docs/asterisk.json', CLASSIC)).json<Doc & { resourcePath: string; models: Models }>();
    assert.equal(doc.resourcePath, '/api-docs/asterisk.{format}');
    assert.ok(doc.apis.every((a) => a.path.startsWith('/asterisk/')));
    const info = doc.apis.find((a) => a.path === '/asterisk/info')?.operations[0];
    assert.equal(info?.responseClass, 'AsteriskInfo');
    assert.equal(doc.models.AsteriskInfo?.properties.system?.type, 'SystemInfo');
    assert.ok(doc.models.SystemInfo?.properties.entity_id, 'the inner model takes the name SystemInfo');
    assert.ok(doc.models.AsteriskPing);

    const events = (await get('/api-docs/events.json', CLASSIC)).json<{ models: Models }>();
    const subTypes = events.models.Event?.subTypes ?? [];
    assert.ok(subTypes.includes('StasisStart') && subTypes.includes('StasisEnd'));
    assert.ok(!subTypes.includes('AppStart'));
    assert.equal(events.models.StasisStart?.id, 'StasisStart');
    const playbacks = (await get('/api-docs/playbacks.json', CLASSIC)).json<{ models: Models }>();
    assert.deepEqual(playbacks.models.Playback?.properties.state?.allowableValues?.values, [
      'queued',
      'playing',
      'done',
      'failed',
      'continuing',
    ]);
    const recordings = (await get('/api-docs/recordings.json', CLASSIC)).json<{ models: Models }>();
    assert.ok(recordings.models.LiveRecording?.properties.duration);
    assert.equal(recordings.models.LiveRecording?.properties.total_duration, undefined);

    const channels = (await get('/api-docs/channels.json', CLASSIC)).json<Doc>();
    const record = channels.apis.flatMap((a) => a.operations).find((op) => op.nickname === 'record');
    assert.ok(record?.errorResponses.some((e) => e.code === 409));
    const specChannels = (await get('/api-docs/channels.json')).json<Doc>();
    const specRecord = specChannels.apis.flatMap((a) => a.operations).find((op) => op.nickname === 'record');
    assert.ok(specRecord?.errorResponses.some((e) => e.code === 422));
  });

  test('the asterisk resource answers under /asterisk', async () => {
    const ping = await get('/asterisk/ping', CLASSIC);
    assert.equal(ping.statusCode, 200);
    assert.equal(ping.json().ping, 'pong');
    assert.equal((await get('/asterisk/info?only=system', CLASSIC)).statusCode, 200);
  });

  test('channel names, device names and playback states are written in each user’s dialect', async () => {
    const channel = h.createChannel();
    h.enterApplication(channel, 'dialect-app');
    const spec = (await get(`/channels/${channel.id}`)).json<{ name: string; dialplan: { app_name: string } }>();
    const classic = (await get(`/channels/${channel.id}`, CLASSIC)).json<{ name: string; dialplan: { app_name: string } }>();
    assert.match(spec.name, /^SIP\/alice-/);
    assert.equal(classic.name, `PJSIP${spec.name.slice(3)}`);

    // A device set under the reference's prefix is the same device under SPEC.md's.
    const put = await h.inject({ method: 'PUT', url: '/ari/deviceStates/Stasis:door?deviceState=BUSY', auth: CLASSIC });
    assert.equal(put.statusCode, 204);
    assert.deepEqual((await get('/deviceStates/App:door')).json(), { name: 'App:door', state: 'BUSY' });
    assert.deepEqual((await get('/deviceStates/Stasis:door', CLASSIC)).json(), { name: 'Stasis:door', state: 'BUSY' });

    const endpoints = (await get('/endpoints/PJSIP', CLASSIC)).statusCode;
    assert.ok(endpoints === 200 || endpoints === 404);

    await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play/dp1?media=sound:hello-world` });
    await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play/dp2?media=sound:hello-world` });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await get('/playbacks/dp2')).json().state, 'enqueued');
    assert.equal((await get('/playbacks/dp2', CLASSIC)).json().state, 'queued');
    // Restarting a queued playback: 409 in SPEC.md, a no-op 204 in the reference (gaps.md).
    const restart = '/ari/playbacks/dp2/control?operation=restart';
    assert.equal((await h.inject({ method: 'POST', url: restart })).statusCode, 409);
    const noop = await h.inject({ method: 'POST', url: restart, auth: CLASSIC });
    assert.equal(noop.statusCode, 204);
    assert.equal(noop.body, '');
  });

  test('an existing recording name is 422 for SPEC.md and 409 for the reference', async () => {
    const channel = h.createChannel({ state: 'Up' });
    h.enterApplication(channel, 'dialect-rec');
    await new Promise((resolve) => setTimeout(resolve, 10));
    mkdirSync(h.core.recordings.stored.root, { recursive: true });
    writeFileSync(join(h.core.recordings.stored.root, 'dialect-taken.wav'), 'RIFF');
    const again = `/ari/channels/${channel.id}/record?name=dialect-taken&format=wav`;
    assert.equal((await h.inject({ method: 'POST', url: again })).statusCode, 422);
    assert.equal((await h.inject({ method: 'POST', url: again, auth: CLASSIC })).statusCode, 409);
  });

  test('two connections of different dialects see the same channel enter under their own names', async () => {
    const { port } = await h.server.listen('127.0.0.1', 0);
    const open = (app: string, key: string) =>
      new Promise<{ ws: WebSocket; events: Record<string, unknown>[] }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ari/events?app=${app}&subscribeAll=yes&api_key=${key}`);
        const events: Record<string, unknown>[] = [];
        ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
        ws.once('open', () => resolve({ ws, events }));
        ws.once('error', reject);
      });
    const classic = await open('ref-app', 'classic:stasis');
    const spec = await open('spec-app', 'alice:secret');
    try {
      const channel = h.createChannel();
      h.enterApplication(channel, 'ref-app', ['x']);
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && !classic.events.some((e) => e.type === 'StasisStart')) await new Promise((r) => setTimeout(r, 10));
      const start = classic.events.find((e) => e.type === 'StasisStart') as { channel: { name: string; dialplan: { app_name: string } } };
      assert.ok(start, `no StasisStart in ${classic.events.map((e) => e.type).join(',')}`);
      assert.match(start.channel.name, /^PJSIP\/alice-/);
      assert.ok(!classic.events.some((e) => e.type === 'AppStart'));
      const created = spec.events.find((e) => e.type === 'ChannelCreated' && (e.channel as { id: string }).id === channel.id) as
        | { channel: { name: string } }
        | undefined;
      assert.match(String(created?.channel.name), /^SIP\/alice-/);
    } finally {
      classic.ws.close();
      spec.ws.close();
    }
  });
});
