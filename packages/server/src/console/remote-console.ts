/**
 * The client end: `switchboard -rx "<command>"` runs one command, `switchboard -r` is an
 * interactive console with the log scrolling above the prompt, tab completion from the server's
 * command registry, and a history kept in ~/.switchboard_history (the original's ~/.asterisk_history).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { type ClientMessage, lineReader, type ServerMessage } from './control-protocol.js';

const HISTORY_FILE = join(homedir(), '.switchboard_history');
const HISTORY_SIZE = 1000;

class ControlClient {
  readonly #socket: Socket;
  readonly #pending = new Map<number, (message: ServerMessage) => void>();
  #nextId = 1;
  onLog: (text: string) => void = () => {};
  onBye: (text: string) => void = () => {};

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on(
      'data',
      lineReader(
        (line) => this.#receive(line),
        () => socket.destroy(),
      ),
    );
  }

  static connect(path: string): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new ControlClient(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) resolve();
      else this.#socket.once('close', () => resolve());
    });
  }

  attach(): void {
    this.#send({ type: 'attach' });
  }

  async command(line: string): Promise<string> {
    const reply = await this.#request({ id: this.#nextId++, type: 'command', line });
    return reply.type === 'output' ? reply.text : '';
  }

  async complete(line: string): Promise<string[]> {
    const reply = await this.#request({ id: this.#nextId++, type: 'complete', line });
    return reply.type === 'completions' ? reply.list : [];
  }

  end(): void {
    this.#socket.end();
  }

  #request(message: Extract<ClientMessage, { id: number }>): Promise<ServerMessage> {
    return new Promise((resolve, reject) => {
      if (this.#socket.destroyed) {
        reject(new Error('the server closed the connection'));
        return;
      }
      this.#pending.set(message.id, resolve);
      this.#socket.once('close', () => reject(new Error('the server closed the connection')));
      this.#send(message);
    });
  }

  #send(message: ClientMessage): void {
    this.#socket.write(`${JSON.stringify(message)}\n`);
  }

  #receive(line: string): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(line) as ServerMessage;
    } catch {
      return;
    }
    if (message.type === 'log') this.onLog(message.text);
    else if (message.type === 'bye') this.onBye(message.text);
    else {
      const resolve = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      resolve?.(message);
    }
  }
}

function unreachable(path: string, err: unknown): number {
  const code = (err as NodeJS.ErrnoException).code;
  process.stderr.write(
    `Unable to connect to remote switchboard (does ${path} exist?)${code === 'EACCES' ? ": permission denied (run as the server's user)" : ''}\n`,
  );
  return 1;
}

/** `-rx`: prints the command's output; exit code 0, or 1 when the server cannot be reached. */
export async function executeRemote(socketPath: string, command: string): Promise<number> {
  let client: ControlClient;
  try {
    client = await ControlClient.connect(socketPath);
  } catch (err) {
    return unreachable(socketPath, err);
  }
  try {
    const output = await client.command(command);
    if (output !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  } finally {
    client.end();
  }
}

function loadHistory(): string[] {
  if (!existsSync(HISTORY_FILE)) return [];
  try {
    // readline wants the newest first.
    return readFileSync(HISTORY_FILE, 'utf8').split('\n').filter(Boolean).slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

function remember(line: string): void {
  try {
    appendFileSync(HISTORY_FILE, `${line}\n`, { mode: 0o600 });
  } catch {
    // A read-only home directory only costs the history.
  }
}

/** `-r`: an interactive console until `quit`, `exit`, Ctrl-D, or the server going away. */
export async function interactiveRemote(socketPath: string): Promise<number> {
  let client: ControlClient;
  try {
    client = await ControlClient.connect(socketPath);
  } catch (err) {
    return unreachable(socketPath, err);
  }
  const name = (await client.command('core show settings')).match(/System name:\s*(\S+)/)?.[1] ?? 'switchboard';
  const version = (await client.command('core show version')).trim();
  process.stdout.write(`Connected to ${version}\n`);
  const rl: Interface = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: process.stdin.isTTY === true,
    history: loadHistory(),
    historySize: HISTORY_SIZE,
    completer: (line: string, callback: (err: null, result: [string[], string]) => void) => {
      client.complete(line).then(
        (list) => callback(null, [list, line]),
        () => callback(null, [[], line]),
      );
    },
  });
  rl.setPrompt(`${name}*CLI> `);
  // Log lines scroll above the prompt; what is being typed is redrawn below them.
  client.onLog = (text) => {
    process.stdout.write(`\r\x1b[K${text.endsWith('\n') ? text : `${text}\n`}`);
    rl.prompt(true);
  };
  let ending = false;
  client.onBye = (text) => {
    ending = true;
    process.stdout.write(`\r\x1b[K${text}\n`);
    rl.close();
  };
  client.attach();
  rl.prompt();
  const serverGone = client.closed.then(() => {
    if (!ending) process.stdout.write('\nDisconnected from the server\n');
    rl.close();
  });
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === '') {
      rl.prompt();
      continue;
    }
    remember(line);
    if (line === 'quit' || line === 'exit') break;
    try {
      const output = await client.command(line);
      if (output !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    } catch {
      break;
    }
    rl.prompt();
  }
  rl.close();
  client.end();
  await Promise.race([serverGone, new Promise((resolve) => setTimeout(resolve, 200))]);
  return 0;
}
