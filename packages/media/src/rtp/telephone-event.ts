/**
 * RFC 4733 telephone-events (DTMF carried as named events in RTP).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     event     |E|R| volume    |          duration             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *                          (RFC 4733 §2.3)
 */

/** Bytes of one event block (RFC 4733 §2.3). */
export const TELEPHONE_EVENT_SIZE = 4;

export interface TelephoneEvent {
  /** Event code (RFC 4733 §3.2: 0–9 digits, 10 `*`, 11 `#`, 12–15 A–D). */
  event: number;
  /** The E bit: this packet reports the end of the event. */
  end: boolean;
  /** Power level in −dBm0 (0–63). */
  volume: number;
  /** Duration so far, in timestamp units, counted from the event's RTP timestamp. */
  duration: number;
}

/** Reads the first event block of a payload; null when the payload is shorter than one block. */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | null {
  if (payload.length < TELEPHONE_EVENT_SIZE) return null;
  return {
    event: payload[0],
    end: (payload[1] & 0x80) !== 0,
    volume: payload[1] & 0x3f,
    duration: (payload[2] << 8) | payload[3],
  };
}

/** Writes one event block at `offset` (used to send events and by tests). */
export function writeTelephoneEvent(out: Uint8Array, event: TelephoneEvent, offset = 0): number {
  if (offset < 0 || offset + TELEPHONE_EVENT_SIZE > out.length) {
    throw new RangeError(`telephone-event needs ${TELEPHONE_EVENT_SIZE} bytes at offset ${offset}`);
  }
  out[offset] = event.event & 0xff;
  out[offset + 1] = (event.end ? 0x80 : 0) | (event.volume & 0x3f);
  out[offset + 2] = (event.duration >> 8) & 0xff;
  out[offset + 3] = event.duration & 0xff;
  return TELEPHONE_EVENT_SIZE;
}

const DTMF_DIGITS = '0123456789*#ABCD';

/** The DTMF digit for an event code (RFC 4733 §3.2, Table 3), or null for any other event. */
export function dtmfDigitForEvent(event: number): string | null {
  return event >= 0 && event < DTMF_DIGITS.length ? DTMF_DIGITS[event] : null;
}

export interface DetectedDigit {
  digit: string;
  /** The event's duration from its final end packet, in milliseconds. */
  durationMs: number;
}

/** How many recently reported events to remember, so that late retransmissions stay quiet. */
const REMEMBERED_EVENTS = 8;

/**
 * Reports each DTMF event once, when its end arrives. RFC 4733 §2.5.1.4 has the sender repeat the
 * end packet (typically three times) with the same RTP timestamp, since each event keeps the
 * timestamp of its start (§2.5.1.3); so an event is identified by SSRC and timestamp, and later end
 * packets with an identity already reported are ignored. A pure processor: packets in, digits out.
 */
export class DtmfEndDetector {
  readonly #reported: string[] = [];

  /**
   * Feeds one received telephone-event packet. Returns the digit the first time an event's end is
   * seen, null otherwise (not an end, a repeat, or an event that is not a DTMF digit).
   */
  push(ssrc: number, timestamp: number, event: TelephoneEvent, clockRate: number): DetectedDigit | null {
    if (!event.end) return null;
    const digit = dtmfDigitForEvent(event.event);
    if (digit === null) return null;
    const key = `${ssrc >>> 0}:${timestamp >>> 0}`;
    if (this.#reported.includes(key)) return null;
    this.#reported.push(key);
    if (this.#reported.length > REMEMBERED_EVENTS) this.#reported.shift();
    return { digit, durationMs: Math.round((event.duration * 1000) / clockRate) };
  }
}
