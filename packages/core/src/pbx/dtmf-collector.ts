/**
 * DTMF typed while a channel is in the dialplan, kept per channel until an application reads it:
 * Background() stops its prompt at the first digit and leaves it for WaitExten(); Read() gathers
 * up to its maximum. Digits come from ChannelDtmfReceived (SIP INFO or RFC 4733 events alike).
 * A channel's buffer exists only while the runner holds it, so idle channels cost nothing.
 */

type Waiter = (digit: string | undefined) => void;

/** Digits kept per channel before the oldest are dropped (a phone leaning on a key). */
const MAX_BUFFERED_DIGITS = 64;

export class DtmfCollector {
  readonly #buffers = new Map<string, string[]>();
  readonly #waiters = new Map<string, Waiter>();

  /** Starts collecting for a channel (the runner calls it when the channel enters the dialplan). */
  attach(channelId: string): void {
    if (!this.#buffers.has(channelId)) this.#buffers.set(channelId, []);
  }

  detach(channelId: string): void {
    this.#buffers.delete(channelId);
    const waiter = this.#waiters.get(channelId);
    this.#waiters.delete(channelId);
    waiter?.(undefined);
  }

  /** A digit arrived on a channel. */
  push(channelId: string, digit: string): void {
    const buffer = this.#buffers.get(channelId);
    if (buffer === undefined) return;
    const waiter = this.#waiters.get(channelId);
    if (waiter !== undefined) {
      this.#waiters.delete(channelId);
      waiter(digit);
      return;
    }
    buffer.push(digit);
    if (buffer.length > MAX_BUFFERED_DIGITS) buffer.shift();
  }

  /** Takes the oldest buffered digit, if any. */
  take(channelId: string): string | undefined {
    return this.#buffers.get(channelId)?.shift();
  }

  hasBuffered(channelId: string): boolean {
    return (this.#buffers.get(channelId)?.length ?? 0) > 0;
  }

  clear(channelId: string): void {
    const buffer = this.#buffers.get(channelId);
    if (buffer !== undefined) buffer.length = 0;
  }

  /**
   * The next digit: a buffered one at once, else the first to arrive within `timeoutMs`
   * (undefined on timeout, on hangup, or when `signal` aborts).
   */
  next(channelId: string, timeoutMs: number, signal?: AbortSignal): Promise<string | undefined> {
    const buffered = this.take(channelId);
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (!this.#buffers.has(channelId) || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const finish = (digit: string | undefined) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.#waiters.get(channelId) === finish) this.#waiters.delete(channelId);
        resolve(digit);
      };
      const onAbort = () => finish(undefined);
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.get(channelId)?.(undefined);
      this.#waiters.set(channelId, finish);
    });
  }
}
