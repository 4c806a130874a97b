/** A clock for tests: time moves only when the test advances it; due timers fire in order. */
import type { Clock } from '@switchboard/core';

interface Pending {
  id: number;
  at: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  #pending: Pending[] = [];

  constructor(start = 1_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.#nextId++, at: this.#now + Math.max(0, ms), fn };
    this.#pending.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending = this.#pending.filter((timer) => timer.id !== handle);
  }

  /** Timers not yet fired. */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: Pending | undefined;
      for (const timer of this.#pending) {
        if (timer.at <= target && (next === undefined || timer.at < next.at || (timer.at === next.at && timer.id < next.id))) {
          next = timer;
        }
      }
      if (next === undefined) break;
      this.#pending = this.#pending.filter((timer) => timer !== next);
      this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }
}
