/**
 * RFC 4733 DTMF sending as a pure packet plan: for a digit string, every telephone-event packet
 * to send, with its offset from the start in milliseconds; the leg paces them on its media tick
 * and gives each event the RTP timestamp it claims when the event's first packet is due.
 *
 * Per event (RFC 4733 §2.5.1): the first packet carries the marker bit (§2.5.1.3: start of a new
 * event); every packet of the event carries the same timestamp and a duration that grows by one
 * packet interval; the final duration is sent in three packets with the E bit (§2.5.1.4), so the
 * end survives the loss of two of them. The next event starts after the requested gap.
 */
import { type TelephoneEvent, dtmfDigitForEvent } from '../rtp/telephone-event.js';

export interface DtmfPlanOptions {
  /** Tone duration per digit (RFC 4733 suggests at least 40 ms; the reference defaults to 100). */
  durationMs?: number;
  /** Silence between the end of one digit and the next. */
  gapMs?: number;
  /** RTP clock rate of the telephone-event payload type (8000 unless negotiated otherwise). */
  clockRate?: number;
  /** Packet interval (RFC 4733 §2.5.1.2: the audio's packetisation, 20 ms here). */
  packetMs?: number;
  /** Power level in −dBm0 (§2.3.4); 10 is the common default. */
  volume?: number;
}

export interface PlannedEventPacket {
  offsetMs: number;
  /** Which digit of the string this packet belongs to: a new index means a new RTP timestamp. */
  digitIndex: number;
  marker: boolean;
  event: TelephoneEvent;
}

/** End packets per event (RFC 4733 §2.5.1.4). */
export const END_PACKETS = 3;

/** Event code of a DTMF digit (RFC 4733 §3.2), or null for any other character. */
export function eventForDigit(digit: string): number | null {
  for (let code = 0; code < 16; code += 1) if (dtmfDigitForEvent(code) === digit.toUpperCase()) return code;
  return null;
}

/** The packets for `digits`; characters that are not DTMF digits throw a RangeError. */
export function planTelephoneEvents(digits: string, options: DtmfPlanOptions = {}): PlannedEventPacket[] {
  const durationMs = options.durationMs ?? 100;
  const gapMs = options.gapMs ?? 100;
  const clockRate = options.clockRate ?? 8000;
  const packetMs = options.packetMs ?? 20;
  const volume = options.volume ?? 10;
  if (!(durationMs >= packetMs)) throw new RangeError(`DTMF duration must be at least ${packetMs} ms, got ${durationMs}`);
  const perPacket = Math.round((packetMs * clockRate) / 1000);
  // The duration field is 16 bits (§2.5.2.1: longer events need segmenting, beyond what DTMF needs).
  const updates = Math.min(Math.ceil(durationMs / packetMs), Math.floor(0xffff / perPacket));
  const packets: PlannedEventPacket[] = [];
  let start = 0;
  [...digits].forEach((digit, digitIndex) => {
    const code = eventForDigit(digit);
    if (code === null) throw new RangeError(`'${digit}' is not a DTMF digit (0-9, *, #, A-D)`);
    for (let i = 0; i < updates - 1; i += 1) {
      packets.push({
        offsetMs: start + i * packetMs,
        digitIndex,
        marker: i === 0,
        event: { event: code, end: false, volume, duration: (i + 1) * perPacket },
      });
    }
    for (let r = 0; r < END_PACKETS; r += 1) {
      const i = updates - 1 + r;
      packets.push({
        offsetMs: start + i * packetMs,
        digitIndex,
        marker: updates === 1 && r === 0,
        event: { event: code, end: true, volume, duration: updates * perPacket },
      });
    }
    // The gap counts from the last end packet, so the next event never overlaps its repetitions.
    start += (updates - 1 + END_PACKETS) * packetMs + Math.max(packetMs, Math.ceil(gapMs / packetMs) * packetMs);
  });
  return packets;
}
