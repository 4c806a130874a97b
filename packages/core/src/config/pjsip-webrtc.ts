/**
 * The WebRTC options of a pjsip.conf endpoint, by their original names: `webrtc`, `use_avpf`,
 * `ice_support`, `rtcp_mux`, `media_use_received_transport` and the `dtls_*` family. `webrtc = yes`
 * implies `use_avpf`, `media_encryption = dtls`, `dtls_verify = fingerprint`, `dtls_setup = actpass`,
 * `ice_support`, `media_use_received_transport` and `rtcp_mux`; each of them set explicitly in the
 * section wins over the implied value, wherever it appears.
 */
import { resolve } from 'node:path';
import type { Logger } from '../util/logger.js';
import type { IniOption } from './ini.js';
import type { SipEndpointConfig } from './types.js';
import { invalid, parseBool, requireNonEmpty } from './values.js';

const DTLS_VERIFY = ['no', 'yes', 'fingerprint', 'certificate'] as const;
const DTLS_SETUP = ['active', 'passive', 'actpass'] as const;

function oneOf<T extends string>(o: IniOption, words: readonly T[]): T {
  const word = o.value.trim().toLowerCase();
  const known = words.find((w) => w === word);
  if (known === undefined) throw invalid(o, `expected one of ${words.join(', ')}`);
  return known;
}

/** Endpoint options of this file, merged into readEndpoint's table. */
export function webrtcHandlers(endpoint: SipEndpointConfig, confDir: string, log: Logger): Record<string, (o: IniOption) => void> {
  return {
    webrtc: (o) => {
      endpoint.webrtc = parseBool(o);
    },
    use_avpf: (o) => {
      endpoint.useAvpf = parseBool(o);
    },
    ice_support: (o) => {
      endpoint.iceSupport = parseBool(o);
    },
    rtcp_mux: (o) => {
      endpoint.rtcpMux = parseBool(o);
    },
    media_use_received_transport: (o) => {
      endpoint.mediaUseReceivedTransport = parseBool(o);
    },
    dtls_verify: (o) => {
      endpoint.dtlsVerify = oneOf(o, DTLS_VERIFY);
      if (endpoint.dtlsVerify === 'no' || endpoint.dtlsVerify === 'certificate') {
        // RFC 5763 §5 authenticates the peer by the fingerprint its SDP carries; there is no CA to check against.
        log.warn({ file: o.file, line: o.line }, `dtls_verify = ${endpoint.dtlsVerify}: the peer's fingerprint is checked all the same`);
      }
    },
    dtls_setup: (o) => {
      endpoint.dtlsSetup = oneOf(o, DTLS_SETUP);
    },
    dtls_fingerprint: (o) => {
      const hash = o.value.trim().toUpperCase();
      if (hash !== 'SHA-256' && hash !== 'SHA-1') throw invalid(o, 'expected SHA-256 or SHA-1');
      if (hash === 'SHA-1') {
        // RFC 8122 §5 lets either be used; browsers offer and expect sha-256, which every peer accepts.
        log.warn({ file: o.file, line: o.line }, 'dtls_fingerprint = SHA-1: our fingerprint is announced as sha-256');
      }
      endpoint.dtlsFingerprint = 'SHA-256';
    },
    dtls_cert_file: (o) => {
      endpoint.dtlsCertFile = resolve(confDir, requireNonEmpty(o));
    },
    dtls_private_key: (o) => {
      endpoint.dtlsPrivateKey = resolve(confDir, requireNonEmpty(o));
    },
    // Accepted for compatibility: the certificate in use is named by dtls_cert_file, no CA is consulted.
    dtls_ca_file: () => undefined,
    dtls_ca_path: () => undefined,
    dtls_cipher: () => undefined,
    dtls_rekey: () => undefined,
  };
}

/**
 * What `webrtc = yes` implies, for each option the section left unset, and the checks of the whole
 * section: DTLS needs both or neither of the certificate files.
 */
export function applyWebrtcImplications(endpoint: SipEndpointConfig, where: { file: string; line: number }, log: Logger): void {
  if (endpoint.webrtc === true) {
    endpoint.useAvpf ??= true;
    endpoint.mediaEncryption ??= 'dtls';
    endpoint.dtlsVerify ??= 'fingerprint';
    endpoint.dtlsSetup ??= 'actpass';
    endpoint.iceSupport ??= true;
    endpoint.mediaUseReceivedTransport ??= true;
    endpoint.rtcpMux ??= true;
  }
  if ((endpoint.dtlsCertFile === undefined) !== (endpoint.dtlsPrivateKey === undefined)) {
    log.warn(where, `endpoint '${endpoint.name}': dtls_cert_file and dtls_private_key go together; the generated certificate is used`);
    delete endpoint.dtlsCertFile;
    delete endpoint.dtlsPrivateKey;
  }
}
