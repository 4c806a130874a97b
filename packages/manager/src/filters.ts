/**
 * Event filters of a user (`eventfilter` in manager.conf, the `Filter` action): regular
 * expressions matched against the whole event text; a leading `!` makes one exclude. With none,
 * everything passes; with includes only, an event must match one; with excludes only, it must
 * match none; with both, it must match an include and no exclude.
 */
export class EventFilters {
  readonly #include: RegExp[] = [];
  readonly #exclude: RegExp[] = [];

  constructor(filters: readonly string[] = []) {
    for (const filter of filters) this.add(filter);
  }

  /** Throws a SyntaxError for an invalid expression. */
  add(filter: string): void {
    if (filter.startsWith('!')) this.#exclude.push(new RegExp(filter.slice(1)));
    else this.#include.push(new RegExp(filter));
  }

  get size(): number {
    return this.#include.length + this.#exclude.length;
  }

  passes(eventText: string): boolean {
    if (this.#include.length > 0 && !this.#include.some((re) => re.test(eventText))) return false;
    return !this.#exclude.some((re) => re.test(eventText));
  }
}
