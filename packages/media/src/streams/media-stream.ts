/**
 * One external media stream, in the stream worker: RTP to and from the engine's leg on a loopback
 * UDP socket, and the application's connection on the other side.
 *
 *   engine leg ──RTP──► [strip header, L16 → little-endian] ──► application (one frame per packet)
 *   engine leg ◄──RTP── [one frame every 20 ms from the PlayoutQueue] ◄── application (any chunking)
 *
 * Pacing: frames towards the call are due at start + n × 20 ms (drift cannot accumulate); after a
 * stall only a few overdue frames are sent. Back-pressure: the application is told MEDIA_XOFF /
 * MEDIA_XON (WebSocket) or is no longer read (AudioSocket, TCP flow control) while the queue is
 * high; audio towards a reader that does not keep up is dropped rather than buffered without end.
 * Direction (the application's view, SET_MEDIA_DIRECTION or `d()`): `in` drops what the
 * application sends and ignores the commands about it; `out` sends the application no audio.
 */
import { randomInt } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { parseRtpPacket, RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { parseTelephoneEvent } from '../rtp/telephone-event.js';
import { uuidBytes } from './audiosocket-framing.js';
import { PlayoutQueue, QUEUE_MAX_FRAMES, type QueueEvent, XOFF_LEVEL, XON_LEVEL } from './playout-queue.js';
import { STREAM_FORMATS, STREAM_FRAME_MS, type StreamFormatInfo, swap16 } from './stream-formats.js';
import { connectAudioSocket, connectWebSocket, RelayedWebSocket, type StreamTransport, type TransportEvents } from './stream-transports.js';
import type { ControlFormat, MediaDirection, OpenedStream, OpenStreamRequest, StreamFrame, StreamNotification } from './stream-types.js';
import { formatMediaEvent, type MediaEvent, parseMediaCommand } from './websocket-media-control.js';

/** Audio waiting for a slow application beyond this many frames is dropped. */
const MAX_BACKLOG_FRAMES = 50;
/** Overdue frames sent at once after a stall; older ones are skipped. */
const MAX_CATCH_UP_FRAMES = 3;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** The RFC 4733 payload type our leg sends DTMF to the stream with (a dynamic one, as the reference's 101). */
const TELEPHONE_EVENT_PAYLOAD_TYPE = 101;
/** RFC 4733 §3.2 event codes 0–15. */
const DTMF_DIGITS = '0123456789*#ABCD';

export class MediaStream {
  readonly id: string;
  readonly #request: OpenStreamRequest;
  readonly #format: StreamFormatInfo;
  readonly #notify: (notification: StreamNotification) => void;
  readonly #queue: PlayoutQueue;
  readonly #control: ControlFormat;
  #direction: MediaDirection;
  #rtp: Socket | undefined;
  #transport: StreamTransport | undefined;
  #relay: RelayedWebSocket | undefined;
  #closed = false;
  #startMs = 0;
  #framesSent = 0;
  #sequence = randomInt(0, 0x10000);
  #timestamp = randomInt(0, 0x100000000);
  readonly #ssrc = randomInt(0, 0x100000000);
  /** The RTP timestamp of the last DTMF event reported (its end packet is sent three times, RFC 4733 §2.5.1.4). */
  #lastDtmfTimestamp: number | undefined;
  /** Frames dropped because the application did not read them in time. */
  droppedTowardsApplication = 0;

  constructor(request: OpenStreamRequest, notify: (notification: StreamNotification) => void) {
    this.id = request.streamId;
    this.#request = request;
    this.#format = STREAM_FORMATS[request.format];
    this.#notify = notify;
    this.#control = request.controlFormat ?? 'plain-text';
    this.#direction = request.direction ?? 'both';
    this.#queue = new PlayoutQueue(this.#format.frameBytes, this.#format.silence, (event) => this.#queueEvent(event));
  }

  async open(): Promise<OpenedStream> {
    const rtp = createSocket('udp4');
    this.#rtp = rtp;
    rtp.on('message', (datagram) => this.#fromLeg(datagram));
    rtp.on('error', (err) => this.#end(`RTP socket error: ${err.message}`, false));
    await new Promise<void>((resolve) => rtp.bind(0, '127.0.0.1', resolve));
    try {
      this.#transport = await this.#connect();
    } catch (err) {
      this.close(false);
      throw err;
    }
    if (this.#request.connection.kind !== 'websocket-server') this.#begin();
    return {
      rtpAddress: '127.0.0.1',
      rtpPort: rtp.address().port,
      codec: this.#format.codec,
      ...(this.#transport?.carriesText ? { telephoneEventPayloadType: TELEPHONE_EVENT_PAYLOAD_TYPE } : {}),
    };
  }

  /** A frame from the accepted socket of a `websocket-server` stream; the first one starts the stream. */
  input(frame: StreamFrame): void {
    if (!this.#relay || this.#closed) return;
    if (this.#startMs === 0) this.#begin();
    this.#relay.input(frame);
  }

  /** The API server accepted the application's socket for this stream. */
  attached(): void {
    if (this.#relay && this.#startMs === 0 && !this.#closed) this.#begin();
  }

  /** Sends the frames due by `nowMs` towards the call. */
  tick(nowMs: number): void {
    if (this.#startMs === 0 || this.#closed || !this.#request.leg) return;
    const due = Math.floor((nowMs - this.#startMs) / STREAM_FRAME_MS) + 1 - this.#framesSent;
    if (due <= 0) return;
    if (due > MAX_CATCH_UP_FRAMES) {
      const skipped = due - MAX_CATCH_UP_FRAMES;
      this.#framesSent += skipped;
      this.#timestamp = (this.#timestamp + skipped * this.#samplesPerFrame()) >>> 0;
    }
    for (let i = 0; i < Math.min(due, MAX_CATCH_UP_FRAMES); i += 1) this.#sendToLeg(this.#queue.next());
  }

  /** Ends the stream from our side (the channel hung up). */
  close(hangup = true): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#transport?.close(hangup);
    this.#rtp?.close();
  }

  #connect(): Promise<StreamTransport> {
    const events: TransportEvents = {
      audio: (data) => {
        if (this.#direction !== 'in') this.#queue.push(data);
      },
      text: (text) => this.#command(text),
      hangup: () => this.#notify({ type: 'streamHangup', streamId: this.id }),
      dtmf: (digit) => this.#notify({ type: 'streamDtmf', streamId: this.id, digit }),
      closed: (reason) => this.#end(reason, false),
    };
    const connection = this.#request.connection;
    const timeoutMs = this.#request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    switch (connection.kind) {
      case 'websocket-client':
        return connectWebSocket(connection.url, connection.headers ?? {}, timeoutMs, events);
      case 'websocket-server':
        this.#relay = new RelayedWebSocket((frame) => this.#notify({ type: 'streamOutput', streamId: this.id, frame }), events);
        return Promise.resolve(this.#relay);
      case 'audiosocket': {
        const uuid = uuidBytes(connection.uuid);
        const audioKind = this.#format.audioSocketKind;
        if (!uuid || audioKind === undefined) return Promise.reject(new Error('AudioSocket needs a UUID and a linear format'));
        return connectAudioSocket({ host: connection.host, port: connection.port, uuid, audioKind }, timeoutMs, events);
      }
    }
  }

  /** The connection is up: say MEDIA_START (WebSocket) and start the clock. */
  #begin(): void {
    const transport = this.#transport;
    if (!transport) return;
    if (transport.carriesText) {
      const request = this.#request;
      this.#sendEvent({
        event: 'MEDIA_START',
        start: {
          connectionId: this.id,
          channel: request.channelName,
          channelId: request.channelId,
          format: request.format,
          frameBytes: this.#format.frameBytes,
          ptimeMs: STREAM_FRAME_MS,
          channelVariables: request.channelVariables ?? {},
        },
      });
    }
    this.#startMs = performance.now();
  }

  #fromLeg(datagram: Buffer): void {
    const transport = this.#transport;
    if (!transport || this.#closed || this.#startMs === 0) return;
    const parsed = parseRtpPacket(datagram);
    // DTMF is a control event: reported whatever the media direction.
    if (parsed.ok && parsed.packet.payloadType === TELEPHONE_EVENT_PAYLOAD_TYPE && transport.carriesText) {
      const { payloadOffset, payloadLength, timestamp } = parsed.packet;
      this.#dtmfFromLeg(datagram.subarray(payloadOffset, payloadOffset + payloadLength), timestamp);
      return;
    }
    if (this.#direction === 'out') return;
    if (!parsed.ok || parsed.packet.payloadType !== this.#format.codec.payloadType) return;
    const { payloadOffset, payloadLength } = parsed.packet;
    const payload = datagram.subarray(payloadOffset, payloadOffset + payloadLength);
    if (transport.backlogBytes() > MAX_BACKLOG_FRAMES * this.#format.frameBytes) {
      this.droppedTowardsApplication += 1;
      return;
    }
    transport.sendAudio(this.#format.swapBytes ? swap16(payload) : Buffer.from(payload));
  }

  /** An RFC 4733 event from the leg: its end (once per event) is DTMF_END to the application. */
  #dtmfFromLeg(payload: Buffer, timestamp: number): void {
    const event = parseTelephoneEvent(payload);
    if (!event?.end || event.event >= DTMF_DIGITS.length || timestamp === this.#lastDtmfTimestamp) return;
    this.#lastDtmfTimestamp = timestamp;
    this.#sendEvent({ event: 'DTMF_END', digit: DTMF_DIGITS[event.event] as string });
  }

  #sendToLeg(frame: Buffer): void {
    const rtp = this.#rtp;
    if (!rtp) return;
    const payload = this.#format.swapBytes ? swap16(frame) : frame;
    const packet = Buffer.allocUnsafe(RTP_HEADER_SIZE + payload.length);
    writeRtpHeader(packet, {
      payloadType: this.#format.codec.payloadType,
      marker: this.#framesSent === 0,
      sequenceNumber: this.#sequence,
      timestamp: this.#timestamp,
      ssrc: this.#ssrc,
    });
    packet.set(payload, RTP_HEADER_SIZE);
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.#timestamp = (this.#timestamp + this.#samplesPerFrame()) >>> 0;
    this.#framesSent += 1;
    rtp.send(packet, this.#request.leg.port, this.#request.leg.address);
  }

  #samplesPerFrame(): number {
    return (this.#format.codec.clockRate * STREAM_FRAME_MS) / 1000;
  }

  #sendEvent(event: MediaEvent): void {
    this.#transport?.sendText(formatMediaEvent(event, this.#control, this.#request.channelId));
  }

  #command(text: string): void {
    const command = parseMediaCommand(text, this.#control);
    if (!command || !this.#transport) return;
    switch (command.command) {
      case 'ANSWER':
        return; // the channel is answered when it is created
      case 'HANGUP':
        this.#notify({ type: 'streamHangup', streamId: this.id });
        return;
      case 'FLUSH_MEDIA':
        this.#queue.flush();
        return;
      case 'REPORT_QUEUE_DRAINED':
        this.#queue.reportWhenDrained();
        return;
      case 'SET_MEDIA_DIRECTION':
        this.#direction = command.direction;
        return;
      case 'GET_STATUS':
        this.#sendEvent({
          event: 'STATUS',
          status: {
            queueLength: this.#queue.length,
            xonLevel: XON_LEVEL,
            xoffLevel: XOFF_LEVEL,
            queueFull: this.#queue.length >= QUEUE_MAX_FRAMES,
            bulkMedia: this.#queue.buffering,
            mediaPaused: this.#queue.paused,
          },
        });
        return;
    }
    // The rest are about what the application sends: nothing to act on while it sends nothing (direction in).
    if (this.#direction === 'in') return;
    switch (command.command) {
      case 'START_MEDIA_BUFFERING':
        this.#queue.startBuffering();
        return;
      case 'STOP_MEDIA_BUFFERING':
        this.#queue.stopBuffering(command.correlationId);
        return;
      case 'MARK_MEDIA':
        this.#queue.mark(command.correlationId);
        return;
      case 'PAUSE_MEDIA':
        this.#queue.pause();
        return;
      case 'CONTINUE_MEDIA':
        this.#queue.resume();
        return;
    }
  }

  #queueEvent(event: QueueEvent): void {
    const transport = this.#transport;
    if (!transport) return;
    if (!transport.carriesText) {
      // AudioSocket has no flow-control message: stop reading and let TCP push back.
      if (event.type === 'xoff') transport.pauseInput();
      if (event.type === 'xon') transport.resumeInput();
      return;
    }
    switch (event.type) {
      case 'xoff':
        this.#sendEvent({ event: 'MEDIA_XOFF' });
        return;
      case 'xon':
        this.#sendEvent({ event: 'MEDIA_XON' });
        return;
      case 'drained':
        this.#sendEvent({ event: 'QUEUE_DRAINED' });
        return;
      case 'bufferingCompleted':
        this.#sendEvent({ event: 'MEDIA_BUFFERING_COMPLETED', ...optionalCorrelation(event.correlationId) });
        return;
      case 'markProcessed':
        this.#sendEvent({ event: 'MEDIA_MARK_PROCESSED', ...optionalCorrelation(event.correlationId) });
        return;
    }
  }

  #end(reason: string, hangup: boolean): void {
    if (this.#closed) return;
    this.close(hangup);
    this.#notify({ type: 'streamClosed', streamId: this.id, reason });
  }
}

function optionalCorrelation(correlationId: string | undefined): { correlationId?: string } {
  return correlationId === undefined ? {} : { correlationId };
}
