import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { FakeChannelDriver } from '@switchboard/core/testing';
import { type FakeTechnology, type Harness, startHarness } from '../testing/harness.js';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('channel operations', () => {
  let h: Harness;
  let driver: FakeChannelDriver;
  let received: ApplicationEvent[];

  before(async () => {
    h = await startHarness();
    driver = new FakeChannelDriver();
    h.core.registerDriver(driver);
  });
  after(() => h.close());
  beforeEach(() => {
    received = [];
    h.core.applications.register('ops', (e) => received.push(e));
  });

  const post = (url: string, payload?: object) =>
    h.inject({ method: 'POST', url, ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}) });
  const types = () => received.map((e) => e.type);
  const mediaCalls = (method: string) => h.media.requests.filter((r) => r.method === method).map((r) => r.args);

  describe('originate, create and dial', () => {
    test('originate with a JSON body answers the Down channel; on answer it enters the application', async () => {
      const res = await post('/ari/channels', {
        endpoint: 'PJSIP/alice',
        app: 'ops',
        appArgs: 'a,b',
        callerId: '"Bob" <200>',
        variables: { NUM: 5, FLAG: true, SHOWN: { value: 'x', report_events: true } },
      });
      assert.equal(res.statusCode, 200, res.body);
      const snapshot = res.json();
      assert.equal(snapshot.state, 'Down');
      assert.deepEqual(snapshot.caller, { name: 'Bob', number: '200' });
      assert.deepEqual(snapshot.channelvars, { SHOWN: 'x' });
      assert.deepEqual(driver.lastCall().dialOptions, { timeoutSeconds: 30 });
      assert.deepEqual(driver.requests.at(-1)?.variables, { NUM: '5', FLAG: 'true', SHOWN: 'x' });
      driver.lastCall().events?.ringing();
      driver.lastCall().events?.answered();
      await settle();
      const start = received.find((e) => e.type === 'AppStart');
      assert.ok(start?.type === 'AppStart' && start.channel.id === snapshot.id);
      assert.deepEqual(start.args, ['a', 'b']);
      assert.ok(types().includes('Dial'));
      assert.equal((await h.inject({ method: 'GET', url: `/ari/channels/${snapshot.id}` })).json().state, 'Up');
    });

    test('originateWithId takes the id of the path; a taken id is 409', async () => {
      const res = await post('/ari/channels/orig-1?endpoint=SIP/alice&app=ops');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().id, 'orig-1');
      assert.equal((await post('/ari/channels/orig-1?endpoint=SIP/alice&app=ops')).statusCode, 409);
      assert.equal((await post('/ari/channels?endpoint=SIP/alice&app=ops&channelId=orig-1')).statusCode, 409);
    });

    test('invalid originate requests are 400, an unknown endpoint 404', async () => {
      for (const query of [
        'endpoint=SIP/alice&app=ops&extension=100',
        'endpoint=SIP/alice',
        'endpoint=alice&app=ops',
        'endpoint=IAX2/alice&app=ops',
        'endpoint=SIP/alice&app=ops&formats=ulaw&originator=x',
        'endpoint=SIP/alice&app=ops&formats=nonsense',
        'app=ops',
      ]) {
        assert.equal((await post(`/ari/channels?${query}`)).statusCode, 400, query);
      }
      assert.equal((await post('/ari/channels', { endpoint: 'SIP/alice', app: 'ops', variables: { BAD: {} } })).statusCode, 400);
      assert.equal((await post('/ari/channels?endpoint=SIP/nobody&app=ops')).statusCode, 404);
    });

    test('create enters the application at once and dial starts the call; a second dial is 409', async () => {
      const res = await post('/ari/channels/create?endpoint=SIP/alice&app=ops&channelId=created-1');
      assert.equal(res.statusCode, 200);
      await settle();
      assert.ok(received.some((e) => e.type === 'AppStart' && e.channel.id === 'created-1'));
      assert.equal(driver.lastCall().events, undefined);
      assert.equal((await post('/ari/channels/created-1/dial?timeout=10')).statusCode, 204);
      assert.deepEqual(driver.lastCall().dialOptions, { timeoutSeconds: 10 });
      assert.equal((await post('/ari/channels/created-1/dial')).statusCode, 409);
      assert.equal((await post('/ari/channels/none/dial')).statusCode, 404);
      assert.equal((await post('/ari/channels/create?endpoint=SIP/alice')).statusCode, 400);
    });
  });

  describe('flow', () => {
    test('continue leaves the application; an unknown label is 404; an unanswered outbound channel is 412', async () => {
      const channel = h.createChannel();
      assert.equal((await post(`/ari/channels/${channel.id}/continue`)).statusCode, 409);
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`/ari/channels/${channel.id}/continue?label=nowhere`)).statusCode, 404);
      assert.equal((await post(`/ari/channels/${channel.id}/continue?context=default&extension=200`)).statusCode, 204);
      await settle();
      assert.ok(types().includes('AppEnd'));
      const outbound = h.createChannel({ direction: 'outbound', state: 'Ringing' });
      h.enterApplication(outbound, 'ops');
      assert.equal((await post(`/ari/channels/${outbound.id}/continue`)).statusCode, 412);
    });

    test('move to another application, and a failed move that leaves the channel in place', async () => {
      const moved: ApplicationEvent[] = [];
      h.core.applications.register('ops-2', (e) => moved.push(e));
      const channel = h.createChannel();
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`/ari/channels/${channel.id}/move?app=absent`)).statusCode, 204);
      assert.ok(types().includes('ApplicationMoveFailed'));
      assert.equal((await post(`/ari/channels/${channel.id}/move?app=ops-2&appArgs=x`)).statusCode, 204);
      assert.ok(moved.some((e) => e.type === 'AppStart'));
      assert.equal((await post(`/ari/channels/${channel.id}/move`)).statusCode, 400);
      assert.equal((await post('/ari/channels/none/move?app=ops')).statusCode, 404);
    });

    test('redirect: 400 without endpoint, 422 for another technology, 501 when the driver cannot', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`/ari/channels/${channel.id}/redirect`)).statusCode, 400);
      assert.equal((await post(`/ari/channels/${channel.id}/redirect?endpoint=IAX2/bob`)).statusCode, 422);
      assert.equal((await post(`/ari/channels/${channel.id}/redirect?endpoint=SIP/bob`)).statusCode, 501);
    });

    test('transfer_progress: 400 for an unknown state, 501 when the technology cannot report it', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`/ari/channels/${channel.id}/transfer_progress`)).statusCode, 400);
      assert.equal((await post(`/ari/channels/${channel.id}/transfer_progress?states=finished`)).statusCode, 400);
      assert.equal((await post(`/ari/channels/${channel.id}/transfer_progress?states=Channel_Answered`)).statusCode, 501);
      assert.equal((await post('/ari/channels/none/transfer_progress?states=channel_answered')).statusCode, 404);
    });
  });

  describe('media controls', () => {
    test('ring, progress, hold, music and silence reach the channel and the media engine', async () => {
      const channel = h.createChannel();
      assert.equal((await post(`/ari/channels/${channel.id}/hold`)).statusCode, 409);
      h.enterApplication(channel, 'ops');
      const tech = channel.tech as FakeTechnology;
      assert.equal((await post(`/ari/channels/${channel.id}/ring`)).statusCode, 204);
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}/ring` })).statusCode, 204);
      assert.equal((await post(`/ari/channels/${channel.id}/progress`)).statusCode, 204);
      assert.deepEqual(tech.calls, ['ringing', 'progress']);
      assert.equal((await post(`/ari/channels/${channel.id}/hold`)).statusCode, 204);
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}/hold` })).statusCode, 204);
      assert.ok(types().includes('ChannelHold') && types().includes('ChannelUnhold'));
      assert.equal((await post(`/ari/channels/${channel.id}/moh?mohClass=none-such`)).statusCode, 204);
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}/moh` })).statusCode, 204);
      assert.equal((await post(`/ari/channels/${channel.id}/silence`)).statusCode, 204);
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}/silence` })).statusCode, 204);
      // Music is a looping file (or silence when the class has no files); silence is a tone without frequencies.
      const music = h.media.played.filter((p) => p.legId === 'leg-test' && p.loop !== undefined).length;
      assert.equal(music + mediaCalls('playTone').length, 2);
    });

    test('mute directions; a bad direction is 400', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'ops');
      const before = mediaCalls('setLegMute').length;
      assert.equal((await post(`/ari/channels/${channel.id}/mute?direction=in`)).statusCode, 204);
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}/mute` })).statusCode, 204);
      assert.deepEqual(mediaCalls('setLegMute').slice(before), [
        ['leg-test', { inbound: true, outbound: false }],
        ['leg-test', { inbound: false, outbound: false }],
      ]);
      assert.equal((await post(`/ari/channels/${channel.id}/mute?direction=sideways`)).statusCode, 400);
    });

    test('sendDTMF validates the digits and sends them', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`/ari/channels/${channel.id}/dtmf`)).statusCode, 400);
      assert.equal((await post(`/ari/channels/${channel.id}/dtmf?dtmf=12x`)).statusCode, 400);
      assert.equal((await post(`/ari/channels/${channel.id}/dtmf?dtmf=1%23&duration=250`)).statusCode, 204);
      await settle();
      assert.deepEqual(mediaCalls('sendDtmf').at(-1), ['leg-test', { digits: '1#', durationMs: 250, betweenMs: 100 }]);
    });

    test('rtp_statistics carries the channel id; works outside an application', async () => {
      const channel = h.createChannel();
      const res = await h.inject({ method: 'GET', url: `/ari/channels/${channel.id}/rtp_statistics` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().channel_uniqueid, channel.id);
      assert.equal((await h.inject({ method: 'GET', url: '/ari/channels/none/rtp_statistics' })).statusCode, 404);
    });
  });

  describe('variables', () => {
    test('get and set, functions, missing and unknown names', async () => {
      const channel = h.createChannel();
      const url = `/ari/channels/${channel.id}`;
      assert.equal((await h.inject({ method: 'GET', url: `${url}/variable` })).statusCode, 400);
      assert.equal((await h.inject({ method: 'GET', url: `${url}/variable?variable=NOPE` })).statusCode, 404);
      assert.deepEqual((await h.inject({ method: 'GET', url: `${url}/variable?variable=CALLERID(num)` })).json(), { value: '100' });
      assert.equal((await post(`${url}/variable?variable=A&value=1`)).statusCode, 409, 'writing needs an application');
      h.enterApplication(channel, 'ops');
      assert.equal((await post(`${url}/variable?variable=A&value=1`)).statusCode, 204);
      assert.ok(types().includes('ChannelVarset'));
      assert.deepEqual((await h.inject({ method: 'GET', url: `${url}/variable?variable=A` })).json(), { value: '1' });
      assert.equal((await post(`${url}/variables`, { variables: { B: 2, 'CALLERID(name)': 'Zed' } })).statusCode, 204);
      const many = await h.inject({ method: 'GET', url: `${url}/variables?variables=A,B,CALLERID(name)` });
      assert.deepEqual(many.json(), { variables: { A: '1', B: '2', 'CALLERID(name)': 'Zed' } });
      assert.equal((await h.inject({ method: 'GET', url: `${url}/variables?variables=A,NOPE` })).statusCode, 404);
      assert.equal((await post(`${url}/variables`, { variables: { C: [1] } })).statusCode, 400);
      assert.equal((await post(`${url}/variable?variable=TALK_DETECT(set)&value=1500`)).statusCode, 204);
      assert.deepEqual(mediaCalls('setTalkDetection').at(-1), ['leg-test', { energyThreshold: 256, talkMs: 0, silenceMs: 1500 }]);
    });
  });

  describe('snoop', () => {
    test('makes a Snoop channel in the application; both directions none is 400', async () => {
      const channel = h.createChannel({ id: 'snooped' });
      const res = await post('/ari/channels/snooped/snoop?spy=both&app=ops&snoopId=snoop-a');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().id, 'snoop-a');
      assert.match(res.json().name, /^Snoop\/snooped-[0-9a-f]{8}$/);
      await settle();
      assert.ok(received.some((e) => e.type === 'AppStart' && e.channel.id === 'snoop-a'));
      const withId = await post('/ari/channels/snooped/snoop/snoop-b?whisper=out&app=ops');
      assert.equal(withId.json().id, 'snoop-b');
      assert.equal((await post('/ari/channels/snooped/snoop?app=ops')).statusCode, 400);
      assert.equal((await post('/ari/channels/snooped/snoop?spy=both')).statusCode, 400);
      assert.equal((await post('/ari/channels/snooped/snoop/snoop-a?spy=both&app=ops')).statusCode, 409);
      assert.equal((await post('/ari/channels/none/snoop?spy=both&app=ops')).statusCode, 404);
      await channel.hangup();
    });
  });

  describe('externalMedia', () => {
    test('an RTP channel to the host, with its local address in channelvars, placed in the application', async () => {
      const res = await post('/ari/channels/externalMedia?app=ops&external_host=127.0.0.1:40000&format=ulaw&channelId=ext-1');
      assert.equal(res.statusCode, 200, res.body);
      const channel = res.json();
      assert.match(channel.name, /^UnicastRTP\/127\.0\.0\.1:40000-[0-9a-f]{8}$/);
      assert.equal(channel.state, 'Up');
      assert.equal(channel.channelvars.UNICASTRTP_LOCAL_ADDRESS, '127.0.0.1');
      assert.match(channel.channelvars.UNICASTRTP_LOCAL_PORT, /^\d+$/);
      await settle();
      assert.ok(received.some((e) => e.type === 'AppStart' && e.channel.id === 'ext-1'));
      assert.equal(
        (await post('/ari/channels/externalMedia?app=ops&external_host=127.0.0.1:40000&format=ulaw&channelId=ext-1')).statusCode,
        409,
      );
    });

    test('bad combinations are 400; transports other than RTP/UDP are 501', async () => {
      for (const query of [
        'app=ops&external_host=127.0.0.1:40000',
        'external_host=127.0.0.1:40000&format=ulaw',
        'app=ops&external_host=127.0.0.1&format=ulaw',
        'app=ops&external_host=127.0.0.1:40000&format=gsm',
        'app=ops&external_host=127.0.0.1:40000&format=ulaw&transport=tcp',
        'app=ops&external_host=127.0.0.1:40000&format=ulaw&connection_type=server',
      ]) {
        assert.equal((await post(`/ari/channels/externalMedia?${query}`)).statusCode, 400, query);
      }
      const socket = await post(
        '/ari/channels/externalMedia?app=ops&external_host=127.0.0.1:40000&format=ulaw&encapsulation=audiosocket&transport=tcp',
      );
      assert.equal(socket.statusCode, 501);
    });
  });
});
