/**
 * The certificates our DTLS-SRTP calls present (RFC 5763 §5: a self-signed certificate whose
 * fingerprint the SDP carries). One is generated at first start and kept in the data directory, so
 * that a peer that pinned our fingerprint sees the same one after a restart; an endpoint's
 * `dtls_cert_file` and `dtls_private_key` name its own instead.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SipEndpointConfig } from '@switchboard/core';
import { certificateFingerprint, type DtlsCertificate, generateDtlsCertificate } from '@switchboard/media';

/** A certificate with the a=fingerprint it is announced by (`sha-256 AB:…`). */
export interface DtlsIdentity {
  certPem: string;
  keyPem: string;
  fingerprint: string;
}

const CERTIFICATE_FILE = 'certificate.pem';
const KEY_FILE = 'private-key.pem';

function identityOf(certificate: DtlsCertificate): DtlsIdentity {
  return { ...certificate, fingerprint: certificateFingerprint(certificate.certPem) };
}

/**
 * The certificate kept in `directory` (made there on first use, the key readable by us only). A
 * file that is unreadable or not a certificate is an error, never silently replaced: a peer may
 * have pinned its fingerprint.
 */
export async function loadOrCreateDtlsIdentity(directory: string): Promise<DtlsIdentity> {
  const certFile = join(directory, CERTIFICATE_FILE);
  const keyFile = join(directory, KEY_FILE);
  let existing: DtlsCertificate | undefined;
  try {
    existing = { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (existing !== undefined) return identityOf(existing);
  const made = await generateDtlsCertificate();
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, made.keyPem, { mode: 0o600 });
  writeFileSync(certFile, made.certPem, { mode: 0o644 });
  return identityOf(made);
}

/** A certificate for this process only (a driver started without the server's). */
export async function ephemeralDtlsIdentity(): Promise<DtlsIdentity> {
  return identityOf(await generateDtlsCertificate());
}

/** Which certificate a call of an endpoint presents: its own files, else the server's. */
export class DtlsIdentities {
  readonly #fallback: () => DtlsIdentity | undefined;
  readonly #files = new Map<string, DtlsIdentity>();

  constructor(fallback: () => DtlsIdentity | undefined) {
    this.#fallback = fallback;
  }

  /** Throws when the endpoint's files cannot be read or are not a certificate and key. */
  forEndpoint(endpoint: SipEndpointConfig): DtlsIdentity | undefined {
    const certFile = endpoint.dtlsCertFile;
    const keyFile = endpoint.dtlsPrivateKey;
    if (certFile === undefined || keyFile === undefined) return this.#fallback();
    const key = `${certFile}\n${keyFile}`;
    let identity = this.#files.get(key);
    if (identity === undefined) {
      const keyPem = readFileSync(keyFile, 'utf8');
      if (!keyPem.includes('PRIVATE KEY')) throw new Error(`${keyFile} holds no PEM private key`);
      identity = identityOf({ certPem: readFileSync(certFile, 'utf8'), keyPem });
      this.#files.set(key, identity);
    }
    return identity;
  }
}
