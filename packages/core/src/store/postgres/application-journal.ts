/**
 * The applications' event journals shared by the nodes of a cluster (ApplicationJournalStore).
 *
 * One row per application in application_journal_heads holds the last number given; a batch of
 * events takes its numbers by adding its size to it (the row lock orders concurrent writers) and is
 * stored in the same statement, which also drops what is beyond resume_max_events or older than
 * resume_window. One round trip and one transaction per batch, whatever its size:
 *
 *   head += n ─► INSERT n rows (head-n+1 … head) ─► DELETE rows beyond the limits ─► first number
 */
import type pg from 'pg';
import type { ApplicationJournalStore, JournalLimits, JournalOrigin, SharedJournalEntry, SharedJournalSlice } from '../types.js';

const APPEND = `WITH head AS (
    INSERT INTO application_journal_heads (application, last_seq) VALUES ($1, $2::bigint)
    ON CONFLICT (application) DO UPDATE SET last_seq = application_journal_heads.last_seq + $2::bigint
    RETURNING last_seq
  ), stored AS (
    INSERT INTO application_journal (application, seq, at, event, origin_run, origin_seq)
    SELECT $1, head.last_seq - $2::bigint + e.ord, $3, e.event, e.run, e.oseq
    FROM head, unnest($4::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS e(event, run, oseq, ord)
  ), trimmed AS (
    -- Numbers grow with time, so what is too old is a prefix: found from the first recent row (an
    -- index range, not a scan of the whole journal). No recent row: all but this batch are old.
    DELETE FROM application_journal j USING head
    WHERE j.application = $1 AND j.seq <= GREATEST(
      head.last_seq - $5::bigint,
      COALESCE((SELECT min(seq) FROM application_journal WHERE application = $1 AND at >= $6::bigint) - 1, head.last_seq - $2::bigint)
    )
  )
  SELECT last_seq - $2::bigint + 1 AS first FROM head`;

/** One statement, so the kept events, the first kept and the head are of one snapshot. */
const SINCE = `SELECT h.last_seq,
    (SELECT min(seq) FROM application_journal WHERE application = $1) AS first_kept,
    (SELECT json_agg(json_build_object('s', seq, 'e', event) ORDER BY seq) FROM application_journal WHERE application = $1 AND seq > $2) AS entries
  FROM application_journal_heads h WHERE h.application = $1`;

export class PostgresApplicationJournal implements ApplicationJournalStore {
  readonly #db: Pick<pg.Pool, 'query'>;

  constructor(db: Pick<pg.Pool, 'query'>) {
    this.#db = db;
  }

  async append(
    application: string,
    events: readonly Readonly<Record<string, unknown>>[],
    limits: JournalLimits,
    origins: readonly (JournalOrigin | undefined)[] = [],
  ): Promise<number> {
    const now = Date.now();
    const { rows } = await this.#db.query<{ first: string }>(APPEND, [
      application,
      events.length,
      now,
      events.map((event) => JSON.stringify(event)),
      limits.maxEvents,
      now - limits.windowMs,
      events.map((_, i) => origins[i]?.run ?? null),
      events.map((_, i) => origins[i]?.seq ?? null),
    ]);
    return Number(rows[0]?.first);
  }

  async since(application: string, after: number): Promise<SharedJournalSlice> {
    const { rows } = await this.#db.query<{ last_seq: string; first_kept: string | null; entries: { s: number; e: string }[] | null }>(
      SINCE,
      [application, after],
    );
    const row = rows[0];
    if (!row) return { entries: [], droppedThrough: 0, last: 0 };
    const last = Number(row.last_seq);
    const entries: SharedJournalEntry[] = (row.entries ?? []).map(({ s, e }) => ({
      sequence: Number(s),
      event: JSON.parse(e) as Record<string, unknown>,
    }));
    const droppedThrough = row.first_kept === null ? last : Number(row.first_kept) - 1;
    return { entries, droppedThrough, last };
  }

  async head(application: string): Promise<number | undefined> {
    const { rows } = await this.#db.query<{ last_seq: string }>('SELECT last_seq FROM application_journal_heads WHERE application = $1', [
      application,
    ]);
    const row = rows[0];
    return row === undefined ? undefined : Number(row.last_seq);
  }

  async lastOrigin(application: string, run: string): Promise<number> {
    const { rows } = await this.#db.query<{ last: string | null }>(
      'SELECT max(origin_seq) AS last FROM application_journal WHERE application = $1 AND origin_run = $2',
      [application, run],
    );
    return Number(rows[0]?.last ?? 0);
  }

  async drop(application: string): Promise<void> {
    await this.#db.query('DELETE FROM application_journal WHERE application = $1', [application]);
    await this.#db.query('DELETE FROM application_journal_heads WHERE application = $1', [application]);
  }
}
