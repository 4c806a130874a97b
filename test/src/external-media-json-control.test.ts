/**
 * The JSON control messages of WebSocket media against the real server: chan_websocket.conf sets
 * `control_message_format = json` for every call, `transport_data=f(plain-text)` takes one call
 * back to the legacy lines, `v()` adds URI parameters and `d()` the media direction. The test's
 * voice bot is a WebSocket server that records what arrives.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { basicAuth, freePort, type RunningSwitchboard, startSwitchboard } from './harness.js';

type AriEvent = Record<string, unknown> & { type: string; channel?: { id: string } };

interface Bot {
  ws: WebSocket;
  url: string;
  texts: string[];
  binaries: number;
  closed: boolean;
}

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WebSocket media: JSON control messages', () => {
  let sb: RunningSwitchboard;
  let server: WebSocketServer;
  let botUrl = '';
  const bots: Bot[] = [];
  const events: AriEvent[] = [];
  let eventsSocket: WebSocket;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sb.baseUrl}/ari${path}`, {
      method,
      headers: { authorization: basicAuth(), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  before(async () => {
    const port = await freePort('tcp');
    server = new WebSocketServer({ host: '127.0.0.1', port, handleProtocols: (p) => (p.has('media') ? 'media' : false) });
    await once(server, 'listening');
    botUrl = `ws://127.0.0.1:${port}/bot`;
    server.on('connection', (ws, request) => {
      const bot: Bot = { ws, url: request.url ?? '', texts: [], binaries: 0, closed: false };
      ws.on('message', (data, isBinary) => {
        if (isBinary) bot.binaries += 1;
        else bot.texts.push(String(data));
      });
      ws.on('close', () => {
        bot.closed = true;
      });
      bots.push(bot);
    });
    sb = await startSwitchboard({ extraFiles: { 'chan_websocket.conf': '[global]\ncontrol_message_format = json\n' } });
    eventsSocket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=bots`, { headers: { authorization: basicAuth() } });
    eventsSocket.on('message', (data) => events.push(JSON.parse(String(data)) as AriEvent));
    await once(eventsSocket, 'open');
  });

  after(async () => {
    eventsSocket?.close();
    await sb?.stop();
    for (const client of server.clients) client.terminate();
    server.close();
  });

  const externalMedia = (query: string, body?: unknown) =>
    api(
      'POST',
      `/channels/externalMedia?app=bots&transport=websocket&encapsulation=none&format=ulaw&external_host=${encodeURIComponent(botUrl)}${query}`,
      body,
    );

  it(
    'chan_websocket.conf json: MEDIA_START and STATUS as objects, commands as objects, HANGUP ends the call',
    { timeout: 20_000 },
    async () => {
      const created = await externalMedia('&transport_data=v(call=42,lang=en)', { variables: { CUSTOMER: 'acme' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const channelId = created.body.id as string;
      const bot = bots.at(-1) as Bot;
      assert.equal(bot.url, '/bot?call=42&lang=en', 'v() parameters on the URI');
      await waitFor('MEDIA_START', () => bot.texts.length > 0);
      const start = JSON.parse(bot.texts[0] as string) as Record<string, unknown>;
      assert.equal(start.event, 'MEDIA_START');
      assert.equal(start.channel_id, channelId);
      assert.equal(start.channel, created.body.name);
      assert.equal(start.format, 'ulaw');
      assert.equal(start.optimal_frame_size, 160);
      assert.equal(start.ptime, 20);
      const variables = start.channel_variables as Record<string, string>;
      assert.equal(variables.CUSTOMER, 'acme');
      assert.equal(variables.MEDIA_WEBSOCKET_CONNECTION_ID, start.connection_id);

      bot.ws.send(JSON.stringify({ command: 'MARK_MEDIA', correlation_id: 'greeting-done' }));
      bot.ws.send(JSON.stringify({ command: 'GET_STATUS' }));
      await waitFor('STATUS and MEDIA_MARK_PROCESSED', () => bot.texts.length >= 3);
      const replies = bot.texts.slice(1).map((t) => JSON.parse(t) as Record<string, unknown>);
      assert.deepEqual(
        replies.find((e) => e.event === 'MEDIA_MARK_PROCESSED'),
        { event: 'MEDIA_MARK_PROCESSED', channel_id: channelId, correlation_id: 'greeting-done' },
      );
      const status = replies.find((e) => e.event === 'STATUS');
      assert.equal(status?.channel_id, channelId);
      assert.equal(status?.xoff_level, 900);
      // The call's audio (a tone played on the channel) reaches the bot as binary frames.
      assert.equal((await api('POST', `/channels/${channelId}/play?media=tone:ring`)).status, 201);
      await waitFor('audio towards the bot', () => bot.binaries > 0);

      // A digit sent to the channel reaches the bot as DTMF_END.
      assert.equal((await api('POST', `/channels/${channelId}/dtmf?dtmf=5`)).status, 204);
      await waitFor('DTMF_END', () => bot.texts.some((t) => t.includes('DTMF_END')));
      const dtmf = bot.texts.filter((t) => t.includes('DTMF_END')).map((t) => JSON.parse(t) as Record<string, unknown>);
      assert.deepEqual(dtmf, [{ event: 'DTMF_END', channel_id: channelId, digit: '5' }]);

      bot.ws.send(JSON.stringify({ command: 'HANGUP' }));
      await waitFor('the channel destroyed', () => events.some((e) => e.type === 'ChannelDestroyed' && e.channel?.id === channelId));
      await waitFor('the bot connection closed', () => bot.closed);
    },
  );

  it(
    'transport_data f(plain-text) takes one call back to the legacy lines; d(out) sends the bot no audio',
    { timeout: 20_000 },
    async () => {
      const created = await externalMedia('&transport_data=f(plain-text)d(out)');
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const channelId = created.body.id as string;
      const bot = bots.at(-1) as Bot;
      await waitFor('MEDIA_START', () => bot.texts.length > 0);
      assert.match(
        bot.texts[0] ?? '',
        new RegExp(`^MEDIA_START connection_id:[0-9a-f]{16} channel:\\S+ channel_id:${channelId} format:ulaw`),
      );
      bot.ws.send('GET_STATUS');
      await waitFor('STATUS', () => bot.texts.some((t) => t.startsWith('STATUS ')));
      assert.equal((await api('POST', `/channels/${channelId}/play?media=tone:ring`)).status, 201);
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(bot.binaries, 0, 'direction out: nothing is sent to the bot');
      assert.equal((await api('POST', `/channels/${channelId}/dtmf?dtmf=7`)).status, 204);
      await waitFor('DTMF_END', () => bot.texts.includes('DTMF_END digit:7'));
      // Both ways again: the tone now arrives.
      bot.ws.send('SET_MEDIA_DIRECTION both');
      await waitFor('audio towards the bot', () => bot.binaries > 0);
      assert.equal((await api('DELETE', `/channels/${channelId}`)).status, 204);
      await waitFor('the bot connection closed', () => bot.closed);
    },
  );

  it('refuses unusable transport_data and directions with 400, before connecting', async () => {
    const before = bots.length;
    for (const query of ['&transport_data=f(xml)', '&transport_data=n', '&transport_data=v(novalue)', '&direction=sideways']) {
      const refused = await externalMedia(query);
      assert.equal(refused.status, 400, query);
      assert.equal(typeof refused.body.message, 'string');
    }
    const audioSocket = await api(
      'POST',
      '/channels/externalMedia?app=bots&encapsulation=audiosocket&transport=tcp&format=slin&external_host=127.0.0.1:9&direction=in',
    );
    assert.equal(audioSocket.status, 400);
    assert.equal(bots.length, before, 'no connection was attempted');
  });

  it('module reload chan_websocket applies a new control_message_format to the next call', { timeout: 20_000 }, async () => {
    writeFileSync(join(sb.confDir, 'chan_websocket.conf'), '[global]\ncontrol_message_format = plain-text\n');
    assert.equal((await api('PUT', '/system/modules/chan_websocket')).status, 204);
    const created = await externalMedia('');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const bot = bots.at(-1) as Bot;
    await waitFor('MEDIA_START', () => bot.texts.length > 0);
    assert.match(bot.texts[0] ?? '', /^MEDIA_START connection_id:/);
    writeFileSync(join(sb.confDir, 'chan_websocket.conf'), '[global]\ncontrol_message_format = morse\n');
    assert.equal((await api('PUT', '/system/modules/chan_websocket')).status, 409, 'an unusable file changes nothing');
    assert.equal((await api('DELETE', `/channels/${created.body.id as string}`)).status, 204);
    await waitFor('the bot connection closed', () => bot.closed);
  });
});
