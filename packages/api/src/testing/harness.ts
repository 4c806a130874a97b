/**
 * Test support for the api package: a real SwitchboardCore over a fake media engine and fake
 * channel technology, a server around it, and an `inject` that fails any response whose status is
 * not declared in the errorResponses of the operation it reached (STYLE: "a response whose status
 * is not declared for its operation fails the test").
 */
import assert from 'node:assert/strict';
import { RecordingMediaEngine } from '@switchboard/core/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  AriUser,
  Channel,
  ChannelTechnology,
  ClusterConfig,
  CreateLegRequest,
  MediaLegInfo,
  OutboundWebsocketConfig,
  PlayFileRequest,
  StoreConfig,
  SwitchboardConfig,
} from '@switchboard/core';
import { openConfiguredStore, SwitchboardCore, silentLogger } from '@switchboard/core';
import type { InjectOptions, LightMyRequestResponse as InjectResponse } from 'fastify';
import { dialectOf, SPEC_DIALECT } from '../dialect/dialect.js';
import type { Operation } from '../http/operation.js';
import { type ApiServer, createApiServer } from '../http/server.js';
import { RESOURCES } from '../resources/index.js';
import { declaredErrorResponses } from '../swagger/generator.js';

export const USERS: AriUser[] = [
  { name: 'alice', password: 'secret', passwordFormat: 'plain', readOnly: false, dialect: 'switchboard' },
  { name: 'viewer', password: 'look:only', passwordFormat: 'plain', readOnly: true, dialect: 'switchboard' },
  { name: 'classic', password: 'stasis', passwordFormat: 'plain', readOnly: false, dialect: 'asterisk' },
];

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const ALICE = basic('alice', 'secret');

export const ENTITY_ID = '02:00:5e:00:53:01';

/** Sound files the index will find (content is irrelevant to the index). */
const SOUND_FILES = ['en/hello-world.wav', 'en/hello-world.ulaw', 'fr/hello-world.wav', 'en/digits/1.wav'];

export function testConfig(
  dir: string,
  overrides: {
    prefix?: string;
    users?: AriUser[];
    writeTimeoutMs?: number;
    resumeWindowSeconds?: number;
    resumeMaxEvents?: number;
    outboundWebsockets?: OutboundWebsocketConfig[];
    /** A node of a cluster: its name, the cluster, and the PostgreSQL store the nodes share. */
    node?: { systemName: string; cluster: ClusterConfig; store: StoreConfig };
  } = {},
): SwitchboardConfig {
  return {
    confDir: dir,
    general: {
      entityId: ENTITY_ID,
      systemName: overrides.node?.systemName ?? 'test-switchboard',
      store: overrides.node?.store ?? { backend: 'sqlite' },
      ...(overrides.node ? { cluster: overrides.node.cluster } : {}),
      defaultLanguage: 'en',
      soundDirs: [join(dir, 'sounds')],
      recordingDir: join(dir, 'recordings'),
      mediaWorkers: 1,
      highPriority: false,
    },
    http: { enabled: true, bindAddress: '127.0.0.1', bindPort: 0, prefix: overrides.prefix ?? '' },
    ari: {
      enabled: true,
      channelVars: [],
      allowedOrigins: ['http://allowed.example'],
      users: overrides.users ?? USERS,
      websocketWriteTimeoutMs: overrides.writeTimeoutMs ?? 100,
      dialect: 'switchboard',
      resumeWindowSeconds: overrides.resumeWindowSeconds ?? 60,
      resumeMaxEvents: overrides.resumeMaxEvents ?? 10_000,
      outboundWebsockets: overrides.outboundWebsockets ?? [],
    },
    sip: { transports: [], endpoints: [], identifies: [], aors: [], auths: [] },
    rtp: { rtpStart: 10000, rtpEnd: 20000, nativeSockets: true },
    dialplan: { contexts: [], globals: {} },
  };
}

/** Records what core asks of the media engine; tests end file playback with `finish`. */
export class FakeMediaEngine extends RecordingMediaEngine {
  readonly played: (PlayFileRequest & { legId: string })[] = [];
  #legs = 0;

  override async createLeg(_request: CreateLegRequest): Promise<MediaLegInfo> {
    this.#legs += 1;
    return { legId: `leg-${this.#legs}`, localAddress: '127.0.0.1', localPort: 10000 + 2 * this.#legs };
  }
  override async playFile(legId: string, request: PlayFileRequest): Promise<void> {
    this.played.push({ ...request, legId });
    await super.playFile(legId, request);
  }
  finish(legId: string, playbackId: string, reason: 'complete' | 'failed' = 'complete'): void {
    this.emit({ type: 'playbackFinished', legId, playbackId, reason });
  }
}

export class FakeTechnology implements ChannelTechnology {
  readonly protocolId = 'call-id@test';
  readonly mediaLegId: string | undefined = 'leg-test';
  readonly calls: string[] = [];
  async answer(): Promise<void> {
    this.calls.push('answer');
  }
  async indicateRinging(): Promise<void> {
    this.calls.push('ringing');
  }
  async indicateProgress(): Promise<void> {
    this.calls.push('progress');
  }
  async hangup(cause: number): Promise<void> {
    this.calls.push(`hangup:${cause}`);
  }
}

export interface Harness {
  readonly core: SwitchboardCore;
  readonly server: ApiServer;
  readonly media: FakeMediaEngine;
  /** `<prefix>/ari` */
  readonly root: string;
  /** Injects with alice's credentials unless `headers.authorization` is given (null: none). */
  inject(options: InjectOptions & { auth?: string | null }): Promise<InjectResponse>;
  /** A channel as a SIP driver would create it. */
  createChannel(init?: { id?: string; direction?: 'inbound' | 'outbound'; state?: Channel['state'] }): Channel;
  /** Puts a channel into a registered application (registering a silent one when needed). */
  enterApplication(channel: Channel, application: string, args?: string[]): void;
  close(): Promise<void>;
}

export async function startHarness(options: Parameters<typeof testConfig>[1] = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-api-'));
  for (const file of SOUND_FILES) {
    const path = join(dir, 'sounds', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
  }
  const media = new FakeMediaEngine();
  // A real store and log directory, so the administrative resources behave as in the server.
  const config = testConfig(dir, options);
  const store = await openConfiguredStore(config.general.store, join(dir, 'data'), silentLogger);
  const core = new SwitchboardCore({ config, media, store, logDirectory: join(dir, 'log') });
  const server = createApiServer(core);
  await server.app.ready();
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const root = prefix === '' ? '/ari' : `/${prefix}/ari`;
  let channelCount = 0;
  return {
    core,
    server,
    media,
    root,
    async inject({ auth, ...injectOptions }) {
      const headers = { ...(injectOptions.headers ?? {}) };
      if (auth !== null) headers.authorization = auth ?? ALICE;
      const response = await server.app.inject({ ...injectOptions, headers });
      const user = (options.users ?? USERS).find((u) => headers.authorization === basic(u.name, u.password));
      const dialect = dialectOf(user?.dialect ?? 'switchboard');
      assertDeclaredStatus(root, String(injectOptions.method ?? 'GET'), String(injectOptions.url), response, dialect);
      return response;
    },
    createChannel(init = {}) {
      channelCount += 1;
      return core.channels.create({
        id: init.id,
        name: `SIP/alice-${String(channelCount).padStart(8, '0')}`,
        technology: 'SIP',
        endpoint: 'alice',
        direction: init.direction ?? 'inbound',
        state: init.state ?? 'Ring',
        caller: { name: 'Alice', number: '100' },
        language: 'en',
        dialplan: { context: 'default', exten: '200', priority: 1 },
        tech: new FakeTechnology(),
        snapshotVariables: [],
      });
    },
    enterApplication(channel, application, args = []) {
      if (!core.applications.get(application)) core.applications.register(application, () => undefined);
      void core.applications.enter(channel, application, args);
    },
    async close() {
      await server.close();
      core.logChannels?.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Answers every request can get, whatever the operation, because they are given before any
 * operation runs: credentials (401, 403 for read-only users), the URL (undecodable) and the body
 * (413, unparsable JSON).
 */
function isTransportStatus(response: InjectResponse): boolean {
  if (response.statusCode === 401 || response.statusCode === 413) return true;
  const message = response.json<{ message: string }>().message;
  return (
    (response.statusCode === 403 && message === 'Write access denied') ||
    (response.statusCode === 400 && (message === 'Error parsing request body' || message === 'Invalid URL'))
  );
}

export function findOperation(root: string, method: string, url: string, dialect = SPEC_DIALECT): Operation | undefined {
  const path = url.split('?')[0] ?? '';
  for (const resource of RESOURCES) {
    for (const api of resource.apis) {
      const pattern = new RegExp(`^${root}${dialect.path(api.path).replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (!pattern.test(path)) continue;
      const operation = api.operations.find((op) => op.httpMethod === method.toUpperCase());
      if (operation) return operation;
    }
  }
  return undefined;
}

/** Fails when an operation answered with an error status its api-docs do not declare. */
export function assertDeclaredStatus(root: string, method: string, url: string, response: InjectResponse, dialect = SPEC_DIALECT): void {
  const status = response.statusCode;
  if (status < 300 || isTransportStatus(response)) return;
  const operation = findOperation(root, method, url, dialect);
  if (!operation) return;
  const declared = declaredErrorResponses(operation, dialect).map((e) => e.code);
  assert.ok(
    declared.includes(status),
    `${method} ${url} answered ${status} (${response.body}) but ${operation.nickname} declares only ${declared.join(', ') || 'nothing'}`,
  );
}
