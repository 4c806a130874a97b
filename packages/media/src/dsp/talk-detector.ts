/**
 * Talk detection on decoded audio, as the reference's TALK_DETECT does: a frame is "talking" when
 * its RMS level is above a threshold; talking starts after `talkMs` of talking frames in a row and
 * finishes after `silenceMs` of silent frames in a row. Timed by sample counts only.
 */

export interface TalkDetectorOptions {
  /** RMS (16-bit linear) above which a frame counts as talking. */
  energyThreshold: number;
  talkMs: number;
  silenceMs: number;
}

export type TalkEvent = { type: 'talkingStarted' } | { type: 'talkingFinished'; durationMs: number };

export class TalkDetector {
  readonly #options: TalkDetectorOptions;
  readonly #rate: number;
  #talking = false;
  /** Consecutive samples on the other side of the threshold from the current state. */
  #run = 0;
  /** Samples since talking started (its duration when it finishes, minus the trailing silence). */
  #talkSamples = 0;

  constructor(options: TalkDetectorOptions, sampleRate: number) {
    this.#options = options;
    this.#rate = sampleRate;
  }

  get talking(): boolean {
    return this.#talking;
  }

  /** Feeds one frame; returns the event it caused, if any. */
  process(frame: Int16Array): TalkEvent | null {
    let sum = 0;
    for (let i = 0; i < frame.length; i += 1) sum += frame[i] * frame[i];
    const loud = frame.length > 0 && Math.sqrt(sum / frame.length) > this.#options.energyThreshold;
    const samplesOf = (ms: number): number => (ms * this.#rate) / 1000;
    if (!this.#talking) {
      this.#run = loud ? this.#run + frame.length : 0;
      if (this.#run >= samplesOf(this.#options.talkMs) && loud) {
        this.#talking = true;
        this.#talkSamples = this.#run;
        this.#run = 0;
        return { type: 'talkingStarted' };
      }
      return null;
    }
    this.#talkSamples += frame.length;
    this.#run = loud ? 0 : this.#run + frame.length;
    if (this.#run >= samplesOf(this.#options.silenceMs) && !loud) {
      this.#talking = false;
      // The talk lasted until the silence began.
      const durationMs = ((this.#talkSamples - this.#run) * 1000) / this.#rate;
      this.#run = 0;
      this.#talkSamples = 0;
      return { type: 'talkingFinished', durationMs };
    }
    return null;
  }
}
