/**
 * The overload control against a model of the server it protects, in simulated time: a single
 * thread that works off one FIFO queue of datagrams, fed by the call flow of bench/sipp-overload.mjs
 * (alice: INVITE, 401, ACK, INVITE with credentials; Dial() to bob: 180, 200; ACK and BYE at once;
 * bob's 200 to the BYE ends the call). Senders retransmit a request still unread after 500 ms,
 * 1.5 s and 3.5 s (RFC 3261 Timer A/E), and each copy costs the server the same work again.
 * A probe datagram joins the queue every 10 ms as the transport's does, and the loop's utilization
 * is reported every 100 ms, so the control sees what it sees in the real process.
 *
 * The bench on the real server is the proof; this model makes the controller's behaviour
 * repeatable on a shared machine, where the bench's figures vary by a third from run to run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverloadControl, type OverloadLimits } from './overload-control.js';

/** Main-thread work per datagram (ms): about 250 calls/s of this flow, as measured on the 2-core machine. */
const MESSAGE_MS = 0.4;
/** Dial(): the INVITE with credentials also creates and calls bob's leg. */
const DIAL_EXTRA_MS = 0.8;
/** A new INVITE refused with 503 before any transaction exists. */
const SHED_MS = 0.08;
const NETWORK_MS = 0.1;
const RETRANSMIT_AFTER_MS = [500, 1500, 3500];
const CALL_MS = 9 * MESSAGE_MS + DIAL_EXTRA_MS;
const CAPACITY = 1000 / CALL_MS;

type Step = 'invite' | 'ack401' | 'invite-auth' | 'ringing' | 'ok' | 'ack' | 'bye' | 'bye-ok';

interface Datagram {
  at: number;
  call: number;
  step: Step | 'probe';
  /** A request its sender retransmits until the server reads it. */
  request: boolean;
}

/** What each step sends on (the peers answer after NETWORK_MS). */
const NEXT: Record<Step, Step[]> = {
  invite: ['ack401', 'invite-auth'],
  ack401: [],
  'invite-auth': ['ringing', 'ok'],
  ringing: [],
  ok: ['ack', 'bye'],
  ack: [],
  bye: ['bye-ok'],
  'bye-ok': [],
};
const REQUESTS = new Set<Step>(['invite', 'invite-auth', 'bye']);

/** Datagrams in flight, earliest first (a binary heap; ties keep no particular order). */
class ArrivalHeap {
  readonly #items: Datagram[] = [];

  peek(): Datagram | undefined {
    return this.#items[0];
  }

  push(item: Datagram): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as Datagram).at <= item.at) break;
      items[i] = items[parent] as Datagram;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Datagram | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] as Datagram).at < (items[left] as Datagram).at ? right : left;
      if ((items[child] as Datagram).at >= last.at) break;
      items[i] = items[child] as Datagram;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * Offers `rate` calls/s for `seconds`; returns the calls completed per second of offered time.
 * `coldMs`: the server starts cold (JIT, caches) and each message costs 2.5× at first, falling to
 * the warm cost over that time — the load jump that found the control too slow on the real server.
 */
function simulate(rate: number, seconds: number, limits: Partial<OverloadLimits>, coldMs = 0): { goodput: number; refused: number } {
  let now = 0;
  const control = new OverloadControl(limits, { now: () => now });
  const arrivals = new ArrivalHeap();
  const arrive = (datagram: Datagram) => arrivals.push(datagram);
  const end = seconds * 1000;
  for (let call = 0; call < rate * seconds; call++) arrive({ at: (call * 1000) / rate, call, step: 'invite', request: true });
  for (let at = 0; at < end + 5000; at += 10) arrive({ at, call: -1, step: 'probe', request: false });

  const read = new Set<string>();
  const retransmits: Datagram[] = [];
  let completed = 0;
  let refused = 0;
  let busyInWindow = 0;
  let windowStart = 0;
  let inSetup = 0;
  const queue: Datagram[] = [];
  let head = 0;

  while (now < end + 5000) {
    // Everything that has arrived by now joins the queue, retransmissions of unread requests included.
    while ((arrivals.peek()?.at ?? Number.POSITIVE_INFINITY) <= now) {
      const datagram = arrivals.pop() as Datagram;
      queue.push(datagram);
      if (datagram.request) {
        for (const after of RETRANSMIT_AFTER_MS) retransmits.push({ ...datagram, at: datagram.at + after });
      }
    }
    for (let i = retransmits.length - 1; i >= 0; i--) {
      const copy = retransmits[i] as Datagram;
      if (copy.at > now) continue;
      retransmits.splice(i, 1);
      if (!read.has(`${copy.call}:${copy.step}`)) queue.push({ ...copy, request: false });
    }
    if (now - windowStart >= 100) {
      control.recordUtilization(busyInWindow / (now - windowStart));
      busyInWindow = 0;
      windowStart = now;
    }
    const next = queue[head];
    if (next === undefined) {
      now = Math.min(arrivals.peek()?.at ?? now + 1, now + 1);
      continue;
    }
    head++;
    if (next.step === 'probe') {
      control.recordQueueDelay(now - next.at);
      continue;
    }
    const key = `${next.call}:${next.step}`;
    if (read.has(key)) {
      // A retransmission: parsed and matched to its transaction, then dropped or answered again.
      now += MESSAGE_MS;
      busyInWindow += MESSAGE_MS;
      continue;
    }
    read.add(key);
    const cold = coldMs > 0 ? 1 + 1.5 * Math.max(0, 1 - now / coldMs) : 1;
    let cost = MESSAGE_MS * cold;
    if (next.step === 'invite' && control.shouldShed(inSetup, false, 'alice')) {
      refused++;
      cost = SHED_MS;
    } else {
      if (next.step === 'invite-auth') {
        cost += DIAL_EXTRA_MS * cold;
        inSetup++;
      }
      if (next.step === 'ok') inSetup--;
      if (next.step === 'bye-ok' && now <= end + 2000) completed++;
      for (const step of NEXT[next.step]) arrive({ at: now + cost + NETWORK_MS, call: next.call, step, request: REQUESTS.has(step) });
    }
    now += cost;
    busyInWindow += cost;
  }
  return { goodput: completed / seconds, refused };
}

describe('overload control against a model of the server', () => {
  it('completes what is offered below capacity without refusing calls', () => {
    const { goodput, refused } = simulate(CAPACITY * 0.8, 10, {});
    assert.equal(refused, 0);
    assert.ok(goodput >= CAPACITY * 0.79, `goodput ${goodput.toFixed(0)}/s of ${(CAPACITY * 0.8).toFixed(0)}/s offered`);
  });

  it('keeps at least 90 % of capacity at 1.5× and 2.5× capacity, where no control collapses', () => {
    // Without control the queue outgrows T1, every request is sent again, and calls time out.
    const uncontrolled = simulate(CAPACITY * 2.5, 10, { maxLoopLagMs: 0 });
    assert.ok(uncontrolled.goodput < CAPACITY * 0.5, `without control ${uncontrolled.goodput.toFixed(0)}/s`);
    for (const load of [1.5, 2.5]) {
      const { goodput } = simulate(CAPACITY * load, 10, {});
      assert.ok(goodput >= CAPACITY * 0.9, `${load}×: goodput ${goodput.toFixed(0)}/s, capacity ${CAPACITY.toFixed(0)}/s`);
    }
  });

  it('recovers from the jump of load onto a cold server', () => {
    const { goodput } = simulate(CAPACITY * 1.5, 10, {}, 1500);
    assert.ok(goodput >= CAPACITY * 0.9, `goodput ${goodput.toFixed(0)}/s, capacity ${CAPACITY.toFixed(0)}/s`);
  });
});
