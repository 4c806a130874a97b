/**
 * Mixing members that run at different rates (8 kHz G.711, 16 kHz G.722, 48 kHz Opus) without
 * resampling each member. Members are grouped by rate; each group's sum is taken at its own rate
 * and converted once per tick to every other rate that has listeners. A listener hears its own
 * group's sum minus itself (exact minus-one, at its own rate) plus the other groups' converted
 * sums plus the bridge's media. So a G.722 listener hears the other G.722 members wideband, a
 * G.711 listener hears everyone band-limited to its 8 kHz, and the cost is one resampler per rate
 * pair, however many members there are; members of a single rate cost what plain mixing costs.
 *
 * Converters (streaming resamplers, dsp/resampler.ts) keep their history from tick to tick; one
 * that a tick did not use is dropped, so a rate pair that comes back starts from silence.
 */
import { frameSamplesAt, rateOfFrame } from '../dsp/rate-converter.js';
import { type ResampleRate, Resampler } from '../dsp/resampler.js';
import { clip16 } from './mixer.js';

export interface RateMixInput {
  /** This tick's audio (null: silence or muted), at `rate`. */
  frame: Int16Array | null;
  rate: ResampleRate;
  /** Heard by the listeners (every member of a mixing bridge; the announcers of a holding one). */
  source: boolean;
  /** Gets an output (every member of a mixing bridge; the participants of a holding one). */
  listener: boolean;
}

/** Bridge media everyone hears: a named stream (its converters are kept per name) at any rate. */
export interface RateMixMedia {
  name: string;
  frame: Int16Array;
}

export interface RateMixResult {
  /** Per input: a frame at its rate for a listener, null otherwise. */
  outputs: Array<Int16Array | null>;
  /** Every input (sources or not) and the media, at each of the `fullRates` asked for; none when nothing made a sound. */
  full: Map<ResampleRate, Int16Array>;
}

function sumOf(length: number): Int32Array {
  return new Int32Array(length);
}

function clipped(sum: Int32Array): Int16Array {
  const out = new Int16Array(sum.length);
  for (let i = 0; i < sum.length; i += 1) out[i] = clip16(sum[i]);
  return out;
}

function addInto(sum: Int32Array, frame: Int16Array): void {
  const n = Math.min(sum.length, frame.length);
  for (let i = 0; i < n; i += 1) sum[i] += frame[i];
}

export class RateMixer {
  readonly #paths = new Map<string, Resampler>();
  /** This tick's converted frames by path: a path converts its stream once per tick, however often asked. */
  #converted = new Map<string, Int16Array>();

  /** `frame` (at its own rate) at `to`, through the path named `name` for that pair. */
  #convert(name: string, frame: Int16Array, to: ResampleRate): Int16Array {
    const from = rateOfFrame(frame);
    if (from === to) return frame;
    const key = `${name}:${from}>${to}`;
    const done = this.#converted.get(key);
    if (done !== undefined) return done;
    let path = this.#paths.get(key);
    if (path === undefined) {
      path = new Resampler(from, to);
      this.#paths.set(key, path);
    }
    const out = path.process(frame);
    this.#converted.set(key, out);
    return out;
  }

  /** `fullRates`: the rates the full mix is wanted at (for recordings); empty for none. */
  mix(inputs: readonly RateMixInput[], media: readonly RateMixMedia[], fullRates: readonly ResampleRate[] = []): RateMixResult {
    this.#converted = new Map();
    // Group sums at their own rates: of the sources (what listeners hear), and of everyone (recordings).
    const sources = new Map<ResampleRate, Int32Array>();
    const everyone = new Map<ResampleRate, Int32Array>();
    let sound = media.length > 0;
    for (const { frame, rate, source } of inputs) {
      if (source && !sources.has(rate)) sources.set(rate, sumOf(frameSamplesAt(rate)));
      if (frame === null) continue;
      sound = true;
      if (source) addInto(sources.get(rate) as Int32Array, frame);
      if (fullRates.length > 0) {
        let all = everyone.get(rate);
        if (all === undefined) {
          all = sumOf(frameSamplesAt(rate));
          everyone.set(rate, all);
        }
        addInto(all, frame);
      }
    }
    // What a listener at `rate` hears besides its own group: the other groups, converted, and the media.
    const heardAt = new Map<ResampleRate, Int32Array>();
    const sourceFrames = new Map<ResampleRate, Int16Array>();
    const around = (rate: ResampleRate): Int32Array => {
      let common = heardAt.get(rate);
      if (common !== undefined) return common;
      common = sumOf(frameSamplesAt(rate));
      for (const [groupRate, sum] of sources) {
        if (groupRate === rate) continue;
        let frame = sourceFrames.get(groupRate);
        if (frame === undefined) {
          frame = clipped(sum);
          sourceFrames.set(groupRate, frame);
        }
        addInto(common, this.#convert('group', frame, rate));
      }
      for (const item of media) addInto(common, this.#convert(item.name, item.frame, rate));
      heardAt.set(rate, common);
      return common;
    };
    const outputs = inputs.map(({ frame, rate, source, listener }) => {
      if (!listener) return null;
      const common = around(rate);
      const own = sources.get(rate);
      const out = new Int16Array(common.length);
      for (let i = 0; i < out.length; i += 1) {
        const mine = source && frame !== null ? frame[i] : 0;
        out[i] = clip16(common[i] + (own === undefined ? 0 : own[i]) - mine);
      }
      return out;
    });
    const full = new Map<ResampleRate, Int16Array>();
    if (sound) {
      const everyoneFrames = new Map([...everyone].map(([rate, sum]) => [rate, clipped(sum)]));
      for (const fullRate of fullRates) {
        const total = sumOf(frameSamplesAt(fullRate));
        for (const frame of everyoneFrames.values()) addInto(total, this.#convert('everyone', frame, fullRate));
        for (const item of media) addInto(total, this.#convert(item.name, item.frame, fullRate));
        full.set(fullRate, clipped(total));
      }
    }
    for (const key of this.#paths.keys()) if (!this.#converted.has(key)) this.#paths.delete(key);
    return { outputs, full };
  }
}
