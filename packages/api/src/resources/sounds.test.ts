import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../testing/harness.js';

describe('sounds resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('lists sounds with their language/format pairs', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/sounds' });
    assert.equal(res.statusCode, 200);
    const ids = res.json().map((s: { id: string }) => s.id);
    assert.deepEqual(ids, ['digits/1', 'hello-world']);
  });

  test('filters by lang and format', async () => {
    const fr = await h.inject({ method: 'GET', url: '/ari/sounds?lang=fr' });
    assert.deepEqual(
      fr.json().map((s: { id: string }) => s.id),
      ['hello-world'],
    );
    const none = await h.inject({ method: 'GET', url: '/ari/sounds?lang=fr&format=ulaw' });
    assert.equal(none.statusCode, 404);
  });

  test('gets one sound by id, including ids with a slash', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/sounds/hello-world' });
    assert.equal(res.statusCode, 200);
    const formats = res.json().formats as { language: string; format: string }[];
    assert.deepEqual(formats.map((f) => `${f.language}/${f.format}`).sort(), ['en/ulaw', 'en/wav', 'fr/wav']);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/sounds/digits%2F1' })).statusCode, 200);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/sounds/missing' })).statusCode, 404);
  });
});
