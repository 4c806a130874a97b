/**
 * AudioSocket framing: every message is a one-byte kind, a two-byte big-endian payload length and
 * the payload. Kinds: 0x00 hang up, 0x01 the stream's UUID (16 bytes, sent first by the server
 * side that dials), 0x03 a DTMF digit (one ASCII byte), 0x10 signed linear 16-bit 8 kHz mono
 * little-endian, 0x12 the same at 16 kHz, 0xff an error (optional code).
 */

export const AUDIOSOCKET_KIND = {
  hangup: 0x00,
  uuid: 0x01,
  dtmf: 0x03,
  slin: 0x10,
  slin16: 0x12,
  error: 0xff,
} as const;

/** The largest payload a message can carry (the length field is 16 bits). */
export const AUDIOSOCKET_MAX_PAYLOAD = 0xffff;

export interface AudioSocketMessage {
  readonly kind: number;
  readonly payload: Buffer;
}

export function encodeAudioSocket(kind: number, payload: Uint8Array = new Uint8Array(0)): Buffer {
  if (payload.length > AUDIOSOCKET_MAX_PAYLOAD) throw new RangeError(`AudioSocket payload of ${payload.length} bytes is too long`);
  const message = Buffer.allocUnsafe(3 + payload.length);
  message[0] = kind;
  message.writeUInt16BE(payload.length, 1);
  message.set(payload, 3);
  return message;
}

/** `8a3b…` or `8a3b-…` (a UUID's text form) → its 16 bytes; undefined when it is not a UUID. */
export function uuidBytes(uuid: string): Buffer | undefined {
  const hex = uuid.replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** Splits a TCP byte stream into messages; bytes of an incomplete message wait for the next chunk. */
export class AudioSocketReader {
  #pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): AudioSocketMessage[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const messages: AudioSocketMessage[] = [];
    let offset = 0;
    while (this.#pending.length - offset >= 3) {
      const length = this.#pending.readUInt16BE(offset + 1);
      if (this.#pending.length - offset < 3 + length) break;
      messages.push({ kind: this.#pending[offset] as number, payload: this.#pending.subarray(offset + 3, offset + 3 + length) });
      offset += 3 + length;
    }
    this.#pending = this.#pending.subarray(offset);
    return messages;
  }
}
