/**
 * The application's side of a stream: a WebSocket we open, a WebSocket the application opened to
 * the API server (its frames relayed to us), or an AudioSocket TCP connection we open. Each turns
 * its wire into the same events (audio, text commands, hang-up, DTMF, closed).
 */
import { connect as connectTcp, type Socket } from 'node:net';
import WebSocket from 'ws';
import { AUDIOSOCKET_KIND, AudioSocketReader, encodeAudioSocket } from './audiosocket-framing.js';
import type { StreamFrame } from './stream-types.js';
import { WEBSOCKET_MEDIA_PROTOCOL } from './websocket-media-control.js';

export interface TransportEvents {
  audio(data: Uint8Array): void;
  text(text: string): void;
  hangup(): void;
  dtmf(digit: string): void;
  closed(reason: string): void;
}

export interface StreamTransport {
  /** Text control messages are a WebSocket feature; AudioSocket has none. */
  readonly carriesText: boolean;
  sendAudio(data: Uint8Array): void;
  sendText(text: string): void;
  /** Bytes written but not yet handed to the kernel (what a slow reader leaves behind). */
  backlogBytes(): number;
  /** Stops reading the application's audio (TCP back-pressure) until `resumeInput`. */
  pauseInput(): void;
  resumeInput(): void;
  /** Ends the connection; `hangup` tells the application first where the protocol can. */
  close(hangup: boolean): void;
}

export function connectWebSocket(
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
  events: TransportEvents,
): Promise<StreamTransport> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [WEBSOCKET_MEDIA_PROTOCOL], { headers: { ...headers }, handshakeTimeout: timeoutMs });
    let open = false;
    ws.once('open', () => {
      open = true;
      resolve({
        carriesText: true,
        sendAudio: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
        sendText: (text) => ws.readyState === ws.OPEN && ws.send(text, { binary: false }),
        backlogBytes: () => ws.bufferedAmount,
        pauseInput: () => ws.pause(),
        resumeInput: () => ws.resume(),
        close: () => ws.close(1000),
      });
    });
    ws.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) events.audio(bytes);
      else events.text(bytes.toString('utf8'));
    });
    ws.on('close', (code) => {
      if (open) events.closed(`the application closed the WebSocket (${code})`);
    });
    ws.on('error', (err) => {
      if (!open) reject(new Error(`cannot connect to ${url}: ${err.message}`));
    });
  });
}

/** A WebSocket accepted by the API server: frames cross the thread boundary as they are. */
export class RelayedWebSocket implements StreamTransport {
  readonly carriesText = true;
  readonly #send: (frame: StreamFrame) => void;
  readonly #events: TransportEvents;
  #closed = false;

  constructor(send: (frame: StreamFrame) => void, events: TransportEvents) {
    this.#send = send;
    this.#events = events;
  }

  input(frame: StreamFrame): void {
    if (this.#closed) return;
    if (frame.binary) this.#events.audio(frame.data);
    else this.#events.text(frame.text);
  }

  sendAudio(data: Uint8Array): void {
    if (!this.#closed) this.#send({ binary: true, data });
  }
  sendText(text: string): void {
    if (!this.#closed) this.#send({ binary: false, text });
  }
  backlogBytes(): number {
    return 0;
  }
  pauseInput(): void {}
  resumeInput(): void {}
  close(): void {
    this.#closed = true;
  }
}

export function connectAudioSocket(
  target: { host: string; port: number; uuid: Buffer; audioKind: number },
  timeoutMs: number,
  events: TransportEvents,
): Promise<StreamTransport> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connectTcp({ host: target.host, port: target.port });
    socket.setNoDelay(true);
    let open = false;
    let hungUp = false;
    const timer = setTimeout(() => socket.destroy(new Error('connection timed out')), timeoutMs);
    const reader = new AudioSocketReader();
    socket.once('connect', () => {
      clearTimeout(timer);
      open = true;
      socket.write(encodeAudioSocket(AUDIOSOCKET_KIND.uuid, target.uuid));
      resolve({
        carriesText: false,
        sendAudio: (data) => {
          if (!socket.destroyed && !hungUp) socket.write(encodeAudioSocket(target.audioKind, data));
        },
        sendText: () => undefined,
        backlogBytes: () => socket.writableLength,
        pauseInput: () => socket.pause(),
        resumeInput: () => socket.resume(),
        close: (hangup) => {
          if (socket.destroyed) return;
          if (hangup && !hungUp) socket.end(encodeAudioSocket(AUDIOSOCKET_KIND.hangup));
          else socket.end();
          hungUp = true;
        },
      });
    });
    socket.on('data', (chunk: Buffer) => {
      for (const message of reader.push(chunk)) {
        if (message.kind === target.audioKind) events.audio(message.payload);
        else if (message.kind === AUDIOSOCKET_KIND.hangup) {
          hungUp = true;
          events.hangup();
        } else if (message.kind === AUDIOSOCKET_KIND.dtmf && message.payload.length === 1) events.dtmf(message.payload.toString('ascii'));
        else if (message.kind === AUDIOSOCKET_KIND.error)
          events.closed(`the application reported error ${message.payload.toString('hex') || '(no code)'}`);
        // Audio of another rate, or a kind we do not know: ignored, as the protocol expects.
      }
    });
    socket.on('close', () => {
      if (open) events.closed('the application closed the AudioSocket connection');
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      if (!open) reject(new Error(`cannot connect to ${target.host}:${target.port}: ${err.message}`));
    });
  });
}
