/** Test support: an events WebSocket that collects what it receives, and waits on it. */
import assert from 'node:assert/strict';
import WebSocket from 'ws';

export type ReceivedEvent = Record<string, unknown> & { type: string; application: string; sequence?: number };

export interface Inbox {
  readonly ws: WebSocket;
  readonly seen: ReceivedEvent[];
  /** The first event (already seen or still to come) matching. */
  next(match: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Resolves once `count` events have been seen. */
  count(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function openInbox(url: string, headers: Record<string, string> = {}): Promise<Inbox> {
  const ws = new WebSocket(url, ['ari'], { headers });
  const seen: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data, isBinary) => {
    assert.equal(isBinary, false, 'events are text frames');
    seen.push(JSON.parse(String(data)) as ReceivedEvent);
    for (const waiter of [...waiters]) waiter();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const waitUntil = (done: () => boolean, timeoutMs: number, what: () => string) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const check = () => {
        if (!done()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(what()));
      }, timeoutMs);
      waiters.add(check);
    });
  return {
    ws,
    seen,
    async next(match, timeoutMs = 3000) {
      await waitUntil(
        () => seen.some(match),
        timeoutMs,
        () => `no matching event; saw ${seen.map((e) => e.type).join(', ')}`,
      );
      return seen.find(match) as ReceivedEvent;
    },
    count(count, timeoutMs = 5000) {
      return waitUntil(
        () => seen.length >= count,
        timeoutMs,
        () => `saw ${seen.length} events, expected ${count}`,
      );
    },
    close() {
      return new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
}

/** Opens a socket expecting a refusal; resolves with the HTTP status. */
export function refusedStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['ari']);
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

export async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
