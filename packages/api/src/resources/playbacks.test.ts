import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../testing/harness.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('playbacks resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  async function play(channelId: string, id: string) {
    const res = await h.inject({ method: 'POST', url: `/ari/channels/${channelId}/play/${id}?media=sound:hello-world` });
    assert.equal(res.statusCode, 201);
  }

  test('get, control and stop a playback; a queued one refuses control with 409', async () => {
    const channel = h.createChannel();
    h.enterApplication(channel, 'pb-app');
    await play(channel.id, 'first');
    await play(channel.id, 'second');
    await tick();

    const first = await h.inject({ method: 'GET', url: '/ari/playbacks/first' });
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().state, 'playing');
    const second = await h.inject({ method: 'GET', url: '/ari/playbacks/second' });
    assert.equal(second.json().state, 'enqueued');

    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/second/control?operation=pause' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/first/control?operation=pause' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/first/control?operation=unpause' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/first/control?operation=rewind' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/first/control' })).statusCode, 400);

    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/playbacks/first' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/playbacks/first' })).statusCode, 404);
  });

  test('unknown playbacks are 404 for every operation', async () => {
    assert.equal((await h.inject({ method: 'GET', url: '/ari/playbacks/none' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/playbacks/none' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/playbacks/none/control?operation=pause' })).statusCode, 404);
  });
});
