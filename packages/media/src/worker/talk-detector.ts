/**
 * Talk detection on a leg's inbound frames (what the phone sends), as a pure processor: a frame is
 * "loud" when its RMS exceeds the threshold; talking starts after `talkMs` of consecutive loud
 * frames and finishes after `silenceMs` of consecutive quiet ones. The durations reported count
 * from the first loud frame of the talkspurt to the last.
 */
import type { TalkDetectionOptions } from '../types.js';

const FRAME_MS = 20;

export type TalkEvent = { type: 'started' } | { type: 'finished'; durationMs: number } | null;

export function frameRms(frame: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i += 1) sum += frame[i] * frame[i];
  return frame.length === 0 ? 0 : Math.sqrt(sum / frame.length);
}

export class TalkDetector {
  readonly #options: TalkDetectionOptions;
  #talking = false;
  #loudMs = 0;
  #quietMs = 0;
  #talkMs = 0;

  constructor(options: TalkDetectionOptions) {
    this.#options = options;
  }

  get talking(): boolean {
    return this.#talking;
  }

  /** One inbound frame (null: nothing arrived, which is silence). */
  feed(frame: Int16Array | null): TalkEvent {
    const loud = frame !== null && frameRms(frame) > this.#options.energyThreshold;
    if (!this.#talking) {
      this.#loudMs = loud ? this.#loudMs + FRAME_MS : 0;
      if (loud && this.#loudMs >= Math.max(FRAME_MS, this.#options.talkMs)) {
        this.#talking = true;
        this.#talkMs = this.#loudMs;
        this.#quietMs = 0;
        return { type: 'started' };
      }
      return null;
    }
    if (loud) {
      this.#talkMs += this.#quietMs + FRAME_MS;
      this.#quietMs = 0;
      return null;
    }
    this.#quietMs += FRAME_MS;
    if (this.#quietMs >= Math.max(FRAME_MS, this.#options.silenceMs)) {
      this.#talking = false;
      this.#loudMs = 0;
      return { type: 'finished', durationMs: this.#talkMs };
    }
    return null;
  }
}
