/**
 * Recognises features.conf codes in the digits one party types during a call, as the original's
 * bridge does: a digit sequence that is exactly a code fires at once unless a longer code starts
 * with it; then it waits `featuredigittimeout` for more (the caller arms a timer and calls
 * `timeout()`). Digits that start no code are dropped (they still reach the other party: codes
 * are not absorbed).
 *
 *   idle ──digit starting a code──> collecting ──exact code, nothing longer──> fired (idle)
 *     ^                                │  │
 *     └──────── no code starts so ─────┘  └─timeout──> fired if exact, else dropped (idle)
 */
import type { FeatureName } from '@switchboard/core';

export type FeatureMatch = { kind: 'fired'; feature: FeatureName } | { kind: 'waiting' } | { kind: 'none' };

export class FeatureCodeMatcher {
  readonly #codes: ReadonlyArray<readonly [FeatureName, string]>;
  #typed = '';

  /** `codes`: the features enabled for this party with their codes (empty codes are ignored). */
  constructor(codes: ReadonlyArray<readonly [FeatureName, string]>) {
    this.#codes = codes.filter(([, code]) => code.length > 0);
  }

  get enabled(): boolean {
    return this.#codes.length > 0;
  }

  push(digit: string): FeatureMatch {
    const hadPrefix = this.#typed !== '';
    const result = this.#match(this.#typed + digit.toUpperCase());
    // A digit that breaks a sequence may itself start a code (`*` `*` `1` for `*1`).
    if (result.kind === 'none' && hadPrefix) return this.#match(digit.toUpperCase());
    return result;
  }

  /** The wait for a longer code ended: what was typed fires if it is a code of its own. */
  timeout(): FeatureName | undefined {
    const typed = this.#typed;
    this.#typed = '';
    return this.#codes.find(([, code]) => code === typed)?.[0];
  }

  #match(typed: string): FeatureMatch {
    const longer = this.#codes.some(([, code]) => code.length > typed.length && code.startsWith(typed));
    if (longer) {
      this.#typed = typed;
      return { kind: 'waiting' };
    }
    this.#typed = '';
    const exact = this.#codes.find(([, code]) => code === typed);
    return exact === undefined ? { kind: 'none' } : { kind: 'fired', feature: exact[0] };
  }
}
