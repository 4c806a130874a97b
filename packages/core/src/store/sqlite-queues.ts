/**
 * Queue members added from the dialplan (persistentmembers) and the queue log in SQLite; the
 * tables are created in place when missing, as the feature's own.
 */
import type Database from 'better-sqlite3';
import type { DynamicMemberRecord, QueueLogEntry, QueueStore } from '../pbx/apps/queue/queue-store.js';

interface MemberRow {
  queue: string;
  interface: string;
  name: string;
  state_interface: string;
  penalty: number;
  paused: number;
  paused_reason: string;
}

interface LogRow {
  time: number;
  callid: string;
  queuename: string;
  agent: string;
  event: string;
  data: string;
}

export class SqliteQueues implements QueueStore {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS queue_members (
        queue TEXT NOT NULL,
        interface TEXT NOT NULL,
        name TEXT NOT NULL,
        state_interface TEXT NOT NULL,
        penalty INTEGER NOT NULL,
        paused INTEGER NOT NULL,
        paused_reason TEXT NOT NULL,
        PRIMARY KEY (queue, interface)
      );
      CREATE TABLE IF NOT EXISTS queue_log (
        id INTEGER PRIMARY KEY,
        time INTEGER NOT NULL,
        callid TEXT NOT NULL,
        queuename TEXT NOT NULL,
        agent TEXT NOT NULL,
        event TEXT NOT NULL,
        data TEXT NOT NULL
      );
    `);
  }

  members(): DynamicMemberRecord[] {
    return this.#db
      .prepare<[], MemberRow>('SELECT * FROM queue_members ORDER BY queue, interface')
      .all()
      .map((r) => ({
        queue: r.queue,
        interface: r.interface,
        name: r.name,
        stateInterface: r.state_interface,
        penalty: r.penalty,
        paused: r.paused !== 0,
        pausedReason: r.paused_reason,
      }));
  }

  saveMember(m: DynamicMemberRecord): void {
    this.#db
      .prepare(
        `INSERT INTO queue_members (queue, interface, name, state_interface, penalty, paused, paused_reason) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (queue, interface) DO UPDATE SET name = excluded.name, state_interface = excluded.state_interface,
           penalty = excluded.penalty, paused = excluded.paused, paused_reason = excluded.paused_reason`,
      )
      .run(m.queue, m.interface, m.name, m.stateInterface, m.penalty, m.paused ? 1 : 0, m.pausedReason);
  }

  removeMember(queue: string, iface: string): void {
    this.#db.prepare('DELETE FROM queue_members WHERE queue = ? AND interface = ?').run(queue, iface);
  }

  appendLog(e: QueueLogEntry): void {
    this.#db
      .prepare('INSERT INTO queue_log (time, callid, queuename, agent, event, data) VALUES (?, ?, ?, ?, ?, ?)')
      .run(e.time, e.callId, e.queue, e.agent, e.event, e.data.join('|'));
  }

  log(queue?: string): QueueLogEntry[] {
    const rows =
      queue === undefined
        ? this.#db.prepare<[], LogRow>('SELECT * FROM queue_log ORDER BY id').all()
        : this.#db.prepare<[string], LogRow>('SELECT * FROM queue_log WHERE queuename = ? ORDER BY id').all(queue);
    return rows.map((r) => ({
      time: r.time,
      callId: r.callid,
      queue: r.queuename,
      agent: r.agent,
      event: r.event,
      data: r.data === '' ? [] : r.data.split('|'),
    }));
  }
}
