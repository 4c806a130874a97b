/**
 * SIP metrics from the transports' message observers and the transaction counters: requests by
 * method, responses by status, each by direction; retransmissions; transactions in progress; datagrams
 * the native SIP sockets received but dropped.
 */
import {
  droppedSipDatagrams,
  isKnownMethod,
  observeSipMessages,
  type SipMessageDirection,
  startLineOf,
  transactionStats,
  transactionsInProgress,
} from '@switchboard/signalling';
import { Counter, Gauge, type Registry } from 'prom-client';

/** A method outside RFC 3261 and its extensions is counted under this one name, so no peer can grow the label set. */
const OTHER_METHOD = 'OTHER';

/**
 * Messages counted per direction and label, handed to prom-client when it is scraped: a labelled
 * `inc()` hashes its labels, and this runs for every datagram sent or received.
 */
class Tally<L> {
  readonly #counts: Record<SipMessageDirection, Map<L, number>> = { sent: new Map(), received: new Map() };

  add(direction: SipMessageDirection, label: L): void {
    const counts = this.#counts[direction];
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }

  /** Adds what was counted since the last scrape to `counter` and starts again. */
  drainInto(counter: Counter<string>, labelName: string): void {
    for (const direction of ['sent', 'received'] as const) {
      const counts = this.#counts[direction];
      for (const [label, n] of counts) counter.inc({ [labelName]: String(label), direction }, n);
      counts.clear();
    }
  }
}

export function registerSipMetrics(registry: Registry): () => void {
  const requestTally = new Tally<string>();
  const responseTally = new Tally<number>();
  new Counter({
    name: 'switchboard_sip_requests_total',
    help: 'SIP requests by method (OTHER for an unknown one) and direction (received, sent), retransmissions included',
    labelNames: ['method', 'direction'],
    registers: [registry],
    collect() {
      requestTally.drainInto(this, 'method');
    },
  });
  new Counter({
    name: 'switchboard_sip_responses_total',
    help: 'SIP responses by status code and direction (received, sent), retransmissions included',
    labelNames: ['status', 'direction'],
    registers: [registry],
    collect() {
      responseTally.drainInto(this, 'status');
    },
  });
  let seen = { sent: 0, received: 0 };
  new Counter({
    name: 'switchboard_sip_retransmissions_total',
    help: 'SIP retransmissions: sent (our Timer A/E/G fired) and received (a request matching a live server transaction)',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      const now = { sent: transactionStats.retransmissionsSent, received: transactionStats.retransmissionsReceived };
      this.inc({ direction: 'sent' }, Math.max(0, now.sent - seen.sent));
      this.inc({ direction: 'received' }, Math.max(0, now.received - seen.received));
      seen = now;
    },
  });
  let droppedSeen = { inboundQueue: 0, receiveBuffer: 0 };
  new Counter({
    name: 'switchboard_sip_datagrams_dropped_total',
    help: "SIP datagrams received but dropped (native UDP socket): inbound_queue (the event loop was behind), receive_buffer (the kernel's buffer was full)",
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const now = droppedSipDatagrams();
      this.inc({ reason: 'inbound_queue' }, Math.max(0, now.inboundQueue - droppedSeen.inboundQueue));
      // The kernel's count is 32 bits and wraps.
      this.inc({ reason: 'receive_buffer' }, (now.receiveBuffer - droppedSeen.receiveBuffer) >>> 0);
      droppedSeen = now;
    },
  });
  new Gauge({
    name: 'switchboard_sip_transactions',
    help: 'SIP transactions in progress (finished UDP server transactions linger 32 s for retransmissions)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const counts = transactionsInProgress();
      this.set({ kind: 'server' }, counts.server);
      this.set({ kind: 'client' }, counts.client);
    },
  });
  return observeSipMessages((message) => {
    const start = startLineOf(message.data);
    if (start === undefined) return;
    if ('method' in start) requestTally.add(message.direction, isKnownMethod(start.method) ? start.method : OTHER_METHOD);
    else responseTally.add(message.direction, start.status);
  });
}
