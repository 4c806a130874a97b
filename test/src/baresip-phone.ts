/**
 * A headless baresip (Debian `baresip-core`) as a phone in end-to-end tests: no audio device, a
 * tone WAV as its microphone (`aufile`), what it decodes written to WAV files (`sndfile`), commands
 * on stdin (`stdio` + `menu`), and a hard time bound (`-t`) so it never outlives the test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { toneWav, wavSamples } from './audio-analysis.js';
import { freePort } from './harness.js';

export interface BaresipOptions {
  /** An empty directory of its own (config, tone, dumps). */
  dir: string;
  /** The accounts file line: `<sip:alice@127.0.0.1:5061;transport=tls>;auth_pass=…`. */
  account: string;
  /** The frequency of the tone it sends. */
  toneHz: number;
  /** Modules beyond the base set (`srtp.so`). */
  modules?: readonly string[];
  /** Seconds before baresip exits by itself. */
  lifetimeSeconds?: number;
}

export class BaresipPhone {
  output = '';
  /** The first and last RTP port baresip may use. */
  readonly rtpPorts: [number, number];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #exited: Promise<number | null>;
  readonly #dumps: string;

  private constructor(child: ChildProcessWithoutNullStreams, rtpPorts: [number, number], dumps: string) {
    this.#child = child;
    this.rtpPorts = rtpPorts;
    this.#dumps = dumps;
    child.stdout.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
    });
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: BaresipOptions): Promise<BaresipPhone> {
    const { dir } = options;
    const sipListen = await baresipListenPort();
    const rtpBase = 2 * Math.floor((await freePort('udp')) / 2);
    const rtpPorts: [number, number] = [rtpBase, rtpBase + 20];
    const dumps = join(dir, 'dumps');
    const tone = join(dir, 'tone.wav');
    writeFileSync(tone, toneWav(options.toneHz, 20));
    mkdirSync(dumps);
    const modules = ['stdio.so', 'g711.so', 'aufile.so', 'sndfile.so', ...(options.modules ?? [])];
    writeFileSync(
      join(dir, 'config'),
      [
        'poll_method epoll',
        // Without this baresip picks the first external interface and cannot send from it to loopback.
        'net_interface 127.0.0.1',
        `sip_listen 127.0.0.1:${sipListen}`,
        'call_local_timeout 120',
        'audio_path /usr/share/baresip',
        `audio_source aufile,${tone}`,
        'audio_alert none,none',
        'ausrc_srate 8000',
        'ausrc_channels 1',
        `rtp_ports ${rtpPorts[0]}-${rtpPorts[1]}`,
        'module_path /usr/lib/baresip/modules',
        ...modules.map((m) => `module ${m}`),
        'module_app account.so',
        'module_app menu.so',
        `snd_path ${dumps}`,
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'accounts'), `${options.account}\n`);
    writeFileSync(join(dir, 'contacts'), '');
    const child = spawn('baresip', ['-4', '-s', '-f', dir, '-t', String(options.lifetimeSeconds ?? 40)], { cwd: dir });
    return new BaresipPhone(child, rtpPorts, dumps);
  }

  command(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  /** What baresip decoded from the call (its one `*-dec.wav` dump). */
  decoded(): { rate: number; samples: Int16Array } {
    const files = readdirSync(this.#dumps).filter((name) => name.endsWith('-dec.wav'));
    if (files.length !== 1)
      throw new Error(`one decoder dump expected, found: ${readdirSync(this.#dumps).join(', ')}\n${this.output.slice(-3000)}`);
    return wavSamples(join(this.#dumps, files[0]));
  }

  /** Asks baresip to quit, and kills it when it does not within a few seconds. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.command('/quit');
    const quit = await Promise.race([this.#exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 3000))]);
    if (quit) return;
    this.#child.kill('SIGTERM');
    const killTimer = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
    await this.#exited;
    clearTimeout(killTimer);
  }
}

/** Whether a TCP listener can bind 127.0.0.1:`port` now. */
function tcpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A `sip_listen` port for baresip: it binds UDP and TCP on the port and TLS (TCP) on the next one,
 * and gives up when any of them is taken.
 */
export async function baresipListenPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await freePort('udp');
    if (port < 65535 && (await tcpPortFree(port)) && (await tcpPortFree(port + 1))) return port;
  }
  throw new Error('no port with UDP, TCP and the next TCP port free for baresip');
}
