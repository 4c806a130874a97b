import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SipConfig } from '../config/types.js';
import type { ConfigObjectRecord } from '../store/types.js';
import { silentLogger } from '../util/logger.js';
import type { ConfigObjectListener } from './dynamic-config.js';
import { CONFIG_CLASSES, checkAttribute } from './config-schema.js';
import { SipObjects } from './sip-objects.js';

/** Stored objects in memory, announcing changes as DynamicConfig does. */
class StoredObjects {
  readonly records: ConfigObjectRecord[] = [];
  readonly #listeners: ConfigObjectListener[] = [];
  async stored(configClass: string, objectType: string): Promise<ConfigObjectRecord[]> {
    return this.records.filter((r) => r.configClass === configClass && r.objectType === objectType);
  }
  onChange(listener: ConfigObjectListener): () => void {
    this.#listeners.push(listener);
    return () => undefined;
  }
  put(objectType: string, id: string, fields: Record<string, string>): void {
    const record = {
      configClass: 'res_pjsip',
      objectType,
      id,
      fields: [{ attribute: 'type', value: objectType }, ...Object.entries(fields).map(([attribute, value]) => ({ attribute, value }))],
    };
    this.records.push(record);
    for (const l of this.#listeners) l({ configClass: 'res_pjsip', objectType, id, fields: record.fields });
  }
}

const PJSIP = '[alice]\ntype = endpoint\ncontext = default\nallow = ulaw\n';

describe('SipObjects', () => {
  it('takes rtp_timeout and rtp_timeout_hold on a stored endpoint, and checks them as whole seconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sip-objects-'));
    try {
      writeFileSync(join(dir, 'pjsip.conf'), PJSIP);
      let fileConfig: SipConfig = { transports: [], endpoints: [], identifies: [], aors: [], auths: [] };
      const stored = new StoredObjects();
      const objects = new SipObjects({
        confDir: dir,
        dynamicConfig: stored,
        log: silentLogger,
        fileConfig: () => fileConfig,
        setFileConfig: (c) => {
          fileConfig = c;
        },
      });
      stored.put('endpoint', 'quiet', { context: 'default', rtp_timeout: '30', rtp_timeout_hold: '300' });
      const endpoint = (await objects.effective()).endpoints.find((e) => e.name === 'quiet');
      assert.equal(endpoint?.rtpTimeout, 30);
      assert.equal(endpoint?.rtpTimeoutHold, 300);
      const schema = CONFIG_CLASSES.res_pjsip.endpoint;
      assert.equal(checkAttribute(schema, 'rtp_timeout', '60'), undefined);
      assert.match(checkAttribute(schema, 'rtp_timeout_hold', 'soon') ?? '', /rtp_timeout_hold must be an integer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merges stored objects with pjsip.conf, leaving out one that cannot be used until it can', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sip-objects-'));
    try {
      writeFileSync(join(dir, 'pjsip.conf'), PJSIP);
      let fileConfig: SipConfig = { transports: [], endpoints: [], identifies: [], aors: [], auths: [] };
      const stored = new StoredObjects();
      const objects = new SipObjects({
        confDir: dir,
        dynamicConfig: stored,
        log: silentLogger,
        fileConfig: () => fileConfig,
        setFileConfig: (c) => {
          fileConfig = c;
        },
      });
      const seen: SipConfig[] = [];
      objects.onChange((c) => seen.push(c));

      // An endpoint naming an auth that does not exist yet is left out; the file's endpoint stays.
      stored.put('endpoint', 'dyn', { context: 'default', auth: 'dyn-auth' });
      let config = await objects.effective();
      assert.deepEqual(
        config.endpoints.map((e) => e.name),
        ['alice'],
      );
      stored.put('auth', 'dyn-auth', { username: 'dyn', password: 'secret' });
      config = await objects.effective();
      assert.deepEqual(config.endpoints.map((e) => e.name).sort(), ['alice', 'dyn']);
      assert.equal(config.endpoints.find((e) => e.name === 'dyn')?.auth, 'dyn-auth');
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(seen.length >= 2, 'listeners hear each change');

      // Reloading the file: a new endpoint comes in, a broken file changes nothing.
      writeFileSync(join(dir, 'pjsip.conf'), `${PJSIP}[bob]\ntype = endpoint\ncontext = default\n`);
      config = await objects.reloadFile();
      assert.deepEqual(config.endpoints.map((e) => e.name).sort(), ['alice', 'bob', 'dyn']);
      assert.deepEqual(
        fileConfig.endpoints.map((e) => e.name),
        ['alice', 'bob'],
      );
      writeFileSync(join(dir, 'pjsip.conf'), '[broken]\ntype = nonsense\n');
      await assert.rejects(objects.reloadFile());
      assert.deepEqual(
        fileConfig.endpoints.map((e) => e.name),
        ['alice', 'bob'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
