/**
 * The fuzzing engine every package's targets run on (`npm run fuzz`, and a bounded smoke run in
 * the tests). Two generators share the time budget of a target:
 * - fast-check properties over the target's grammar-aware arbitrary (structured inputs that get
 *   past the first checks), shrunk to a small counterexample on failure;
 * - a mutation fuzzer over the target's seeds and regression fixtures (bit flips, byte and token
 *   insertions, deletions, duplications, splices of two seeds), which finds what a grammar misses.
 * A target's `check` runs one input and throws only for a bug: expected refusals (a parse error,
 * a 400) are the target's to catch. A failure carries the input, so it can become a fixture.
 */
import fc from 'fast-check';

export type FuzzInput = Buffer;

export interface FuzzTarget {
  /** `package/what`, used in reports and fixture file names. */
  readonly name: string;
  /** Well-formed inputs to mutate. */
  readonly seeds: readonly FuzzInput[];
  /** Inputs that once broke something: always run first, then mutated like the seeds. */
  readonly regressions: readonly FuzzInput[];
  /** Tokens the mutator inserts (separators, header names, numbers at type boundaries). */
  readonly dictionary?: readonly string[];
  /** Structured inputs; when absent only mutation is used. */
  readonly arbitrary?: fc.Arbitrary<FuzzInput>;
  /** Runs one input; throws only on a bug. */
  check(input: FuzzInput): void;
}

export class FuzzFailure extends Error {
  readonly target: string;
  readonly input: FuzzInput;

  constructor(target: string, input: FuzzInput, cause: unknown) {
    super(`${target} failed on ${JSON.stringify(input.toString('latin1').slice(0, 300))}: ${String(cause)}`, { cause });
    this.name = 'FuzzFailure';
    this.target = target;
    this.input = input;
  }
}

export interface FuzzRunOptions {
  /** Time budget for this target (ms). */
  timeMs: number;
  /** PRNG seed (for reproducing a run). */
  seed?: number;
}

export interface FuzzRunStats {
  target: string;
  executions: number;
  ms: number;
}

/** Runs a target until its budget is spent; throws FuzzFailure on the first bug found. */
export function runFuzzTarget(target: FuzzTarget, options: FuzzRunOptions): FuzzRunStats {
  const started = Date.now();
  const deadline = started + options.timeMs;
  let executions = 0;
  const run = (input: FuzzInput): void => {
    executions++;
    try {
      target.check(input);
    } catch (err) {
      throw new FuzzFailure(target.name, input, err);
    }
  };
  for (const input of target.regressions) run(input);
  const random = new Mulberry32(options.seed ?? (Date.now() ^ 0x5eed) >>> 0);
  const corpus = [...target.seeds, ...target.regressions];
  const dictionary = (target.dictionary ?? []).map((token) => Buffer.from(token, 'latin1'));
  while (Date.now() < deadline) {
    if (target.arbitrary !== undefined) {
      const failure = fc.check(
        fc.property(target.arbitrary, (input) => {
          target.check(input);
        }),
        { numRuns: 200, seed: random.next() | 0 },
      );
      executions += failure.numRuns;
      if (failure.failed && failure.counterexample !== null) {
        throw new FuzzFailure(target.name, failure.counterexample[0], failure.errorInstance);
      }
    }
    for (let i = 0; i < 500 && corpus.length > 0; i++) run(mutate(corpus, dictionary, random));
  }
  return { target: target.name, executions, ms: Date.now() - started };
}

/** A small, fast, seedable PRNG (Mulberry32), so a failing run can be repeated. */
class Mulberry32 {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  below(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
}

const INTERESTING_BYTES = [0x00, 0x0a, 0x0d, 0x20, 0x09, 0x22, 0x3a, 0x3b, 0x3c, 0x3e, 0x2c, 0x3d, 0x25, 0x7f, 0xff, 0x80, 0x5c, 0x2f];

function mutate(corpus: readonly FuzzInput[], dictionary: readonly Buffer[], random: Mulberry32): FuzzInput {
  let data = Buffer.from(corpus[random.below(corpus.length)]);
  const rounds = 1 + random.below(4);
  for (let r = 0; r < rounds; r++) {
    const at = random.below(data.length + 1);
    switch (random.below(8)) {
      case 0:
        if (data.length > 0) data[Math.min(at, data.length - 1)] ^= 1 << random.below(8);
        break;
      case 1:
        data = Buffer.concat([
          data.subarray(0, at),
          Buffer.from([INTERESTING_BYTES[random.below(INTERESTING_BYTES.length)]]),
          data.subarray(at),
        ]);
        break;
      case 2:
        data = Buffer.concat([data.subarray(0, at), data.subarray(Math.min(data.length, at + 1 + random.below(16)))]);
        break;
      case 3:
        if (dictionary.length > 0)
          data = Buffer.concat([data.subarray(0, at), dictionary[random.below(dictionary.length)], data.subarray(at)]);
        break;
      case 4: {
        // Duplicate a slice: long lines, many headers, repeated parameters.
        const length = 1 + random.below(64);
        const slice = data.subarray(at, at + length);
        const times = 1 + random.below(random.below(2) === 0 ? 4 : 200);
        data = Buffer.concat([data.subarray(0, at), ...Array<Buffer>(times).fill(slice), data.subarray(at)]);
        break;
      }
      case 5: {
        // Splice with another input.
        const other = corpus[random.below(corpus.length)];
        data = Buffer.concat([data.subarray(0, at), other.subarray(random.below(other.length + 1))]);
        break;
      }
      case 6:
        data = data.subarray(0, at);
        break;
      default:
        if (data.length > 0) data[Math.min(at, data.length - 1)] = INTERESTING_BYTES[random.below(INTERESTING_BYTES.length)];
    }
    if (data.length > 70_000) data = data.subarray(0, 70_000);
  }
  return data;
}
