/**
 * Sending DTMF digits on a leg, one media tick at a time. A pure processor: each `step()` says what
 * the leg does with this 20 ms frame.
 *
 * RFC 4733 mode: the packets of the plan (dsp/dtmf-sender.ts: marker on each event's first packet,
 * one start timestamp per event, growing duration, three end packets) go out on the tick their
 * offset falls in; the leg sends no audio on those ticks, so the events take the audio's place in
 * the stream. In-band mode (no telephone-event negotiated): each digit's two ITU-T Q.23
 * frequencies, then the gap's silence, replace the leg's audio.
 */
import { planTelephoneEvents } from '../dsp/dtmf-sender.js';
import type { TelephoneEvent } from '../rtp/telephone-event.js';
import type { ToneSegment } from '@switchboard/media-control';
import { ToneSource } from './tone-frames.js';

/** Q.23 frequencies: row (low group) and column (high group) of each key. */
const KEYS: Record<string, [number, number]> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  A: [697, 1633],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  B: [770, 1633],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  C: [852, 1633],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
  D: [941, 1633],
};

const FRAME_MS = 20;
const FRAME_SAMPLES = 160;

export interface EventPacket {
  event: TelephoneEvent;
  marker: boolean;
  /** A new event starts here: it claims a new RTP timestamp (RFC 4733 §2.5.1.3). */
  newEvent: boolean;
}

export type DtmfStep =
  /** Send these event packets (and no audio) this tick. */
  | { kind: 'events'; packets: EventPacket[] }
  /** Send this tone frame in place of the leg's audio. */
  | { kind: 'tone'; frame: Int16Array }
  /** Between digits: the leg's normal audio. */
  | { kind: 'pause' }
  | { kind: 'done' };

export class DtmfSender {
  #tick = 0;
  readonly #byTick = new Map<number, EventPacket[]>();
  readonly #lastTick: number;
  readonly #tone: ToneSource | null;
  readonly #frame = new Int16Array(FRAME_SAMPLES);

  /** `digits` holds DTMF keys only (the engine checked them). */
  constructor(digits: string, durationMs: number, betweenMs: number, useEvents: boolean) {
    const keys = [...digits.toUpperCase()].filter((digit) => digit in KEYS);
    const duration = Math.max(FRAME_MS * 2, durationMs);
    if (useEvents) {
      let previous = -1;
      for (const packet of planTelephoneEvents(keys.join(''), { durationMs: duration, gapMs: betweenMs })) {
        const tick = Math.floor(packet.offsetMs / FRAME_MS);
        const list = this.#byTick.get(tick) ?? [];
        list.push({ event: packet.event, marker: packet.marker, newEvent: packet.digitIndex !== previous });
        previous = packet.digitIndex;
        this.#byTick.set(tick, list);
      }
      this.#lastTick = Math.max(-1, ...this.#byTick.keys());
      this.#tone = null;
    } else {
      const segments: ToneSegment[] = [];
      keys.forEach((key, index) => {
        segments.push({ frequencies: KEYS[key], durationMs: duration });
        if (index < keys.length - 1) segments.push({ frequencies: [], durationMs: Math.max(FRAME_MS, betweenMs) });
      });
      this.#lastTick = -1;
      this.#tone = segments.length === 0 ? null : new ToneSource(segments, false);
    }
  }

  step(): DtmfStep {
    if (this.#tone !== null) {
      return this.#tone.next(this.#frame) ? { kind: 'tone', frame: this.#frame } : { kind: 'done' };
    }
    const tick = this.#tick;
    this.#tick += 1;
    if (tick > this.#lastTick) return { kind: 'done' };
    const packets = this.#byTick.get(tick);
    return packets === undefined ? { kind: 'pause' } : { kind: 'events', packets };
  }
}
