import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent, PlayFileRequest, PlayToneRequest, StartRecordingRequest } from '@switchboard/core';
import { toWireEvent } from '../events/envelope.js';
import { eventProblem } from '../events/validate.js';
import { type Harness, startHarness } from '../testing/harness.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('bridges resource', () => {
  let h: Harness;
  const received: ApplicationEvent[] = [];
  before(async () => {
    h = await startHarness();
    h.core.applications.register('bridge-app', (e) => received.push(e));
  });
  after(() => h.close());

  const post = (url: string) => h.inject({ method: 'POST', url: `/ari${url}` });
  const del = (url: string) => h.inject({ method: 'DELETE', url: `/ari${url}` });
  const get = (url: string) => h.inject({ method: 'GET', url: `/ari${url}` });
  const appChannel = () => {
    const channel = h.createChannel({ state: 'Up' });
    h.enterApplication(channel, 'bridge-app');
    return channel;
  };

  test('create, createWithId, get, list and destroy', async () => {
    const created = await post('/bridges?type=mixing,dtmf_events&name=conf&bridgeId=b-create');
    assert.equal(created.statusCode, 200);
    assert.equal(created.json().id, 'b-create');
    assert.equal(created.json().bridge_class, 'app');
    assert.equal(created.json().creator, 'App');
    assert.equal(created.json().name, 'conf');
    assert.equal((await post('/bridges?bridgeId=b-create')).statusCode, 409);
    assert.equal((await post('/bridges?type=mixing,holding')).statusCode, 400);
    assert.equal((await post('/bridges?type=nonsense')).statusCode, 400);

    const withId = await h.inject({ method: 'POST', url: '/ari/bridges/b-with-id?type=holding', payload: { variables: { ROOM: '7' } } });
    assert.equal(withId.statusCode, 200);
    assert.equal(withId.json().technology, 'holding_bridge');
    assert.equal((await post('/bridges/b-with-id')).statusCode, 409);
    assert.equal((await post('/bridges/b-bad-type?type=video_sfu,video_single')).statusCode, 400);
    const generated = await post('/bridges');
    assert.match(generated.json().id, /^[0-9a-f-]{36}$/);

    assert.equal((await get('/bridges/b-create')).json().bridge_type, 'mixing');
    assert.equal((await get('/bridges/none')).statusCode, 404);
    const ids = (await get('/bridges')).json().map((b: { id: string }) => b.id);
    assert.ok(ids.includes('b-create') && ids.includes('b-with-id'));

    assert.equal((await del('/bridges/b-create')).statusCode, 204);
    assert.equal((await del('/bridges/b-create')).statusCode, 404);
    await h.core.bridges.create({ id: 'internal', appOwned: false });
    assert.equal((await del('/bridges/internal')).statusCode, 409);
  });

  test('addChannel and removeChannel with every error status', async () => {
    await post('/bridges/b-add');
    const [a, b] = [appChannel(), appChannel()];
    const outsider = h.createChannel({ state: 'Up' });
    assert.equal((await post(`/bridges/b-add/addChannel?channel=${a.id},${b.id}&roles=partner&mute=yes`)).statusCode, 204);
    assert.deepEqual((await get('/bridges/b-add')).json().channels, [a.id, b.id]);
    assert.equal(h.core.bridges.get('b-add')?.participants.get(a.id)?.options.role, 'partner');
    assert.equal((await post('/bridges/b-add/addChannel')).statusCode, 400);
    assert.equal((await post('/bridges/b-add/addChannel?channel=nope')).statusCode, 400);
    assert.equal((await post('/bridges/none/addChannel?channel=' + a.id)).statusCode, 404);
    assert.equal((await post('/bridges/internal/addChannel?channel=' + a.id)).statusCode, 409);
    assert.equal((await post(`/bridges/b-add/addChannel?channel=${outsider.id}`)).statusCode, 422);

    assert.equal((await post(`/bridges/b-add/removeChannel?channel=${outsider.id}`)).statusCode, 422);
    assert.equal((await post('/bridges/b-add/removeChannel?channel=nope')).statusCode, 400);
    assert.equal((await post('/bridges/none/removeChannel?channel=x')).statusCode, 404);
    assert.equal((await post('/bridges/internal/removeChannel?channel=x')).statusCode, 409);
    assert.equal((await post(`/bridges/b-add/removeChannel?channel=${a.id}`)).statusCode, 204);
    assert.deepEqual((await get('/bridges/b-add')).json().channels, [b.id]);

    const types = received.map((e) => e.type);
    assert.ok(types.includes('ChannelEnteredBridge') && types.includes('ChannelLeftBridge'));
    for (const event of received) assert.equal(eventProblem(toWireEvent(event, 'bridge-app', 'id')), undefined, event.type);
  });

  test('video source: set, clear and errors', async () => {
    await post('/bridges/b-video');
    const [a, b] = [appChannel(), appChannel()];
    const outsider = h.createChannel({ state: 'Up' });
    await post(`/bridges/b-video/addChannel?channel=${a.id}`);
    assert.equal((await post(`/bridges/b-video/videoSource/${a.id}`)).statusCode, 204);
    assert.equal((await get('/bridges/b-video')).json().video_source_id, a.id);
    assert.equal((await post(`/bridges/b-video/videoSource/${b.id}`)).statusCode, 422);
    assert.equal((await post(`/bridges/b-video/videoSource/${outsider.id}`)).statusCode, 422);
    assert.equal((await post('/bridges/b-video/videoSource/nope')).statusCode, 400);
    assert.equal((await post(`/bridges/none/videoSource/${a.id}`)).statusCode, 404);
    assert.equal((await post(`/bridges/internal/videoSource/${a.id}`)).statusCode, 409);
    assert.equal((await del('/bridges/b-video/videoSource')).statusCode, 204);
    assert.equal((await get('/bridges/b-video')).json().video_source_id, undefined);
    assert.equal((await del('/bridges/none/videoSource')).statusCode, 404);
    assert.equal((await del('/bridges/internal/videoSource')).statusCode, 409);
    assert.ok(received.some((e) => e.type === 'BridgeVideoSourceChanged'));
  });

  test('music on hold', async () => {
    const dir = join(h.core.config.confDir, '..', 'sounds', 'moh', 'default');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tune.wav'), '');
    await post('/bridges/b-moh');
    assert.equal((await del('/bridges/b-moh/moh')).statusCode, 409);
    assert.equal((await post('/bridges/b-moh/moh?mohClass=default')).statusCode, 204);
    const play = h.media.requests.filter((r) => r.method === 'playFileOnBridge').at(-1);
    assert.equal((play?.args[1] as PlayFileRequest | undefined)?.loop, true);
    assert.equal((await del('/bridges/b-moh/moh')).statusCode, 204);
    for (const url of ['/bridges/none/moh', '/bridges/internal/moh']) {
      const expected = url.includes('none') ? 404 : 409;
      assert.equal((await post(url)).statusCode, expected);
      assert.equal((await del(url)).statusCode, expected);
    }
  });

  test('play and playWithId queue on the bridge; tones are played by the engine', async () => {
    await post('/bridges/b-play');
    const first = await post('/bridges/b-play/play?media=sound:hello-world&playbackId=bp1');
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers.location, '/ari/playbacks/bp1');
    assert.equal(first.json().target_uri, 'bridge:b-play');
    const second = await post('/bridges/b-play/play/bp2?media=tone:ring&announcer_format=slin');
    assert.equal(second.statusCode, 201);
    await tick();
    assert.equal((await get('/playbacks/bp2')).json().state, 'enqueued');
    assert.equal((await post('/playbacks/bp2/control?operation=pause')).statusCode, 409);
    assert.equal((await del('/playbacks/bp1')).statusCode, 204);
    await tick();
    const tone = h.media.requests.filter((r) => r.method === 'playTone').at(-1);
    assert.deepEqual(tone?.args[0], { kind: 'bridge', bridgeId: 'b-play' });
    assert.equal((tone?.args[1] as PlayToneRequest | undefined)?.repeat, true);
    assert.equal((tone?.args[1] as PlayToneRequest | undefined)?.announcerFormat, 'slin', 'announcer_format reaches the engine');
    assert.equal((await post('/playbacks/bp2/control?operation=forward')).statusCode, 409);
    assert.equal((await post('/playbacks/bp2/control?operation=restart')).statusCode, 204);

    assert.equal((await post('/bridges/b-play/play?media=sound:x&announcer_format=mp3')).statusCode, 422);
    assert.equal((await post('/bridges/none/play?media=sound:x')).statusCode, 404);
    assert.equal((await post('/bridges/internal/play/p9?media=sound:x')).statusCode, 409);
    assert.equal((await post('/bridges/none/play/p9?media=sound:x')).statusCode, 404);
    assert.equal((await post('/bridges/internal/play?media=sound:x')).statusCode, 409);
    assert.equal((await post('/bridges/b-play/play/p10?media=sound:x&announcer_format=avi')).statusCode, 422);
  });

  test('record a bridge', async () => {
    await post('/bridges/b-rec');
    const res = await post('/bridges/b-rec/record?name=conf/b-rec&format=wav&maxSilenceSeconds=3&terminateOn=*');
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers.location, `/ari/recordings/live/${encodeURIComponent('conf/b-rec')}`);
    assert.equal(res.json().target_uri, 'bridge:b-rec');
    assert.equal(res.json().state, 'queued');
    const start = h.media.requests.filter((r) => r.method === 'startRecording').at(-1);
    assert.deepEqual(start?.args[0], { kind: 'bridge', bridgeId: 'b-rec' });
    assert.equal((start?.args[1] as StartRecordingRequest | undefined)?.terminateOn, '*');
    assert.equal((start?.args[1] as StartRecordingRequest | undefined)?.recorderFormat, undefined, 'absent: the format decides');
    assert.equal((await post('/bridges/b-rec/record?name=conf/wide&format=g722&recorder_format=slin16')).statusCode, 201);
    const wide = h.media.requests.filter((r) => r.method === 'startRecording').at(-1);
    assert.equal((wide?.args[1] as StartRecordingRequest | undefined)?.recorderFormat, 'slin16', 'recorder_format reaches the engine');

    assert.equal((await post('/bridges/b-rec/record?name=conf/b-rec&format=wav')).statusCode, 409);
    assert.equal((await post('/bridges/b-rec/record?name=../escape&format=wav')).statusCode, 400);
    assert.equal((await post('/bridges/b-rec/record?name=x&format=wav&ifExists=sometimes')).statusCode, 400);
    assert.equal((await post('/bridges/b-rec/record?name=x&format=avi')).statusCode, 422);
    assert.equal((await post('/bridges/b-rec/record?name=x&format=wav&recorder_format=avi')).statusCode, 422);
    assert.equal((await post('/bridges/none/record?name=x&format=wav')).statusCode, 404);
    assert.equal((await post('/bridges/internal/record?name=x&format=wav')).statusCode, 409);

    // Destroying the bridge ends its recording.
    assert.equal((await del('/bridges/b-rec')).statusCode, 204);
    assert.ok(h.media.requests.some((r) => r.method === 'stopRecording'));
  });

  test('bridge variables', async () => {
    await post('/bridges/b-var');
    assert.equal((await post('/bridges/b-var/variable?variable=ROOM&value=7&report_events=true')).statusCode, 204);
    assert.deepEqual((await get('/bridges/b-var/variable?variable=ROOM')).json(), { value: '7' });
    assert.deepEqual((await get('/bridges/b-var')).json().bridgevars, { ROOM: '7' });
    assert.equal((await get('/bridges/b-var/variable?variable=NONE')).statusCode, 404);
    assert.equal((await get('/bridges/b-var/variable')).statusCode, 400);
    assert.equal((await post('/bridges/b-var/variable')).statusCode, 400);
    assert.equal((await get('/bridges/internal/variable?variable=X')).statusCode, 409);
    assert.equal((await post('/bridges/none/variable?variable=X')).statusCode, 404);
    assert.equal((await post('/bridges/internal/variable?variable=X')).statusCode, 409);

    const setMany = await h.inject({
      method: 'POST',
      url: '/ari/bridges/b-var/variables',
      payload: { variables: { A: '1', B: { value: '2' } } },
    });
    assert.equal(setMany.statusCode, 204);
    assert.deepEqual((await get('/bridges/b-var/variables?variables=A,B')).json(), { variables: { A: '1', B: '2' } });
    assert.equal((await get('/bridges/b-var/variables?variables=A,NONE')).statusCode, 404);
    assert.equal((await get('/bridges/b-var/variables')).statusCode, 400);
    assert.equal((await get('/bridges/internal/variables?variables=A')).statusCode, 409);
    assert.equal(
      (await h.inject({ method: 'POST', url: '/ari/bridges/b-var/variables', payload: { variables: { A: [1] } } })).statusCode,
      400,
    );
    assert.equal((await h.inject({ method: 'POST', url: '/ari/bridges/b-var/variables' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/bridges/none/variables', payload: { variables: {} } })).statusCode, 404);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/bridges/internal/variables', payload: { variables: {} } })).statusCode, 409);
  });
});
