/**
 * SIP metrics from the transports' message observers and the transaction counters: requests by
 * method, responses by status, each by direction; retransmissions; transactions in progress.
 */
import { observeSipMessages, startLineOf, transactionStats, transactionsInProgress } from '@switchboard/signalling';
import { Counter, Gauge, type Registry } from 'prom-client';

export function registerSipMetrics(registry: Registry): () => void {
  const requests = new Counter({
    name: 'switchboard_sip_requests_total',
    help: 'SIP requests by method and direction (received, sent), retransmissions included',
    labelNames: ['method', 'direction'],
    registers: [registry],
  });
  const responses = new Counter({
    name: 'switchboard_sip_responses_total',
    help: 'SIP responses by status code and direction (received, sent), retransmissions included',
    labelNames: ['status', 'direction'],
    registers: [registry],
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
    if ('method' in start) requests.inc({ method: start.method, direction: message.direction });
    else responses.inc({ status: String(start.status), direction: message.direction });
  });
}
