/**
 * The stream gateway with real sockets: a UDP socket stands in for the engine's RTP leg, and the
 * test's own WebSocket and AudioSocket servers stand in for the voice bot.
 */
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { parseRtpPacket, writeRtpHeader } from '../rtp/rtp-header.js';
import { AUDIOSOCKET_KIND, AudioSocketReader, encodeAudioSocket } from './audiosocket-framing.js';
import { MediaStreamGateway } from './stream-gateway.js';
import type { StreamNotification } from './stream-types.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The engine leg's side: receives RTP (with arrival times) and sends RTP to the stream. */
class FakeLeg {
  readonly received: { at: number; payloadType: number; payload: Buffer }[] = [];
  port = 0;
  #sequence = 0;
  private constructor(readonly socket: UdpSocket) {
    socket.on('message', (datagram) => {
      const parsed = parseRtpPacket(datagram);
      if (!parsed.ok) return;
      const { payloadOffset, payloadLength, payloadType } = parsed.packet;
      this.received.push({ at: performance.now(), payloadType, payload: datagram.subarray(payloadOffset, payloadOffset + payloadLength) });
    });
  }
  static async open(): Promise<FakeLeg> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    // A test that fails before its close() must not keep the file's process alive.
    socket.unref();
    const leg = new FakeLeg(socket);
    leg.port = socket.address().port;
    return leg;
  }
  send(to: number, payloadType: number, payload: Buffer): void {
    const packet = Buffer.alloc(12 + payload.length);
    writeRtpHeader(packet, { payloadType, marker: false, sequenceNumber: this.#sequence++, timestamp: this.#sequence * 160, ssrc: 7 });
    payload.copy(packet, 12);
    this.socket.send(packet, to, '127.0.0.1');
  }
  close(): void {
    this.socket.close();
  }
}

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('MediaStreamGateway', () => {
  const gateway = new MediaStreamGateway();
  const notifications: StreamNotification[] = [];
  let wss: WebSocketServer;
  let wsUrl: string;
  const accepted: { ws: WebSocket; texts: string[]; binaries: Buffer[]; protocol: string }[] = [];

  before(async () => {
    gateway.onNotification((n) => notifications.push(n));
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (p.has('media') ? 'media' : false) });
    await once(wss, 'listening');
    wsUrl = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/bot`;
    wss.on('connection', (ws) => {
      const peer = { ws, texts: [] as string[], binaries: [] as Buffer[], protocol: ws.protocol };
      ws.on('message', (data, isBinary) => (isBinary ? peer.binaries.push(data as Buffer) : peer.texts.push(String(data))));
      accepted.push(peer);
    });
  });
  after(async () => {
    await gateway.shutdown();
    for (const client of wss.clients) client.terminate();
    wss.close();
  });

  it('websocket client, ulaw: MEDIA_START first, RTP payloads out as binary frames, app audio back paced at 20 ms', async () => {
    const leg = await FakeLeg.open();
    const opened = await gateway.open({
      streamId: 'ws-ulaw',
      channelName: 'WebSocket/ws-ulaw-00000001',
      channelId: 'chan-ws-ulaw-00000001',
      format: 'ulaw',
      connection: { kind: 'websocket-client', url: wsUrl },
      leg: { address: '127.0.0.1', port: leg.port },
    });
    assert.deepEqual(opened.codec, { name: 'PCMU', payloadType: 0, clockRate: 8000 });
    const peer = accepted.at(-1);
    assert.ok(peer);
    assert.equal(peer.protocol, 'media');
    await until('MEDIA_START', () => peer.texts.length > 0);
    assert.equal(
      peer.texts[0],
      'MEDIA_START connection_id:ws-ulaw channel:WebSocket/ws-ulaw-00000001 channel_id:chan-ws-ulaw-00000001 format:ulaw optimal_frame_size:160 ptime:20',
    );

    leg.send(opened.rtpPort, 0, Buffer.alloc(160, 0x42));
    await until('the frame at the application', () => peer.binaries.length === 1);
    assert.deepEqual(peer.binaries[0], Buffer.alloc(160, 0x42));

    // Ten frames at once (and an odd chunking): played out one per 20 ms, then silence.
    const since = performance.now();
    peer.ws.send(Buffer.alloc(1000, 0x11));
    peer.ws.send(Buffer.alloc(600, 0x11));
    await until('ten frames of audio', () => leg.received.filter((p) => p.at >= since && p.payload[0] === 0x11).length === 10);
    const audio = leg.received.filter((p) => p.at >= since && p.payload[0] === 0x11);
    const span = (audio.at(-1)?.at ?? 0) - (audio[0]?.at ?? 0);
    assert.ok(span >= 150 && span <= 260, `ten frames span about 180 ms (${span.toFixed(0)})`);
    await until('silence after the audio', () => leg.received.some((p) => p.at > (audio.at(-1)?.at ?? 0) && p.payload[0] === 0xff));

    peer.ws.send('GET_STATUS');
    await until('STATUS', () => peer.texts.some((t) => t.startsWith('STATUS ')));
    assert.match(peer.texts.find((t) => t.startsWith('STATUS ')) ?? '', /queue_length:0 xon_level:800 xoff_level:900 queue_full:false/);

    peer.ws.send('HANGUP');
    await until('streamHangup', () => notifications.some((n) => n.type === 'streamHangup' && n.streamId === 'ws-ulaw'));
    gateway.close('ws-ulaw');
    await until('the socket closed', () => peer.ws.readyState === peer.ws.CLOSED);
    leg.close();
  });

  it('websocket client, slin16: L16 big-endian on RTP, little-endian on the WebSocket; XOFF when the app floods', async () => {
    const leg = await FakeLeg.open();
    const opened = await gateway.open({
      streamId: 'ws-slin16',
      channelName: 'WebSocket/ws-slin16-00000002',
      channelId: 'chan-ws-slin16-00000002',
      format: 'slin16',
      connection: { kind: 'websocket-client', url: wsUrl },
      leg: { address: '127.0.0.1', port: leg.port },
    });
    assert.deepEqual(opened.codec, { name: 'L16', payloadType: 118, clockRate: 16000 });
    const peer = accepted.at(-1);
    assert.ok(peer);
    const bigEndian = Buffer.alloc(640);
    for (let i = 0; i < 320; i += 1) bigEndian.writeInt16BE(i * 10, i * 2);
    leg.send(opened.rtpPort, 118, bigEndian);
    await until('the frame', () => peer.binaries.length === 1);
    assert.equal(peer.binaries[0]?.readInt16LE(2 * 100), 1000);

    peer.ws.send(Buffer.alloc(640 * 950, 1));
    await until('MEDIA_XOFF', () => peer.texts.includes('MEDIA_XOFF'));
    peer.ws.send('FLUSH_MEDIA');
    await until('MEDIA_XON after the flush', () => peer.texts.includes('MEDIA_XON'));
    const rtp = leg.received.at(-1);
    assert.equal(rtp?.payloadType, 118);
    assert.equal(rtp?.payload.length, 640);
    gateway.close('ws-slin16');
    leg.close();
  });

  it('websocket client, JSON control messages: events as objects with channel_id, commands read from objects, media direction', async () => {
    const leg = await FakeLeg.open();
    const opened = await gateway.open({
      streamId: 'ws-json',
      channelName: 'WebSocket/ws-json-00000003',
      channelId: 'chan-json',
      format: 'ulaw',
      controlFormat: 'json',
      channelVariables: { MEDIA_WEBSOCKET_CONNECTION_ID: 'ws-json', CUSTOMER: '42' },
      connection: { kind: 'websocket-client', url: wsUrl },
      leg: { address: '127.0.0.1', port: leg.port },
    });
    const peer = accepted.at(-1);
    assert.ok(peer);
    await until('MEDIA_START', () => peer.texts.length > 0);
    assert.deepEqual(JSON.parse(peer.texts[0] as string), {
      event: 'MEDIA_START',
      connection_id: 'ws-json',
      channel: 'WebSocket/ws-json-00000003',
      channel_id: 'chan-json',
      format: 'ulaw',
      optimal_frame_size: 160,
      ptime: 20,
      channel_variables: { MEDIA_WEBSOCKET_CONNECTION_ID: 'ws-json', CUSTOMER: '42' },
    });
    const events = () => peer.texts.map((t) => JSON.parse(t) as Record<string, unknown>);

    peer.ws.send(JSON.stringify({ command: 'GET_STATUS' }));
    await until('STATUS', () => events().some((e) => e.event === 'STATUS'));
    assert.deepEqual(
      events().find((e) => e.event === 'STATUS'),
      {
        event: 'STATUS',
        channel_id: 'chan-json',
        queue_length: 0,
        xon_level: 800,
        xoff_level: 900,
        queue_full: false,
        bulk_media: false,
        media_paused: false,
      },
    );

    // Buffered odd-sized media, then the mark behind it: both reported with their correlation ids.
    peer.ws.send(JSON.stringify({ command: 'START_MEDIA_BUFFERING' }));
    peer.ws.send(Buffer.alloc(250, 0x22));
    peer.ws.send(JSON.stringify({ command: 'STOP_MEDIA_BUFFERING', correlation_id: 'prompt-1' }));
    peer.ws.send(JSON.stringify({ command: 'MARK_MEDIA', correlation_id: 'mark-1' }));
    await until('MEDIA_MARK_PROCESSED', () => events().some((e) => e.event === 'MEDIA_MARK_PROCESSED'));
    assert.deepEqual(
      events().find((e) => e.event === 'MEDIA_BUFFERING_COMPLETED'),
      { event: 'MEDIA_BUFFERING_COMPLETED', channel_id: 'chan-json', correlation_id: 'prompt-1' },
    );
    assert.deepEqual(
      events().find((e) => e.event === 'MEDIA_MARK_PROCESSED'),
      { event: 'MEDIA_MARK_PROCESSED', channel_id: 'chan-json', correlation_id: 'mark-1' },
    );
    // The mark is reported as its turn comes in the playout; the frame before it may reach the leg a tick later.
    const buffered = () => leg.received.filter((p) => p.payload[0] === 0x22).length;
    await until('both buffered frames played', () => buffered() >= 2);
    assert.equal(buffered(), 2, '250 bytes make two frames, the last padded');
    // A plain-text line is not a command on a JSON stream.
    peer.ws.send('GET_STATUS');

    // Direction out (from the application only): the call's audio no longer reaches it.
    peer.ws.send(JSON.stringify({ command: 'SET_MEDIA_DIRECTION', direction: 'out' }));
    peer.ws.send(JSON.stringify({ command: 'GET_STATUS' }));
    await until('the second STATUS', () => events().filter((e) => e.event === 'STATUS').length === 2);
    const before = peer.binaries.length;
    leg.send(opened.rtpPort, 0, Buffer.alloc(160, 0x42));
    await sleep(100);
    assert.equal(peer.binaries.length, before, 'no audio towards the application');

    // Direction in (to the application only): its audio is dropped, the call's audio flows again.
    peer.ws.send(JSON.stringify({ command: 'SET_MEDIA_DIRECTION', direction: 'in' }));
    peer.ws.send(JSON.stringify({ command: 'GET_STATUS' }));
    await until('the third STATUS', () => events().filter((e) => e.event === 'STATUS').length === 3);
    const since = performance.now();
    peer.ws.send(Buffer.alloc(320, 0x33));
    leg.send(opened.rtpPort, 0, Buffer.alloc(160, 0x44));
    await until('audio to the application again', () => peer.binaries.some((b) => b[0] === 0x44));
    await sleep(100);
    assert.equal(leg.received.filter((p) => p.at >= since && p.payload[0] === 0x33).length, 0, 'the application is not heard');

    peer.ws.send(JSON.stringify({ command: 'HANGUP' }));
    await until('streamHangup', () => notifications.some((n) => n.type === 'streamHangup' && n.streamId === 'ws-json'));
    gateway.close('ws-json');
    leg.close();
  });

  it('websocket client: an unreachable URL fails the open', async () => {
    const leg = await FakeLeg.open();
    await assert.rejects(
      gateway.open({
        streamId: 'ws-none',
        channelName: 'WebSocket/none',
        channelId: 'chan-none',
        format: 'ulaw',
        connection: { kind: 'websocket-client', url: 'ws://127.0.0.1:1/nothing' },
        leg: { address: '127.0.0.1', port: leg.port },
      }),
      /cannot connect/,
    );
    leg.close();
  });

  it('audiosocket: UUID first, slin16 frames both ways, TCP back-pressure, and the application hangs up', async () => {
    const leg = await FakeLeg.open();
    const received: { kind: number; payload: Buffer }[] = [];
    let client: Socket | undefined;
    const server: Server = createServer((socket) => {
      client = socket;
      const reader = new AudioSocketReader();
      socket.on('data', (chunk) => received.push(...reader.push(chunk)));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const opened = await gateway.open({
      streamId: 'as-1',
      channelName: 'AudioSocket/127.0.0.1-1',
      channelId: 'chan-127.0.0.1-1',
      format: 'slin16',
      connection: { kind: 'audiosocket', host: '127.0.0.1', port, uuid: '0123456789abcdef0123456789abcdef' },
      leg: { address: '127.0.0.1', port: leg.port },
    });
    await until('the UUID', () => received.length >= 1);
    assert.equal(received[0]?.kind, AUDIOSOCKET_KIND.uuid);
    assert.equal(received[0]?.payload.toString('hex'), '0123456789abcdef0123456789abcdef');

    const bigEndian = Buffer.alloc(640);
    bigEndian.writeInt16BE(-2, 0);
    leg.send(opened.rtpPort, 118, bigEndian);
    await until('an audio message', () => received.some((m) => m.kind === AUDIOSOCKET_KIND.slin16));
    assert.equal(received.find((m) => m.kind === AUDIOSOCKET_KIND.slin16)?.payload.readInt16LE(0), -2);

    const littleEndian = Buffer.alloc(640);
    littleEndian.writeInt16LE(1234, 0);
    const since = performance.now();
    client?.write(encodeAudioSocket(AUDIOSOCKET_KIND.slin16, littleEndian));
    await until('the audio on RTP', () => leg.received.some((p) => p.at >= since && p.payload.readInt16BE(0) === 1234));

    // Flood it: once the queue is high the gateway stops reading, and TCP pushes back on the writer.
    const flood = encodeAudioSocket(
      AUDIOSOCKET_KIND.slin16,
      Buffer.concat(Array.from({ length: 100 }, () => Buffer.alloc(640, 3))).subarray(0, 64000),
    );
    let written = 0;
    let pushedBack = false;
    while (written < 300 && !pushedBack) {
      written += 1;
      if (client?.write(flood)) continue;
      const drained = await Promise.race([once(client as Socket, 'drain').then(() => true), sleep(500).then(() => false)]);
      pushedBack = !drained;
    }
    assert.ok(pushedBack, `the writer was pushed back (after ${written} writes of 100 frames)`);

    let ended = false;
    client?.on('end', () => {
      ended = true;
    });
    client?.write(encodeAudioSocket(AUDIOSOCKET_KIND.hangup));
    gateway.close('as-1');
    await until('the connection ended by the gateway', () => ended);
    assert.ok(
      received.some((m) => m.kind === AUDIOSOCKET_KIND.hangup),
      'the gateway said hang-up before closing',
    );
    client?.destroy();
    server.close();
    leg.close();
  });

  it('audiosocket: the application hanging up is reported', async () => {
    const leg = await FakeLeg.open();
    const server: Server = createServer((socket) => {
      socket.on('data', () => undefined);
      socket.write(encodeAudioSocket(AUDIOSOCKET_KIND.hangup));
      socket.end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    await gateway.open({
      streamId: 'as-2',
      channelName: 'AudioSocket/127.0.0.1-2',
      channelId: 'chan-127.0.0.1-2',
      format: 'slin',
      connection: { kind: 'audiosocket', host: '127.0.0.1', port, uuid: '0123456789abcdef0123456789abcdef' },
      leg: { address: '127.0.0.1', port: leg.port },
    });
    await until('streamHangup', () => notifications.some((n) => n.type === 'streamHangup' && n.streamId === 'as-2'));
    gateway.close('as-2');
    server.close();
    leg.close();
  });
});
