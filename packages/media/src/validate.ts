/**
 * Checks of request fields at the engine's boundary, on the main thread, so a bad value is refused
 * with `invalid_argument` before it reaches a worker.
 */
import { isIP } from 'node:net';
import { InvalidArgumentError } from './errors.js';
import type { LegDtls, LegIce, LegRemote, LegSrtp, MediaDirection, VideoCodecName, VideoRemote } from '@switchboard/media-control';
import { isSrtpSuiteName, masterKeyLength } from './srtp/suites.js';

const DIRECTIONS: readonly MediaDirection[] = ['sendrecv', 'sendonly', 'recvonly', 'inactive'];

/**
 * RTP clock rates each codec may be negotiated with: G.711 and G.722 at 8000 (RFC 3551 §4.5.2,
 * §4.5.14), L16 at 8000 or 16000 as we offer it, Opus always at 48000 (RFC 7587 §4.1). Whether a
 * codec's implementation is present (the Opus binding is native) is checked by the worker.
 */
const CLOCK_RATES: Readonly<Record<string, readonly number[]>> = {
  PCMU: [8000],
  PCMA: [8000],
  G722: [8000],
  L16: [8000, 16000],
  opus: [48000],
};

function isPayloadType(value: unknown): value is number {
  // RFC 3550 §5.1: seven bits.
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 127;
}

export function validateIpAddress(what: string, address: unknown): string {
  if (typeof address !== 'string' || isIP(address) === 0)
    throw new InvalidArgumentError(`${what} must be an IP address, got ${String(address)}`);
  return address;
}

export function validateRemote(remote: LegRemote): LegRemote {
  validateIpAddress('remote address', remote.address);
  if (!Number.isInteger(remote.port) || remote.port < 1 || remote.port > 65535) {
    throw new InvalidArgumentError(`remote port must be an integer in 1-65535, got ${remote.port}`);
  }
  const codec = remote.codec;
  if (typeof codec !== 'object' || codec === null) throw new InvalidArgumentError('remote codec is missing');
  const rates = typeof codec.name === 'string' ? CLOCK_RATES[codec.name] : undefined;
  if (!rates) throw new InvalidArgumentError(`unsupported codec ${String(codec.name)}`);
  if (!isPayloadType(codec.payloadType)) throw new InvalidArgumentError(`codec payload type must be 0-127, got ${codec.payloadType}`);
  if (!rates.includes(codec.clockRate)) {
    throw new InvalidArgumentError(`${codec.name} runs at ${rates.join(' or ')} Hz, got clock rate ${codec.clockRate}`);
  }
  const event = remote.telephoneEventPayloadType;
  if (event !== undefined) {
    if (!isPayloadType(event)) throw new InvalidArgumentError(`telephone-event payload type must be 0-127, got ${event}`);
    if (event === codec.payloadType) throw new InvalidArgumentError(`telephone-event and ${codec.name} cannot share payload type ${event}`);
  }
  if (remote.direction !== undefined && !DIRECTIONS.includes(remote.direction)) {
    throw new InvalidArgumentError(`direction must be one of ${DIRECTIONS.join(', ')}, got ${String(remote.direction)}`);
  }
  // A plain copy: only the fields the worker uses cross the thread boundary.
  const copy: LegRemote = {
    address: remote.address,
    port: remote.port,
    codec: { name: codec.name, payloadType: codec.payloadType, clockRate: codec.clockRate },
  };
  if (event !== undefined) copy.telephoneEventPayloadType = event;
  if (remote.direction !== undefined) copy.direction = remote.direction;
  if (remote.video !== undefined) copy.video = validateVideoRemote(remote.video);
  if (remote.srtp !== undefined) copy.srtp = validateSrtp(remote.srtp);
  if (remote.ice !== undefined) copy.ice = validateIce(remote.ice);
  if (remote.rtcpMux !== undefined) {
    if (typeof remote.rtcpMux !== 'boolean') throw new InvalidArgumentError('rtcpMux must be a boolean');
    copy.rtcpMux = remote.rtcpMux;
  }
  if (remote.dtls !== undefined) {
    if (remote.srtp !== undefined) throw new InvalidArgumentError('srtp and dtls cannot both key a leg');
    copy.dtls = validateDtls(remote.dtls);
  }
  return copy;
}

function validateDtls(dtls: LegDtls): LegDtls {
  if (typeof dtls !== 'object' || dtls === null) throw new InvalidArgumentError('dtls must be an object');
  if (dtls.role !== 'client' && dtls.role !== 'server')
    throw new InvalidArgumentError(`DTLS role must be client or server, got ${String(dtls.role)}`);
  if (typeof dtls.remoteFingerprint !== 'string' || !/^sha-256 ([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/.test(dtls.remoteFingerprint)) {
    throw new InvalidArgumentError('DTLS remote fingerprint must be "sha-256" and 32 hex octets');
  }
  if (typeof dtls.certificate !== 'string' || !dtls.certificate.includes('BEGIN CERTIFICATE'))
    throw new InvalidArgumentError('DTLS certificate must be PEM');
  if (typeof dtls.privateKey !== 'string' || !dtls.privateKey.includes('PRIVATE KEY'))
    throw new InvalidArgumentError('DTLS private key must be PEM');
  return { role: dtls.role, remoteFingerprint: dtls.remoteFingerprint, certificate: dtls.certificate, privateKey: dtls.privateKey };
}

/** RFC 8445 §5.3: ice-chars (ALPHA / DIGIT / "+" / "/"), ufrag 4–256, password 22–256. */
function validateIce(ice: LegIce): LegIce {
  if (typeof ice !== 'object' || ice === null) throw new InvalidArgumentError('ice must be an object');
  const chars = /^[A-Za-z0-9+/]+$/;
  if (typeof ice.ufrag !== 'string' || !chars.test(ice.ufrag) || ice.ufrag.length < 4 || ice.ufrag.length > 256) {
    throw new InvalidArgumentError('ICE ufrag must be 4-256 ice-chars');
  }
  if (typeof ice.password !== 'string' || !chars.test(ice.password) || ice.password.length < 22 || ice.password.length > 256) {
    throw new InvalidArgumentError('ICE password must be 22-256 ice-chars');
  }
  return { ufrag: ice.ufrag, password: ice.password };
}

/** Both master keys must decode to key || salt of the suite's lengths (RFC 4568 §6.1, RFC 7714 §12). */
function validateSrtp(srtp: LegSrtp): LegSrtp {
  if (typeof srtp !== 'object' || srtp === null) throw new InvalidArgumentError('srtp must be an object');
  if (typeof srtp.suite !== 'string' || !isSrtpSuiteName(srtp.suite)) {
    throw new InvalidArgumentError(`unsupported SRTP crypto suite ${String(srtp.suite)}`);
  }
  const expected = masterKeyLength(srtp.suite);
  for (const [what, key] of [
    ['local', srtp.localMasterKey],
    ['remote', srtp.remoteMasterKey],
  ] as const) {
    if (typeof key !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== expected) {
      throw new InvalidArgumentError(`${what} SRTP master key must be ${expected} bytes in base64 for ${srtp.suite}`);
    }
  }
  return { suite: srtp.suite, localMasterKey: srtp.localMasterKey, remoteMasterKey: srtp.remoteMasterKey };
}

const VIDEO_CODECS: readonly VideoCodecName[] = ['H264', 'VP8', 'VP9', 'H263', 'H263-1998'];

function validateVideoRemote(video: VideoRemote): VideoRemote {
  if (typeof video !== 'object' || video === null) throw new InvalidArgumentError('video remote must be an object');
  validateIpAddress('video remote address', video.address);
  if (!Number.isInteger(video.port) || video.port < 1 || video.port > 65535) {
    throw new InvalidArgumentError(`video remote port must be an integer in 1-65535, got ${video.port}`);
  }
  const codec = video.codec;
  if (typeof codec !== 'object' || codec === null || !VIDEO_CODECS.includes(codec.name)) {
    throw new InvalidArgumentError(`unsupported video codec ${String(codec?.name)}; known: ${VIDEO_CODECS.join(', ')}`);
  }
  if (!isPayloadType(codec.payloadType)) throw new InvalidArgumentError(`video payload type must be 0-127, got ${codec.payloadType}`);
  // RFC 3551 §5: video RTP clocks run at 90 kHz.
  if (codec.clockRate !== 90000) throw new InvalidArgumentError(`video codecs run at 90000 Hz, got clock rate ${codec.clockRate}`);
  if (video.direction !== undefined && !DIRECTIONS.includes(video.direction)) {
    throw new InvalidArgumentError(`video direction must be one of ${DIRECTIONS.join(', ')}, got ${String(video.direction)}`);
  }
  const copy: VideoRemote = {
    address: video.address,
    port: video.port,
    codec: { name: codec.name, payloadType: codec.payloadType, clockRate: codec.clockRate },
  };
  if (video.direction !== undefined) copy.direction = video.direction;
  if (video.bundled !== undefined) {
    if (typeof video.bundled !== 'boolean') throw new InvalidArgumentError('video bundled must be a boolean');
    if (video.bundled) copy.bundled = true;
  }
  return copy;
}

export function validateOffsetMs(offsetMs: number | undefined): number {
  if (offsetMs === undefined) return 0;
  if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs) || offsetMs < 0) {
    throw new InvalidArgumentError(`offsetMs must be a non-negative number, got ${String(offsetMs)}`);
  }
  return offsetMs;
}

export function validateNonEmpty(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidArgumentError(`${what} must be a non-empty string`);
  return value;
}
