/**
 * The server's DTLS certificate: made at first start in the data directory (key readable by us
 * only), the same one read back after a restart; an endpoint's own files win.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SipEndpointConfig } from '@switchboard/core';
import { DtlsIdentities, ephemeralDtlsIdentity, loadOrCreateDtlsIdentity } from './dtls-certificates.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-dtls-'));
after(() => rmSync(root, { recursive: true, force: true }));

const endpoint = (extra: Partial<SipEndpointConfig> = {}): SipEndpointConfig => ({
  name: 'browser',
  context: 'default',
  codecs: ['opus'],
  aors: [],
  mailboxes: [],
  dtmfMode: 'rfc4733',
  forceRport: true,
  rewriteContact: false,
  rtpSymmetric: false,
  directMedia: false,
  ...extra,
});

describe('DTLS certificates', () => {
  it('is generated once in the data directory and read back the same after a restart', async () => {
    const directory = join(root, 'var', 'dtls');
    const first = await loadOrCreateDtlsIdentity(directory);
    assert.match(first.fingerprint, /^sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal(statSync(join(directory, 'private-key.pem')).mode & 0o077, 0, 'the key is not readable by others');
    const again = await loadOrCreateDtlsIdentity(directory);
    assert.equal(again.fingerprint, first.fingerprint);
    assert.equal(again.keyPem, first.keyPem);
  });

  it('an endpoint with dtls_cert_file and dtls_private_key presents its own; a missing file is an error', async () => {
    const own = await ephemeralDtlsIdentity();
    const server = await ephemeralDtlsIdentity();
    writeFileSync(join(root, 'own.pem'), own.certPem);
    writeFileSync(join(root, 'own.key'), own.keyPem);
    const identities = new DtlsIdentities(() => server);
    assert.equal(identities.forEndpoint(endpoint())?.fingerprint, server.fingerprint);
    const chosen = identities.forEndpoint(endpoint({ dtlsCertFile: join(root, 'own.pem'), dtlsPrivateKey: join(root, 'own.key') }));
    assert.equal(chosen?.fingerprint, own.fingerprint);
    assert.throws(
      () => identities.forEndpoint(endpoint({ dtlsCertFile: join(root, 'none.pem'), dtlsPrivateKey: join(root, 'none.key') })),
      /ENOENT/,
    );
  });
});
