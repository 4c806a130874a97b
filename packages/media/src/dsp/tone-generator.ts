/**
 * Call-progress tones from `ToneSegment`s (indications.conf steps), as frames at any engine rate,
 * plus the parser for the indications.conf pattern syntax.
 *
 * Each frequency keeps its own phase accumulator, carried from frame to frame, so a steady tone
 * has no discontinuity at frame boundaries. `f1*f2` is f1 amplitude-modulated by f2. A step of
 * duration 0 lasts forever. When the pattern repeats, steps marked `once` (`!`) play only on the
 * first pass; when it does not, the generator ends after the last step.
 */

export interface ToneStep {
  frequencies: number[];
  modulated?: boolean;
  durationMs: number;
  once?: boolean;
}

export class TonePatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(`invalid tone pattern '${pattern}': ${reason}`);
    this.name = 'TonePatternError';
  }
}

/** Highest frequency accepted in a pattern: above it the 8 kHz rate cannot carry the tone. */
const MAX_FREQUENCY = 20000;

function parseFrequency(pattern: string, text: string): number {
  // `M<n>`: a MIDI note number, which indications.conf also accepts (A4 = note 69 = 440 Hz).
  if (/^M\d+$/i.test(text)) return 440 * 2 ** ((Number(text.slice(1)) - 69) / 12);
  if (!/^\d+(\.\d+)?$/.test(text)) throw new TonePatternError(pattern, `'${text}' is not a frequency`);
  const value = Number(text);
  if (value > MAX_FREQUENCY) throw new TonePatternError(pattern, `${value} Hz is above ${MAX_FREQUENCY} Hz`);
  return value;
}

/**
 * Parses `!350+440/100,!0/100,350+440`, `425/500,0/500`, `480*620/…`: comma-separated steps,
 * each `[!]freq[+freq…|*freq][/ms]`; a step without `/ms` lasts forever; frequency 0 is silence.
 */
export function parseTonePattern(pattern: string): ToneStep[] {
  const text = pattern.trim();
  if (text === '') throw new TonePatternError(pattern, 'it is empty');
  return text.split(',').map((raw, index) => {
    let part = raw.trim();
    if (part === '') throw new TonePatternError(pattern, `step ${index + 1} is empty`);
    const once = part.startsWith('!');
    if (once) part = part.slice(1).trim();
    const [spec, duration, extra] = part.split('/');
    if (extra !== undefined) throw new TonePatternError(pattern, `step '${raw.trim()}' has more than one '/'`);
    let durationMs = 0;
    if (duration !== undefined) {
      if (!/^\d+$/.test(duration.trim()))
        throw new TonePatternError(pattern, `'${duration}' in step '${raw.trim()}' is not a duration in ms`);
      durationMs = Number(duration.trim());
    }
    const modulated = spec.includes('*');
    if (modulated && spec.includes('+')) throw new TonePatternError(pattern, `step '${raw.trim()}' mixes '+' and '*'`);
    const names = spec.split(modulated ? '*' : '+').map((f) => f.trim());
    if (modulated && names.length !== 2) throw new TonePatternError(pattern, `modulation '${spec}' needs exactly two frequencies`);
    const frequencies = names.map((name) => parseFrequency(pattern, name)).filter((f) => f > 0);
    const step: ToneStep = { frequencies, durationMs };
    if (modulated && frequencies.length === 2) step.modulated = true;
    if (once) step.once = true;
    return step;
  });
}

export interface ToneGeneratorOptions {
  sampleRate: number;
  /** Loop the pattern (skipping `once` steps after the first pass). */
  repeat: boolean;
  /** Peak amplitude of each frequency (two summed frequencies peak at twice this). */
  amplitude?: number;
}

/** Amplitude modulation depth of `f1*f2`. */
const MODULATION_DEPTH = 0.9;

export class ToneGenerator {
  readonly #steps: readonly ToneStep[];
  readonly #rate: number;
  readonly #repeat: boolean;
  readonly #amplitude: number;
  #index = 0;
  /** Samples produced of the current step. */
  #offset = 0;
  #firstPass = true;
  #done: boolean;
  /** Phase of each frequency of the current step, in cycles (carried across frames). */
  #phases: number[] = [];

  constructor(steps: readonly ToneStep[], options: ToneGeneratorOptions) {
    this.#steps = steps;
    this.#rate = options.sampleRate;
    this.#repeat = options.repeat;
    this.#amplitude = options.amplitude ?? 8000;
    // Nothing to play, or a looping pattern made only of `once` steps after its first pass.
    this.#done = steps.length === 0;
    this.#phases = this.#done ? [] : steps[0].frequencies.map(() => 0);
  }

  get done(): boolean {
    return this.#done;
  }

  /** The next `samples` samples (a 20 ms frame by default); null once the pattern has ended. */
  next(samples = this.#rate / 50): Int16Array | null {
    if (this.#done) return null;
    const out = new Int16Array(samples);
    for (let i = 0; i < samples && !this.#done; i += 1) out[i] = this.#sample();
    return out;
  }

  #sample(): number {
    const step = this.#steps[this.#index];
    const freqs = step.frequencies;
    let value = 0;
    if (step.modulated === true) {
      const carrier = Math.sin(2 * Math.PI * this.#phases[0]);
      const modulator = Math.sin(2 * Math.PI * this.#phases[1]);
      value = this.#amplitude * carrier * (1 + MODULATION_DEPTH * modulator) * 0.5;
    } else {
      for (let f = 0; f < freqs.length; f += 1) value += this.#amplitude * Math.sin(2 * Math.PI * this.#phases[f]);
    }
    for (let f = 0; f < freqs.length; f += 1) {
      const phase = this.#phases[f] + freqs[f] / this.#rate;
      this.#phases[f] = phase - Math.floor(phase);
    }
    this.#offset += 1;
    if (step.durationMs > 0 && this.#offset >= Math.round((step.durationMs * this.#rate) / 1000)) this.#advance();
    return value > 32767 ? 32767 : value < -32768 ? -32768 : Math.round(value);
  }

  #advance(): void {
    this.#offset = 0;
    for (let tries = 0; tries <= this.#steps.length; tries += 1) {
      this.#index += 1;
      if (this.#index >= this.#steps.length) {
        if (!this.#repeat) {
          this.#done = true;
          return;
        }
        this.#index = 0;
        this.#firstPass = false;
      }
      if (this.#firstPass || this.#steps[this.#index].once !== true) {
        this.#phases = this.#steps[this.#index].frequencies.map(() => 0);
        return;
      }
    }
    this.#done = true; // every step is `once` and the first pass is over
  }
}
