/**
 * A raw manager-protocol client over TCP for the end-to-end tests: it writes actions as text and
 * reads replies and events as ordered header lists, so tests see exactly what went on the wire.
 */
import { createHash } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';

export type AmiFields = [string, string][];

export class AmiMessage {
  readonly fields: AmiFields;
  constructor(fields: AmiFields) {
    this.fields = fields;
  }
  get(name: string): string | undefined {
    const wanted = name.toLowerCase();
    return this.fields.find(([n]) => n.toLowerCase() === wanted)?.[1];
  }
  getAll(name: string): string[] {
    const wanted = name.toLowerCase();
    return this.fields.filter(([n]) => n.toLowerCase() === wanted).map(([, v]) => v);
  }
}

export class RawAmi {
  readonly socket: Socket;
  banner = '';
  readonly received: AmiMessage[] = [];
  closed = false;
  #buffer = '';
  #waiters: (() => void)[] = [];
  #nextId = 1;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#onData(chunk));
    socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
    socket.on('error', () => undefined);
  }

  static async connect(port: number): Promise<RawAmi> {
    const socket = createConnection({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const client = new RawAmi(socket);
    await client.#until(() => client.banner !== '', 5000, 'the banner');
    return client;
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    if (this.banner === '') {
      const end = this.#buffer.indexOf('\r\n');
      if (end < 0) return;
      this.banner = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
    }
    let end = this.#buffer.indexOf('\r\n\r\n');
    while (end >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 4);
      const fields = block.split('\r\n').map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).trimStart()];
      });
      this.received.push(new AmiMessage(fields));
      end = this.#buffer.indexOf('\r\n\r\n');
    }
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  async #until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Writes raw text (for malformed input). */
  writeRaw(text: string): void {
    this.socket.write(text);
  }

  /** Sends an action with a fresh ActionID and resolves with its reply (list events not included). */
  async action(fields: AmiFields, timeoutMs = 15000): Promise<AmiMessage> {
    const id = `t${this.#nextId++}`;
    this.writeRaw(`${[...fields, ['ActionID', id]].map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`);
    return this.waitFor((m) => m.get('ActionID') === id && m.get('Response') !== undefined, timeoutMs, `reply to ${fields[0]?.[1]}`);
  }

  /** The first received message matching, waiting for it if needed. */
  async waitFor(match: (m: AmiMessage) => boolean, timeoutMs = 15000, what = 'a message'): Promise<AmiMessage> {
    let found: AmiMessage | undefined;
    await this.#until(
      () => {
        found = this.received.find(match);
        return found !== undefined || this.closed;
      },
      timeoutMs,
      what,
    );
    if (!found) throw new Error(`connection closed before ${what}`);
    return found;
  }

  async waitClosed(timeoutMs = 5000): Promise<void> {
    await this.#until(() => this.closed, timeoutMs, 'the connection to close');
  }

  async login(username: string, secret: string, events = 'on'): Promise<AmiMessage> {
    return this.action([
      ['Action', 'Login'],
      ['Username', username],
      ['Secret', secret],
      ['Events', events],
    ]);
  }

  async loginMd5(username: string, secret: string): Promise<AmiMessage> {
    const challenge = await this.action([
      ['Action', 'Challenge'],
      ['AuthType', 'MD5'],
    ]);
    const key = createHash('md5')
      .update(`${challenge.get('Challenge') ?? ''}${secret}`)
      .digest('hex');
    return this.action([
      ['Action', 'Login'],
      ['AuthType', 'MD5'],
      ['Username', username],
      ['Key', key],
    ]);
  }

  close(): void {
    this.socket.destroy();
  }
}
