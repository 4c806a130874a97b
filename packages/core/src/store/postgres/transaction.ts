import type pg from 'pg';

/** What the repositories take: the pool, or anything with its query and connect. */
export type Queryable = Pick<pg.Pool, 'query' | 'connect'>;

/** Runs `work` on one pooled connection inside BEGIN … COMMIT; any failure rolls back and is rethrown. */
export async function inTransaction<T>(db: Queryable, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
