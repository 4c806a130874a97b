/**
 * The server end of the control socket (`<data>/switchboard.ctl`, the original's asterisk.ctl):
 * a Unix-domain socket that only the server's own user may open (mode 0600, and created under a
 * 0077 umask so it is never reachable in between). Remote consoles send command lines and get
 * the text back; attached consoles also receive the log as it is written.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '@switchboard/core';
import { type ClientMessage, lineReader, parseClientMessage, type ServerMessage } from './control-protocol.js';
import type { ConsoleCommandRunner } from './registry.js';

/** An attached console that cannot keep up loses log lines beyond this, never the server's memory. */
const MAX_QUEUED_LOG_BYTES = 1024 * 1024;

export class ControlSocketServer {
  readonly path: string;
  readonly #commands: ConsoleCommandRunner;
  readonly #log: Logger;
  readonly #attached = new Set<Socket>();
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  constructor(options: { path: string; commands: ConsoleCommandRunner; logger: Logger }) {
    this.path = options.path;
    this.#commands = options.commands;
    this.#log = options.logger;
  }

  async listen(): Promise<void> {
    await this.#removeStaleSocket();
    const server = createServer((socket) => this.#accept(socket));
    const previousMask = process.umask(0o077);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.path, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(previousMask);
    }
    chmodSync(this.path, 0o600);
    server.on('error', (err) => this.#log.error({ err }, 'control socket failed'));
    this.#server = server;
    this.#log.info({ path: this.path }, 'control socket listening');
  }

  /** Sends a log line to every attached console. */
  broadcastLog(text: string): void {
    if (this.#attached.size === 0) return;
    const line = `${JSON.stringify({ type: 'log', text } satisfies ServerMessage)}\n`;
    for (const socket of this.#attached) {
      if (socket.writableLength > MAX_QUEUED_LOG_BYTES) continue;
      socket.write(line);
    }
  }

  async close(reason = 'Server shutting down'): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.end(`${JSON.stringify({ type: 'bye', text: reason } satisfies ServerMessage)}\n`);
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        for (const socket of this.#sockets) socket.destroy();
      }, 500);
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone (node removes it on close on most platforms).
    }
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => {
      this.#sockets.delete(socket);
      this.#attached.delete(socket);
    });
    socket.on('error', () => socket.destroy());
    const send = (message: ServerMessage) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
    };
    socket.on(
      'data',
      lineReader(
        (line) => {
          const message = parseClientMessage(line);
          if (message === undefined) {
            socket.destroy();
            return;
          }
          void this.#handle(message, send, socket);
        },
        () => socket.destroy(),
      ),
    );
  }

  async #handle(message: ClientMessage, send: (m: ServerMessage) => void, socket: Socket): Promise<void> {
    switch (message.type) {
      case 'attach':
        this.#attached.add(socket);
        return;
      case 'complete':
        send({ id: message.id, type: 'completions', list: this.#commands.complete(message.line) });
        return;
      case 'command':
        this.#log.debug({ command: message.line }, 'console command');
        send({ id: message.id, type: 'output', text: await this.#commands.run(message.line) });
        return;
    }
  }

  /** A socket file left by a server that died is removed; one that answers belongs to a live server. */
  async #removeStaleSocket(): Promise<void> {
    if (!existsSync(this.path)) return;
    const alive = await new Promise<boolean>((resolve) => {
      const probe = connect(this.path);
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (alive) throw new Error(`another server is already running on ${this.path}`);
    unlinkSync(this.path);
  }
}
