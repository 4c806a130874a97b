/**
 * Where an event sent to another node's application came from, so none is lost when that node dies.
 *
 * A node sending an application's events to the node serving it numbers them (per run of the node)
 * and keeps those of the last RECENT_MS. The receiving node stores the number with the event in the
 * shared journal. When the receiver dies, the sender asks the journal for the last number of its
 * own that was stored and writes the kept events after it itself: those the dead node received but
 * had not stored, and those sent to it after it died, before the sender noticed.
 *
 *   node 3 ── event #41 ─► node 1 stores (…, origin node 3 run, 41) ─► application
 *   node 3 ── event #42 ─► node 1 (killed; #42 never stored)
 *   node 3: node 1 is dead; last stored origin = 41 ─► writes #42… to the journal itself
 */
import { randomUUID } from 'node:crypto';

export interface EventOrigin {
  /** The sending node's run (a new one each start, so numbers never repeat under one id). */
  readonly run: string;
  readonly seq: number;
}

/** The field an event carries between nodes (taken off before the application sees it). */
export const ORIGIN_FIELD = 'x_switchboard_origin';

/** How long a sender keeps what it sent: beyond the time to notice a dead node (a second) with room. */
const RECENT_MS = 10_000;
/** Kept per application at most (a burst longer than that in RECENT_MS is not covered). */
const MAX_RECENT = 20_000;

const origins = new WeakMap<object, EventOrigin>();

/** The origin of an event received from another node (undefined for this node's own). */
export function eventOrigin(event: object): EventOrigin | undefined {
  return origins.get(event);
}

/**
 * Takes the origin field off an event received from another node: the event without it, and a
 * function that marks the event the application is given (a copy) with that origin for the journal.
 */
export function takeOrigin(event: Record<string, unknown>): [Record<string, unknown>, (delivered: object) => void] {
  const field = event[ORIGIN_FIELD] as { run?: unknown; seq?: unknown } | undefined;
  if (field === undefined) return [event, () => undefined];
  const { [ORIGIN_FIELD]: _taken, ...rest } = event;
  const { run, seq } = field;
  if (typeof run !== 'string' || typeof seq !== 'number') return [rest, () => undefined];
  return [rest, (delivered) => origins.set(delivered, { run, seq })];
}

interface SentEvent {
  readonly seq: number;
  readonly at: number;
  readonly event: Record<string, unknown>;
}

/** What this node sent to other nodes' applications lately, numbered. */
export class RecentSends {
  readonly run = randomUUID();
  #next = 1;
  readonly #sent = new Map<string, SentEvent[]>();

  /** Numbers and keeps an event for `application`; returns it with its origin field. */
  tag(application: string, event: Record<string, unknown>): Record<string, unknown> {
    const seq = this.#next;
    this.#next += 1;
    const now = Date.now();
    let sent = this.#sent.get(application);
    if (!sent) {
      sent = [];
      this.#sent.set(application, sent);
    }
    sent.push({ seq, at: now, event });
    let drop = Math.max(0, sent.length - MAX_RECENT);
    while (drop < sent.length && (sent[drop] as SentEvent).at < now - RECENT_MS) drop += 1;
    if (drop > 0) sent.splice(0, drop);
    return { ...event, [ORIGIN_FIELD]: { run: this.run, seq } satisfies EventOrigin };
  }

  /** Takes the kept events of `application` numbered after `seq`, in order, and forgets the rest. */
  takeAfter(application: string, seq: number): Record<string, unknown>[] {
    const sent = this.#sent.get(application) ?? [];
    this.#sent.delete(application);
    return sent.filter((entry) => entry.seq > seq).map((entry) => entry.event);
  }
}
