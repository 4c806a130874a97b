/**
 * Application names unique across the nodes sharing a PostgreSQL store. A claim takes a number
 * from one sequence, so claims are totally ordered: a node loses a name only to a claim newer than
 * its own, whichever order the notifications arrive in.
 */
import type pg from 'pg';
import type { Logger } from '../../util/logger.js';
import type { ApplicationClaimStore } from '../types.js';
import type { ClusterEventListener, PostgresClusterBus } from './cluster-bus.js';
import { type RemoteChanges, STATE_CHANNEL } from './remote-changes.js';

const CLAIM = `WITH claimed AS (
    INSERT INTO application_claims (name, node, seq) VALUES ($1, $2, nextval('application_claim_seq'))
    ON CONFLICT (name) DO UPDATE SET node = excluded.node, seq = excluded.seq
    RETURNING seq
  )
  SELECT seq, pg_notify('${STATE_CHANNEL}',
    json_build_object('n', $2::text, 'c', json_build_object('kind', 'application', 'name', $1::text, 'seq', seq))::text)
  FROM claimed`;

export class PostgresApplicationClaims implements ApplicationClaimStore {
  readonly #db: Pick<pg.Pool, 'query'>;
  readonly #nodeId: string;
  readonly #log: Logger;
  /** This node's latest claim of each name, by sequence number (resolving while in flight). */
  readonly #mine = new Map<string, Promise<number>>();
  readonly #listeners = new Set<(name: string) => void>();
  readonly #bus: PostgresClusterBus;
  readonly #claimed = new Set<(name: string) => void>();

  constructor(db: Pick<pg.Pool, 'query'>, nodeId: string, changes: RemoteChanges, bus: PostgresClusterBus, log: Logger) {
    this.#db = db;
    this.#bus = bus;
    this.#nodeId = nodeId;
    this.#log = log;
    changes.onApplication((name) => {
      for (const listener of this.#claimed) listener(name);
    });
    changes.onApplication((name, seq) => {
      this.#otherClaim(name, seq).catch((err: unknown) => log.error({ err, application: name }, 'application claim check failed'));
    });
  }

  claim(name: string): Promise<void> {
    const seq = this.#db.query<{ seq: string }>(CLAIM, [name, this.#nodeId]).then(({ rows }) => Number(rows[0].seq));
    // A failed claim leaves the name to this node alone (as without a cluster); the caller logs it.
    this.#mine.set(
      name,
      seq.catch(() => 0),
    );
    return seq.then(() => undefined);
  }

  /** Gives a name up when its connection ends (a later claim elsewhere is then no replacement). */
  release(name: string): Promise<void> {
    this.#mine.delete(name);
    return this.#db.query('DELETE FROM application_claims WHERE name = $1 AND node = $2', [name, this.#nodeId]).then(() => undefined);
  }

  onClaimed(listener: (name: string) => void): () => void {
    this.#claimed.add(listener);
    return () => this.#claimed.delete(listener);
  }

  async servedElsewhere(name: string): Promise<string | undefined> {
    // A claim's node is alive while it holds its lock (postgres-store.ts): a free lock is a node that
    // is gone, and a channel entering its application fails as for one that is not registered.
    const { rows } = await this.#db.query<{ node: string; alive: boolean }>(
      'SELECT node, NOT pg_try_advisory_xact_lock(hashtextextended(node, 0)) AS alive FROM application_claims WHERE name = $1',
      [name],
    );
    const claim = rows[0];
    return claim === undefined || claim.node === this.#nodeId || !claim.alive ? undefined : claim.node;
  }

  async nodeAlive(node: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ alive: boolean }>('SELECT NOT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS alive', [
      node,
    ]);
    return rows[0]?.alive === true;
  }

  async deadClaim(name: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ alive: boolean }>(
      'SELECT NOT pg_try_advisory_xact_lock(hashtextextended(node, 0)) AS alive FROM application_claims WHERE name = $1 AND node <> $2',
      [name, this.#nodeId],
    );
    return rows[0]?.alive === false;
  }

  sendEvent(node: string, application: string, event: Readonly<Record<string, unknown>>): void {
    this.#bus.sendEvent(node, application, event);
  }

  onEvent(listener: ClusterEventListener): () => void {
    return this.#bus.onEvent(listener);
  }

  onClaimedElsewhere(listener: (name: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #otherClaim(name: string, seq: number): Promise<void> {
    const mine = this.#mine.get(name);
    if (mine === undefined || (await mine) > seq) return;
    this.#mine.delete(name);
    this.#log.info({ application: name }, 'application name claimed by another node');
    for (const listener of this.#listeners) listener(name);
  }
}
