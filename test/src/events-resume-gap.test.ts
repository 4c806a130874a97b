/**
 * Resume against the real server when the journal no longer holds everything: ari.conf keeps 5
 * events per application. The application drops its events connection, 12 events happen, and
 * it comes back with ?resume=<last seen>: the first message says which events are gone
 * (EventsLost), the 5 kept ones follow in order, then the live stream goes on without a hole.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, type RunningSwitchboard, startSwitchboard } from './harness.js';

type Received = Record<string, unknown> & { type: string; sequence?: number; value?: string };

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('resume beyond the kept events', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    const ariConf = [
      '[general]',
      'enabled = yes',
      'resume_max_events = 5',
      `[${API_USER}]`,
      'type = user',
      `password = ${API_PASSWORD}`,
      '',
    ].join('\n');
    sb = await startSwitchboard({ extraFiles: { 'ari.conf': ariConf } });
  });
  after(async () => {
    await sb?.stop();
  });

  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  async function connect(query: string): Promise<{ ws: WebSocket; received: Received[] }> {
    const received: Received[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=gap${query}`, { headers: { authorization: basicAuth() } });
    ws.on('message', (data) => received.push(JSON.parse(String(data)) as Received));
    await once(ws, 'open');
    return { ws, received };
  }

  it('says what was lost first, then replays what was kept, then goes on live', { timeout: 20_000 }, async () => {
    const first = await connect('');
    const created = await api('POST', '/channels/externalMedia?app=gap&external_host=127.0.0.1:9&format=ulaw');
    assert.equal(created.status, 200);
    const channelId = ((await created.json()) as { id: string }).id;
    await waitFor('AppStart', () => first.received.some((e) => e.type === 'AppStart'));
    const lastSeen = Math.max(...first.received.map((e) => e.sequence ?? 0));
    first.ws.close();
    await once(first.ws, 'close');

    for (let i = 0; i < 12; i += 1) {
      assert.equal((await api('POST', `/channels/${channelId}/variable?variable=AWAY&value=${i}`)).status, 204);
    }
    const second = await connect(`&resume=${lastSeen}`);
    await waitFor('the kept events', () => second.received.filter((e) => e.type === 'ChannelVarset').length === 5);
    const [notice, ...replayed] = second.received;
    assert.equal(notice?.type, 'EventsLost', 'the gap is said first, never silently');
    assert.equal(notice?.first_lost_sequence, lastSeen + 1);
    assert.equal(notice?.last_lost_sequence, lastSeen + 7);
    assert.deepEqual(
      replayed.map((e) => [e.sequence, e.value]),
      [8, 9, 10, 11, 12].map((n) => [lastSeen + n, String(n - 1)]),
      'the five kept events, in order',
    );

    assert.equal((await api('POST', `/channels/${channelId}/variable?variable=LIVE&value=yes`)).status, 204);
    await waitFor('the live event', () => second.received.some((e) => e.type === 'ChannelVarset' && e.value === 'yes'));
    assert.equal(second.received.at(-1)?.sequence, lastSeen + 13, 'the live stream continues without a hole');
    assert.equal((await api('DELETE', `/channels/${channelId}`)).status, 204);
    second.ws.close();
  });
});
