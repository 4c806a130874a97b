import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeTechnology, type Harness, startHarness } from '../testing/harness.js';

describe('channels resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('list and get show channel snapshots; unknown ids are 404', async () => {
    const channel = h.createChannel({ id: 'list-me' });
    const list = await h.inject({ method: 'GET', url: '/ari/channels' });
    assert.ok(list.json().some((c: { id: string }) => c.id === 'list-me'));
    const one = await h.inject({ method: 'GET', url: '/ari/channels/list-me' });
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), channel.snapshot());
    assert.equal((await h.inject({ method: 'GET', url: '/ari/channels/none' })).statusCode, 404);
  });

  describe('hangup', () => {
    test('reason maps to its cause; reason_code is taken as given', async () => {
      const a = h.createChannel();
      assert.equal((await h.inject({ method: 'DELETE', url: `/ari/channels/${a.id}?reason=busy` })).statusCode, 204);
      assert.deepEqual((a.tech as FakeTechnology).calls, ['hangup:17']);
      assert.equal((await h.inject({ method: 'GET', url: `/ari/channels/${a.id}` })).statusCode, 404);

      const b = h.createChannel();
      await h.inject({ method: 'DELETE', url: `/ari/channels/${b.id}?reason_code=21` });
      assert.deepEqual((b.tech as FakeTechnology).calls, ['hangup:21']);

      const c = h.createChannel();
      await h.inject({ method: 'DELETE', url: `/ari/channels/${c.id}` });
      assert.deepEqual((c.tech as FakeTechnology).calls, ['hangup:16']);
    });

    test('bad or conflicting reasons are 400; an unknown channel is 404', async () => {
      const channel = h.createChannel();
      for (const query of ['reason=busy&reason_code=17', 'reason=tired', 'reason_code=abc', 'reason_code=300']) {
        const res = await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}?${query}` });
        assert.equal(res.statusCode, 400, query);
      }
      assert.equal((await h.inject({ method: 'DELETE', url: '/ari/channels/none?reason=busy' })).statusCode, 404);
    });
  });

  describe('answer', () => {
    test('404 unknown, 409 outside an application, 204 inside', async () => {
      assert.equal((await h.inject({ method: 'POST', url: '/ari/channels/none/answer' })).statusCode, 404);
      const channel = h.createChannel();
      const outside = await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/answer` });
      assert.equal(outside.statusCode, 409);
      assert.deepEqual(outside.json(), { message: 'Channel not in an application' });
      h.enterApplication(channel, 'answer-app');
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/answer` })).statusCode, 204);
      assert.equal(channel.state, 'Up');
      assert.ok((channel.tech as FakeTechnology).calls.includes('answer'));
    });

    test('an outbound channel that has not answered is 412', async () => {
      const channel = h.createChannel({ direction: 'outbound', state: 'Ringing' });
      h.enterApplication(channel, 'answer-app');
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/answer` })).statusCode, 412);
    });
  });

  describe('play', () => {
    test('201 with Location and the Playback; media reaches the engine', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'play-app');
      const res = await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play?media=sound:hello-world&lang=fr&skipms=500` });
      assert.equal(res.statusCode, 201);
      const playback = res.json();
      assert.equal(res.headers.location, `/ari/playbacks/${playback.id}`);
      assert.equal(playback.media_uri, 'sound:hello-world');
      assert.equal(playback.target_uri, `channel:${channel.id}`);
      assert.equal(playback.language, 'fr');
      assert.ok(['enqueued', 'playing'].includes(playback.state));
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(h.media.played.some((p) => p.file.endsWith('fr/hello-world.wav')));
      // Playing does not answer: the unanswered inbound channel got early media.
      assert.ok((channel.tech as FakeTechnology).calls.includes('progress'));
      assert.notEqual(channel.state, 'Up');
    });

    test('playWithId takes the id from the path; a taken id is 409', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'play-app');
      const res = await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play/my-playback?media=sound:hello-world` });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().id, 'my-playback');
      assert.equal(res.headers.location, '/ari/playbacks/my-playback');
      const again = await h.inject({
        method: 'POST',
        url: `/ari/channels/${channel.id}/play?media=sound:hello-world&playbackId=my-playback`,
      });
      assert.equal(again.statusCode, 409);
    });

    test('404, 409, 412 and parameter errors', async () => {
      assert.equal((await h.inject({ method: 'POST', url: '/ari/channels/none/play?media=sound:x' })).statusCode, 404);
      const outside = h.createChannel();
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${outside.id}/play?media=sound:x` })).statusCode, 409);
      const outbound = h.createChannel({ direction: 'outbound', state: 'Dialing' });
      h.enterApplication(outbound, 'play-app');
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${outbound.id}/play?media=sound:x` })).statusCode, 412);

      const channel = h.createChannel();
      h.enterApplication(channel, 'play-app');
      const missing = await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play` });
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(missing.json(), { message: 'MissingParams: media' });
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play?media=sound:x&offsetms=-1` })).statusCode, 400);
      assert.equal((await h.inject({ method: 'POST', url: `/ari/channels/${channel.id}/play?media=sound:x&skipms=soon` })).statusCode, 400);
    });
  });
});
