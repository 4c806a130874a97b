/**
 * Process-wide transaction counters for the metrics endpoint: retransmissions in both directions
 * and the transactions in progress of every live transaction layer. Plain numbers, read when
 * scraped; nothing here allocates per message.
 */
export interface TransactionCounts {
  server: number;
  client: number;
}

export const transactionStats = {
  /** Retransmission timers that fired (Timer A, E, G: RFC 3261 §17.1.1.2, §17.1.2.2, §17.2.1). */
  retransmissionsSent: 0,
  /** Requests that matched an existing server transaction (a peer's retransmission). */
  retransmissionsReceived: 0,
};

const layers = new Set<() => TransactionCounts>();

/** A transaction layer registers its counts while it lives; returns the removal. */
export function registerTransactionCounts(counts: () => TransactionCounts): () => void {
  layers.add(counts);
  return () => layers.delete(counts);
}

/** Transactions in progress over every live layer. */
export function transactionsInProgress(): TransactionCounts {
  const total = { server: 0, client: 0 };
  for (const counts of layers) {
    const c = counts();
    total.server += c.server;
    total.client += c.client;
  }
  return total;
}
