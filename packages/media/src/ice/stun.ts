/**
 * STUN messages as ICE connectivity checks use them (RFC 8489): the header, attributes,
 * MESSAGE-INTEGRITY (HMAC-SHA1 with the short-term password, §14.5), FINGERPRINT (CRC-32 XOR
 * 0x5354554e, §14.7) and XOR-MAPPED-ADDRESS (§14.2). Parsing treats every datagram as hostile: a
 * message whose lengths do not add up is refused, never thrown on.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export const MAGIC_COOKIE = 0x2112a442;
const HEADER = 20;

export const STUN_METHOD_BINDING = 0x001;
export const STUN_CLASS = { request: 0x000, indication: 0x010, success: 0x100, error: 0x110 } as const;

export const ATTRIBUTE = {
  mappedAddress: 0x0001,
  username: 0x0006,
  messageIntegrity: 0x0008,
  errorCode: 0x0009,
  xorMappedAddress: 0x0020,
  priority: 0x0024,
  useCandidate: 0x0025,
  software: 0x8022,
  fingerprint: 0x8028,
  iceControlled: 0x8029,
  iceControlling: 0x802a,
} as const;

export interface StunAttribute {
  type: number;
  value: Buffer;
  /** Where the attribute's header starts in the message (integrity and fingerprint cover what precedes it). */
  offset: number;
}

export interface StunMessage {
  /** Method and class bits as on the wire (0x0001 Binding request, 0x0101 success). */
  type: number;
  transactionId: Buffer;
  attributes: StunAttribute[];
  /** The datagram the message was read from. */
  raw: Buffer;
}

/** RFC 7983 §7: the first byte of a STUN message is 0–3 (DTLS 20–63, RTP/RTCP 128–191). */
export function looksLikeStun(datagram: Uint8Array): boolean {
  return (
    datagram.length >= HEADER &&
    datagram[0] < 4 &&
    ((datagram[4] << 24) | (datagram[5] << 16) | (datagram[6] << 8) | datagram[7]) >>> 0 === MAGIC_COOKIE
  );
}

export function parseStun(datagram: Buffer): StunMessage | null {
  if (!looksLikeStun(datagram)) return null;
  const length = datagram.readUInt16BE(2);
  if (length % 4 !== 0 || HEADER + length !== datagram.length) return null;
  const attributes: StunAttribute[] = [];
  let offset = HEADER;
  while (offset < datagram.length) {
    if (offset + 4 > datagram.length) return null;
    const type = datagram.readUInt16BE(offset);
    const size = datagram.readUInt16BE(offset + 2);
    const end = offset + 4 + size;
    if (end > datagram.length) return null;
    attributes.push({ type, value: datagram.subarray(offset + 4, end), offset });
    offset = end + ((4 - (size % 4)) % 4);
  }
  return { type: datagram.readUInt16BE(0), transactionId: datagram.subarray(8, 20), attributes, raw: datagram };
}

export function attribute(message: StunMessage, type: number): Buffer | undefined {
  return message.attributes.find((a) => a.type === type)?.value;
}

/** CRC-32 (ISO 3309, the one FINGERPRINT uses), table-driven. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The message up to `offset` with its length field set as if it ended after `attributeLength` more bytes. */
function coveredPrefix(raw: Buffer, offset: number, attributeLength: number): Buffer {
  const prefix = Buffer.from(raw.subarray(0, offset));
  prefix.writeUInt16BE(offset - HEADER + attributeLength, 2);
  return prefix;
}

/** §14.5: the HMAC over the message up to MESSAGE-INTEGRITY, length counting up to its end. */
export function verifyIntegrity(message: StunMessage, key: Buffer): boolean {
  const mi = message.attributes.find((a) => a.type === ATTRIBUTE.messageIntegrity);
  if (mi === undefined || mi.value.length !== 20) return false;
  const expected = createHmac('sha1', key)
    .update(coveredPrefix(message.raw, mi.offset, 24))
    .digest();
  return timingSafeEqual(expected, mi.value);
}

/** §14.7: FINGERPRINT must be the last attribute and match. */
export function verifyFingerprint(message: StunMessage): boolean {
  const last = message.attributes[message.attributes.length - 1];
  if (last === undefined || last.type !== ATTRIBUTE.fingerprint || last.value.length !== 4) return false;
  return (crc32(coveredPrefix(message.raw, last.offset, 8)) ^ 0x5354554e) >>> 0 === last.value.readUInt32BE(0);
}

/** §14.2: the address XORed with the magic cookie (and the transaction id for IPv6). */
export function xorAddress(address: string, port: number, transactionId: Buffer): Buffer {
  const family = isIP(address);
  if (family === 0) throw new RangeError(`${address} is not an IP address`);
  const bytes =
    family === 4
      ? Buffer.from(address.split('.').map(Number))
      : Buffer.from(
          address
            .replace(/^(.*)::(.*)$/, (_m, head: string, tail: string) => {
              const h = head === '' ? [] : head.split(':');
              const t = tail === '' ? [] : tail.split(':');
              return [...h, ...Array(8 - h.length - t.length).fill('0'), ...t].join(':');
            })
            .split(':')
            .flatMap((group) => {
              const value = Number.parseInt(group, 16);
              return [value >> 8, value & 0xff];
            }),
        );
  const mask = Buffer.alloc(16);
  mask.writeUInt32BE(MAGIC_COOKIE, 0);
  transactionId.copy(mask, 4);
  const value = Buffer.alloc(4 + bytes.length);
  value[1] = family === 4 ? 0x01 : 0x02;
  value.writeUInt16BE(port ^ (MAGIC_COOKIE >>> 16), 2);
  for (let i = 0; i < bytes.length; i++) value[4 + i] = bytes[i] ^ mask[i];
  return value;
}

/**
 * Writes a message with `attributes` in order, then MESSAGE-INTEGRITY with `key` (when given) and
 * FINGERPRINT, each computed over what precedes it with the length covering itself (§14.5, §14.7).
 */
export function buildStun(
  type: number,
  transactionId: Buffer,
  attributes: ReadonlyArray<{ type: number; value: Uint8Array }>,
  key?: Buffer,
): Buffer {
  const parts: Buffer[] = [Buffer.alloc(HEADER)];
  parts[0].writeUInt16BE(type, 0);
  parts[0].writeUInt32BE(MAGIC_COOKIE, 4);
  transactionId.copy(parts[0], 8);
  const push = (attributeType: number, value: Uint8Array): void => {
    const header = Buffer.alloc(4);
    header.writeUInt16BE(attributeType, 0);
    header.writeUInt16BE(value.length, 2);
    parts.push(header, Buffer.from(value), Buffer.alloc((4 - (value.length % 4)) % 4));
  };
  for (const a of attributes) push(a.type, a.value);
  let body = Buffer.concat(parts);
  if (key !== undefined) {
    body.writeUInt16BE(body.length - HEADER + 24, 2);
    push(ATTRIBUTE.messageIntegrity, createHmac('sha1', key).update(body).digest());
    body = Buffer.concat(parts);
  }
  body.writeUInt16BE(body.length - HEADER + 8, 2);
  const fingerprint = Buffer.alloc(4);
  fingerprint.writeUInt32BE((crc32(body) ^ 0x5354554e) >>> 0, 0);
  push(ATTRIBUTE.fingerprint, fingerprint);
  const message = Buffer.concat(parts);
  message.writeUInt16BE(message.length - HEADER, 2);
  return message;
}
