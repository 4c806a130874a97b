/**
 * DTLS-SRTP (RFC 5764) for WebRTC legs: the DTLS handshake on the media socket keys SRTP. The
 * handshake itself is werift-dtls's (TypeScript, ECDHE with AES-GCM, the use_srtp extension and the
 * keying-material exporter); what is ours is the glue: the datagram transport it runs over, the
 * certificate and its a=fingerprint (RFC 8122), checking the peer's certificate against the
 * fingerprint its SDP announced, and turning the exported material into the leg's SRTP keys (§4.2).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { CipherContext, DtlsClient, DtlsServer, type DtlsSocket } from 'werift-dtls/lib/dtls/src/index.js';
import type { LegSrtp } from '@switchboard/media-control';

/** SRTP_AES128_CM_HMAC_SHA1_80 (RFC 5764 §4.1.2) and SRTP_AEAD_AES_128_GCM (RFC 7714 §14.2), werift's numbering. */
const PROFILES = { AES_CM_128_HMAC_SHA1_80: 1, AEAD_AES_128_GCM: 7 } as const;
const PROFILE_SUITES = { 1: 'AES_CM_128_HMAC_SHA1_80', 7: 'AEAD_AES_128_GCM' } as const;
/** ECDSA P-256 with SHA-256: what browsers offer first. */
const SIGNATURE = { hash: 4, signature: 3 } as const;
const P256 = 23;

export interface DtlsCertificate {
  certPem: string;
  keyPem: string;
}

/** A self-signed ECDSA certificate for DTLS (kept in the data directory by whoever calls this). */
export async function generateDtlsCertificate(): Promise<DtlsCertificate> {
  const made = await CipherContext.createSelfSignedCertificateWithKey(SIGNATURE, P256);
  return { certPem: made.certPem, keyPem: made.keyPem };
}

/** RFC 8122 §5: `sha-256` and the upper-case hex of the DER certificate's hash, colon-separated. */
export function certificateFingerprint(certPem: string): string {
  return `sha-256 ${new X509Certificate(certPem).fingerprint256}`;
}

function derFingerprint(der: Buffer): string {
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return `sha-256 ${hex.match(/../g)?.join(':') ?? ''}`;
}

/** The datagrams of the handshake: DTLS records go out through `send`, come in through `receive`. */
export interface DatagramPath {
  send(datagram: Buffer): void;
}

export type DtlsRole = 'client' | 'server';

export type DtlsOutcome = { ok: true; srtp: LegSrtp } | { ok: false; reason: string };

/**
 * One side of a DTLS-SRTP association. `role` follows a=setup (RFC 5763 §5: `active` is the DTLS
 * client). `remoteFingerprint` is the peer's a=fingerprint; the handshake fails when its certificate
 * does not match (RFC 5763 §6.7.1).
 */
export class DtlsSrtpAssociation {
  readonly #socket: DtlsSocket;
  readonly #role: DtlsRole;
  readonly #remoteFingerprint: string;
  #deliver: (data: Buffer) => void = () => undefined;

  constructor(options: { role: DtlsRole; certificate: DtlsCertificate; remoteFingerprint: string; path: DatagramPath }) {
    this.#role = options.role;
    this.#remoteFingerprint = options.remoteFingerprint.toLowerCase();
    const transport = {
      type: 'udp',
      address: { address: '0.0.0.0', port: 0, family: 'IPv4' },
      closed: false,
      // werift-dtls's Address is an [address, port] tuple.
      onData: (_data: Buffer, _from: readonly [string, number]): void => undefined,
      send: async (data: Buffer) => options.path.send(data),
      close: async () => undefined,
    };
    this.#deliver = (data) => transport.onData(data, ['0.0.0.0', 0]);
    const common = {
      transport,
      cert: options.certificate.certPem,
      key: options.certificate.keyPem,
      signatureHash: SIGNATURE,
      srtpProfiles: [PROFILES.AEAD_AES_128_GCM, PROFILES.AES_CM_128_HMAC_SHA1_80],
      // RFC 5763 §5: both ends present certificates so that both fingerprints can be checked.
      certificateRequest: true,
    };
    this.#socket = options.role === 'server' ? new DtlsServer(common) : new DtlsClient(common);
  }

  /** A DTLS record received on the media socket (RFC 7983: first byte 20–63). */
  receive(datagram: Buffer): void {
    this.#deliver(datagram);
  }

  /** Runs the handshake (the client starts it) and resolves with the leg's SRTP keys. */
  async establish(timeoutMs = 10_000): Promise<DtlsOutcome> {
    const connected = new Promise<void>((resolve) => this.#socket.onConnect.subscribe(() => resolve()));
    if (this.#socket instanceof DtlsClient) void this.#socket.connect();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([connected, timedOut]);
    clearTimeout(timer);
    if (result === 'timeout') return { ok: false, reason: 'DTLS handshake timed out' };
    const certificate = this.#socket.remoteCertificate;
    if (certificate === undefined) return { ok: false, reason: 'the peer presented no certificate' };
    if (derFingerprint(certificate).toLowerCase() !== this.#remoteFingerprint) {
      return { ok: false, reason: "the peer's certificate does not match its a=fingerprint" };
    }
    const profile = this.#socket.srtp.srtpProfile;
    if (profile !== 1 && profile !== 7) return { ok: false, reason: 'no SRTP protection profile was agreed' };
    return {
      ok: true,
      srtp: srtpKeysFromExporter(
        this.#socket.exportKeyingMaterial('EXTRACTOR-dtls_srtp', profile === 1 ? 60 : 56),
        this.#role,
        PROFILE_SUITES[profile],
      ),
    };
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * RFC 5764 §4.2: the exporter's output is client_write_key | server_write_key | client_write_salt |
 * server_write_salt; each side sends with its own write key.
 */
export function srtpKeysFromExporter(material: Buffer, role: DtlsRole, suite: 'AES_CM_128_HMAC_SHA1_80' | 'AEAD_AES_128_GCM'): LegSrtp {
  const keyLength = 16;
  const saltLength = suite === 'AEAD_AES_128_GCM' ? 12 : 14;
  const clientKey = material.subarray(0, keyLength);
  const serverKey = material.subarray(keyLength, 2 * keyLength);
  const clientSalt = material.subarray(2 * keyLength, 2 * keyLength + saltLength);
  const serverSalt = material.subarray(2 * keyLength + saltLength, 2 * keyLength + 2 * saltLength);
  const client = Buffer.concat([clientKey, clientSalt]).toString('base64');
  const server = Buffer.concat([serverKey, serverSalt]).toString('base64');
  return role === 'client'
    ? { suite, localMasterKey: client, remoteMasterKey: server }
    : { suite, localMasterKey: server, remoteMasterKey: client };
}
