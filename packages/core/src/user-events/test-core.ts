/** A whole core over a real store in a temp directory, for the tests of the administrative services. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SipEndpointConfig, SwitchboardConfig } from '../config/types.js';
import { SwitchboardCore } from '../core.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { openStore, type SqliteStore } from '../store/sqlite-store.js';
import { RecordingMediaEngine, testCoreConfig } from '../test-support.js';

export function sipEndpoint(name: string): SipEndpointConfig {
  return {
    name,
    context: 'default',
    codecs: ['PCMU'],
    aors: [name],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: true,
    rewriteContact: false,
    rtpSymmetric: true,
    directMedia: false,
  };
}

export interface TestCore {
  core: SwitchboardCore;
  store: SqliteStore;
  events: TimedDomainEvent[];
  dir: string;
  /** Closes the store; `reopen` builds a new core over the same directory. */
  close(): Promise<void>;
  reopen(): Promise<TestCore>;
  remove(): void;
}

/** `files` are written into the conf directory (extensions.conf, logger.conf). */
export async function startTestCore(
  options: { dir?: string; files?: Record<string, string>; endpoints?: string[] } = {},
): Promise<TestCore> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'switchboard-core-'));
  const confDir = join(dir, 'conf');
  mkdirSync(confDir, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(confDir, name), text);
  const base = testCoreConfig();
  const config: SwitchboardConfig = {
    ...base,
    confDir,
    sip: { ...base.sip, endpoints: (options.endpoints ?? ['alice']).map(sipEndpoint) },
  };
  const store = openStore(join(dir, 'data'));
  const core = new SwitchboardCore({ config, media: new RecordingMediaEngine(), store, logDirectory: join(dir, 'log') });
  await core.restore();
  const events: TimedDomainEvent[] = [];
  core.bus.subscribe((e) => events.push(e));
  const test: TestCore = {
    core,
    store,
    events,
    dir,
    async close() {
      await core.shutdown();
      await store.close();
    },
    async reopen() {
      await test.close();
      return startTestCore({ ...options, dir });
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return test;
}
