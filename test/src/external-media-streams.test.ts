/**
 * externalMedia for voice bots end to end: a sipp caller (its audio from an RtpPeer sending a 1 kHz
 * tone) reaches the application, which bridges it with an externalMedia channel whose audio goes
 * to the test's own voice bot — a WebSocket server (connection_type client), a WebSocket client
 * connecting to /media/<id> (connection_type server), or an AudioSocket TCP server. The bot checks
 * the caller's tone with a Goertzel filter and answers with a 600 Hz tone that the caller's RTP
 * must carry.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AUDIOSOCKET_KIND, AudioSocketReader, encodeAudioSocket, ulawToLinear } from '@switchboard/media';
import WebSocket, { WebSocketServer } from 'ws';
import { toneAmplitude } from './g722-peer.js';
import { basicAuth, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { linearToUlaw, RtpPeer } from './rtp-peer.js';

type AriEvent = Record<string, unknown> & { type: string; channel?: { id: string; name: string } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A linear 16-bit tone, little-endian, `ms` long at `rate`. */
function toneBytes(frequency: number, rate: number, ms: number): Buffer {
  const samples = (rate * ms) / 1000;
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1) out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / rate)), i * 2);
  return out;
}

const littleEndianSamples = (bytes: Buffer) => new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));

describe('externalMedia over WebSocket and AudioSocket', () => {
  let sb: RunningSwitchboard;
  let events: AriEvent[];
  let eventsSocket: WebSocket;

  const api = async (method: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  before(async () => {
    sb = await startSwitchboard();
    events = [];
    eventsSocket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=demo`, { headers: { authorization: basicAuth() } });
    eventsSocket.on('message', (data) => events.push(JSON.parse(String(data)) as AriEvent));
    await once(eventsSocket, 'open');
  });

  after(async () => {
    eventsSocket?.close();
    await sb?.stop();
  });

  /**
   * One call: the caller enters `demo`, gets answered and bridged with the externalMedia channel
   * that `connect` creates; `bot` is what the voice bot heard so far (16 kHz linear samples) and
   * `speak` makes it send audio.
   */
  async function callThroughBot(
    label: string,
    connect: () => Promise<{
      channelId: string;
      heard: () => Int16Array;
      speak: (bytes: Buffer) => void;
      rate: number;
      ended: () => boolean;
    }>,
  ): Promise<void> {
    const phone = await RtpPeer.open();
    const seen = events.length;
    const call = runSipp(
      'uac-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 40 },
    );
    try {
      await waitFor(`${label}: the caller in the application`, () => events.slice(seen).some((e) => e.type === 'AppStart'));
      const caller = events.slice(seen).find((e) => e.type === 'AppStart')?.channel?.id as string;
      assert.equal((await api('POST', `/channels/${caller}/answer`)).status, 204);
      const bot = await connect();
      await waitFor(`${label}: the media channel in the application`, () =>
        events.slice(seen).some((e) => e.type === 'AppStart' && e.channel?.id === bot.channelId),
      );
      const bridge = await api('POST', '/bridges?type=mixing');
      const bridgeId = bridge.body.id as string;
      assert.equal((await api('POST', `/bridges/${bridgeId}/addChannel?channel=${caller},${bot.channelId}`)).status, 204);
      await waitFor(`${label}: RTP from the server`, () => phone.remote !== undefined);

      // Caller → bot: a 1 kHz tone for 1.5 s.
      const heardBefore = bot.heard().length;
      await phone.sendTone(1000, 1500);
      await waitFor(`${label}: the bot hears a second of audio`, () => bot.heard().length - heardBefore >= bot.rate);
      const heard = bot.heard().subarray(heardBefore + bot.rate / 5);
      const at1k = toneAmplitude(heard.subarray(0, bot.rate / 2), 1000, bot.rate);
      const at600 = toneAmplitude(heard.subarray(0, bot.rate / 2), 600, bot.rate);
      assert.ok(at1k > 1500, `${label}: the bot hears the caller's 1 kHz tone (${at1k.toFixed(0)})`);
      assert.ok(at600 < at1k / 5, `${label}: and not 600 Hz (${at600.toFixed(0)})`);

      // Bot → caller: 1.5 s of 600 Hz sent at once; the gateway paces it out at 20 ms.
      const since = performance.now();
      bot.speak(toneBytes(600, bot.rate, 1500));
      await waitFor(`${label}: a second of audio at the caller`, () => phone.packets.filter((p) => p.at >= since).length >= 60);
      await sleep(300);
      const received = phone.packets.filter((p) => p.at >= since && p.payloadType === 0);
      const samples = Int16Array.from(Buffer.concat(received.map((p) => p.payload)), (code) => ulawToLinear(code));
      const window = samples.subarray(1600, 1600 + 4000);
      const at600Caller = toneAmplitude(window, 600, 8000);
      const at1kCaller = toneAmplitude(window, 1000, 8000);
      assert.ok(at600Caller > 1500, `${label}: the caller hears the bot's 600 Hz (${at600Caller.toFixed(0)})`);
      assert.ok(at1kCaller < at600Caller / 5, `${label}: and not its own tone (${at1kCaller.toFixed(0)})`);
      const arrivals = received.map((p) => p.at);
      const span = (arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0);
      assert.ok(span >= 1000, `${label}: the bot's audio is played out over time, not in a burst (${span.toFixed(0)} ms)`);

      assert.equal((await api('DELETE', `/channels/${bot.channelId}`)).status, 204);
      await waitFor(`${label}: the bot's connection closed`, () => bot.ended());
      await api('DELETE', `/channels/${caller}`);
      await api('DELETE', `/bridges/${bridgeId}`);
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-1500));
    } finally {
      phone.close();
      await Promise.allSettled([call]);
    }
  }

  it('transport=websocket, connection_type=client, slin16: the bot is the WebSocket server', { timeout: 60_000 }, async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (p.has('media') ? 'media' : false) });
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    let heard = Buffer.alloc(0);
    let texts: string[] = [];
    let socket: WebSocket | undefined;
    let closed = false;
    server.on('connection', (ws) => {
      socket = ws;
      ws.on('message', (data, isBinary) => {
        if (isBinary) heard = Buffer.concat([heard, data as Buffer]);
        else texts.push(String(data));
      });
      ws.on('close', () => {
        closed = true;
      });
    });
    try {
      await callThroughBot('websocket client', async () => {
        const created = await api(
          'POST',
          `/channels/externalMedia?app=demo&transport=websocket&encapsulation=none&format=slin16&external_host=${encodeURIComponent(`ws://127.0.0.1:${port}/bot`)}`,
        );
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const channel = created.body as { id: string; name: string };
        assert.match(channel.name, /^WebSocket\/[0-9a-f]{16}-[0-9a-f]{8}$/);
        await waitFor('MEDIA_START', () => texts.length > 0);
        assert.equal(
          texts[0],
          `MEDIA_START connection_id:${channel.name.slice(10, 26)} channel:${channel.name} channel_id:${channel.id} format:slin16 optimal_frame_size:640 ptime:20`,
        );
        texts = [];
        return {
          channelId: channel.id,
          rate: 16000,
          heard: () => littleEndianSamples(heard),
          speak: (bytes) => socket?.send(bytes),
          ended: () => closed,
        };
      });
    } finally {
      for (const client of server.clients) client.terminate();
      server.close();
    }
  });

  it('transport=websocket, connection_type=server, ulaw: the bot connects to /media/<connection id>', { timeout: 60_000 }, async () => {
    let heard: number[] = [];
    let socket: WebSocket | undefined;
    let closed = false;
    await callThroughBot('websocket server', async () => {
      const created = await api(
        'POST',
        '/channels/externalMedia?app=demo&transport=websocket&encapsulation=none&connection_type=server&format=ulaw',
      );
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const channelId = (created.body as { id: string }).id;
      const variable = await api('GET', `/channels/${channelId}/variable?variable=MEDIA_WEBSOCKET_CONNECTION_ID`);
      const connectionId = variable.body.value as string;
      assert.match(connectionId, /^[0-9a-f]{16}$/);
      const refused = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/media/${connectionId}`, ['media']);
      const [, refusal] = (await once(refused, 'unexpected-response')) as unknown as [unknown, { statusCode: number }];
      assert.equal(refusal.statusCode, 401, 'the media socket needs the API credentials');
      const reader = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/media/${connectionId}`, ['media'], {
        headers: { authorization: basicAuth('reader', 'reader-pass') },
      });
      const [, readOnly] = (await once(reader, 'unexpected-response')) as unknown as [unknown, { statusCode: number }];
      assert.equal(readOnly.statusCode, 403, 'a read-only user may not have the call audio');
      const texts: string[] = [];
      socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/media/${connectionId}`, ['media'], { headers: { authorization: basicAuth() } });
      socket.on('message', (data, isBinary) => {
        if (isBinary) heard = heard.concat([...(data as Buffer)]);
        else texts.push(String(data));
      });
      socket.on('close', () => {
        closed = true;
      });
      await once(socket, 'open');
      await waitFor('MEDIA_START', () => texts.length > 0);
      assert.match(
        texts[0] ?? '',
        new RegExp(`^MEDIA_START connection_id:${connectionId} .*channel_id:${channelId} format:ulaw optimal_frame_size:160 ptime:20$`),
      );
      return {
        channelId,
        rate: 8000,
        heard: () => Int16Array.from(heard, (code) => ulawToLinear(code)),
        speak: (bytes) => {
          // The bot speaks µ-law: encode the linear tone first.
          const samples = littleEndianSamples(bytes);
          socket?.send(Buffer.from(Array.from(samples, (s) => linearToUlaw(s))));
        },
        ended: () => closed,
      };
    });
  });

  it('encapsulation=audiosocket, transport=tcp, slin16: the bot is an AudioSocket server', { timeout: 60_000 }, async () => {
    let heard = Buffer.alloc(0);
    let uuid = '';
    let connection: Socket | undefined;
    let closed = false;
    let hangupReceived = false;
    const server = createServer((socket) => {
      connection = socket;
      const reader = new AudioSocketReader();
      socket.on('data', (chunk) => {
        for (const message of reader.push(chunk)) {
          if (message.kind === AUDIOSOCKET_KIND.uuid) uuid = message.payload.toString('hex');
          else if (message.kind === AUDIOSOCKET_KIND.slin16) heard = Buffer.concat([heard, message.payload]);
          else if (message.kind === AUDIOSOCKET_KIND.hangup) hangupReceived = true;
        }
      });
      socket.on('close', () => {
        closed = true;
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const streamUuid = '6f1c2a5e-3b9d-4c8e-a1f0-0123456789ab';
    try {
      await callThroughBot('audiosocket', async () => {
        const created = await api(
          'POST',
          `/channels/externalMedia?app=demo&encapsulation=audiosocket&transport=tcp&format=slin16&external_host=127.0.0.1:${port}&data=${streamUuid}`,
        );
        assert.equal(created.status, 200, JSON.stringify(created.body));
        await waitFor('the UUID', () => uuid !== '');
        assert.equal(uuid, streamUuid.replace(/-/g, ''));
        // A digit from the bot is the channel's DTMF.
        const channelId = (created.body as { id: string }).id;
        connection?.write(encodeAudioSocket(AUDIOSOCKET_KIND.dtmf, Buffer.from('7')));
        await waitFor('ChannelDtmfReceived', () =>
          events.some((e) => e.type === 'ChannelDtmfReceived' && e.channel?.id === channelId && e.digit === '7'),
        );
        return {
          channelId: (created.body as { id: string }).id,
          rate: 16000,
          heard: () => littleEndianSamples(heard),
          speak: (bytes) => {
            for (let offset = 0; offset < bytes.length; offset += 640) {
              connection?.write(encodeAudioSocket(AUDIOSOCKET_KIND.slin16, bytes.subarray(offset, offset + 640)));
            }
          },
          ended: () => closed && hangupReceived,
        };
      });
    } finally {
      connection?.destroy();
      server.close();
    }
  });

  it('refuses what the transports cannot carry, before connecting anywhere', async () => {
    const ulawOverAudioSocket = await api(
      'POST',
      '/channels/externalMedia?app=demo&encapsulation=audiosocket&transport=tcp&format=ulaw&external_host=127.0.0.1:9',
    );
    assert.equal(ulawOverAudioSocket.status, 400);
    const badUrl = await api(
      'POST',
      '/channels/externalMedia?app=demo&transport=websocket&encapsulation=none&format=ulaw&external_host=127.0.0.1:9',
    );
    assert.equal(badUrl.status, 400);
    const unreachable = await api(
      'POST',
      `/channels/externalMedia?app=demo&transport=websocket&encapsulation=none&format=ulaw&external_host=${encodeURIComponent('ws://127.0.0.1:9/none')}`,
    );
    assert.equal(unreachable.status, 503);
    assert.equal(typeof unreachable.body.message, 'string');
  });
});
