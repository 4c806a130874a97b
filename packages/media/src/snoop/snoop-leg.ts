/**
 * A leg without a socket that listens to (spy) and/or speaks into (whisper) another leg on the same
 * worker, for supervisors and call recording. Its "far end" is the source leg's audio:
 *
 *   spy   in   what the source's phone sends            (source.inFrame, this tick)
 *         out  what the server sends to that phone      (source.lastOut, the previous tick)
 *         both their sum
 *   whisper    what is written to the snoop leg (its playback, its bridge's mix) is added, on the
 *              next tick, to what the source sends on (`in`), to what its phone hears (`out`), or both.
 *
 *   spyGain    a factor per direction applied to what is heard (call recording's volume options).
 *
 * Everything else (playback, recording, bridging) treats it as any other leg: it is an AudioIo.
 */
import { mixAll } from '../bridge/mixer.js';
import { applyGain } from '../dsp/gain.js';
import type { SnoopDirection } from '@switchboard/media-control';
import type { AudioIo, MediaEndpoint } from '../worker/media-endpoint.js';

const FRAME_SAMPLES = 160;

export class SnoopLeg implements AudioIo {
  readonly id: string;
  readonly spy: SnoopDirection;
  readonly whisper: SnoopDirection;
  readonly #gain: { in: number; out: number };
  #source: MediaEndpoint | null;

  constructor(id: string, source: MediaEndpoint, spy: SnoopDirection, whisper: SnoopDirection, gain = { in: 1, out: 1 }) {
    this.id = id;
    this.#gain = gain;
    this.#source = source;
    this.spy = spy;
    this.whisper = whisper;
    source.snoops += 1;
  }

  get sourceId(): string | null {
    return this.#source?.id ?? null;
  }

  /** The source leg went away: the snoop leg hears silence from now on. */
  detach(): void {
    if (this.#source !== null) this.#source.snoops -= 1;
    this.#source = null;
  }

  readFrame(rateHz: number): Int16Array | null {
    if (rateHz !== 8000) throw new RangeError(`snoop frames are 8000 Hz, asked for ${rateHz}`);
    const source = this.#source;
    if (source === null) return null;
    const heardIn = this.spy === 'in' || this.spy === 'both' ? applyGain(source.inFrame8k(), this.#gain.in) : null;
    const heardOut = this.spy === 'out' || this.spy === 'both' ? applyGain(source.lastOut8k(), this.#gain.out) : null;
    if (heardIn === null) return heardOut;
    if (heardOut === null) return heardIn;
    return mixAll([heardIn, heardOut], FRAME_SAMPLES);
  }

  writeFrame(pcm: Int16Array, rateHz: number): void {
    if (rateHz !== 8000) throw new RangeError(`snoop frames are 8000 Hz, got ${rateHz}`);
    const source = this.#source;
    if (source === null) return;
    const copy = pcm.slice();
    if (this.whisper === 'in' || this.whisper === 'both') source.whisperIn = copy;
    if (this.whisper === 'out' || this.whisper === 'both') source.whisperOut = copy;
  }

  startTalkspurt(): void {
    // No RTP stream of its own: the source's stream carries whisper audio.
  }

  close(): void {
    this.detach();
  }
}
