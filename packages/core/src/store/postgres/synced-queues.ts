/**
 * Dynamic queue members and the queue log on PostgreSQL: answered from memory, written through
 * the change feed. A member's key is (queue, interface); every log line has a key of its own, as
 * lines are only ever appended.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type DynamicMemberRecord, MemoryQueueStore, type QueueLogEntry, type QueueStore } from '../../pbx/apps/queue/queue-store.js';
import type { Change, ChangeFeed, SyncedTable } from './change-feed.js';

const TABLE = 'queues';
const memberKey = (queue: string, iface: string) => `${TABLE}:member/${queue}\u0000${iface}`;

interface MemberRow {
  queue: string;
  interface: string;
  name: string;
  state_interface: string;
  penalty: number;
  paused: boolean;
  paused_reason: string;
}

interface LogRow {
  time: string;
  callid: string;
  queuename: string;
  agent: string;
  event: string;
  data: string;
}

const toMember = (r: MemberRow): DynamicMemberRecord => ({
  queue: r.queue,
  interface: r.interface,
  name: r.name,
  stateInterface: r.state_interface,
  penalty: r.penalty,
  paused: r.paused,
  pausedReason: r.paused_reason,
});

const toLogEntry = (r: LogRow): QueueLogEntry => ({
  time: Number(r.time),
  callId: r.callid,
  queue: r.queuename,
  agent: r.agent,
  event: r.event,
  data: r.data === '' ? [] : r.data.split('|'),
});

export class SyncedQueues implements QueueStore, SyncedTable {
  readonly name = TABLE;
  #memory = new MemoryQueueStore();
  readonly #feed: ChangeFeed;

  constructor(feed: ChangeFeed) {
    this.#feed = feed;
    feed.register(this);
  }

  members(): DynamicMemberRecord[] {
    return this.#memory.members();
  }

  log(queue?: string): QueueLogEntry[] {
    return this.#memory.log(queue);
  }

  saveMember(m: DynamicMemberRecord): void {
    this.#memory.saveMember(m);
    this.#feed.write(
      `INSERT INTO queue_members (queue, interface, name, state_interface, penalty, paused, paused_reason) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (queue, interface) DO UPDATE SET name = excluded.name, state_interface = excluded.state_interface,
         penalty = excluded.penalty, paused = excluded.paused, paused_reason = excluded.paused_reason`,
      [m.queue, m.interface, m.name, m.stateInterface, m.penalty, m.paused, m.pausedReason],
      { table: TABLE, key: memberKey(m.queue, m.interface), op: 'save', member: m },
    );
  }

  removeMember(queue: string, iface: string): void {
    this.#memory.removeMember(queue, iface);
    this.#feed.write('DELETE FROM queue_members WHERE queue = $1 AND interface = $2', [queue, iface], {
      table: TABLE,
      key: memberKey(queue, iface),
      op: 'remove',
      queue,
      iface,
    });
  }

  appendLog(e: QueueLogEntry): void {
    this.#memory.appendLog(e);
    this.#feed.write(
      'INSERT INTO queue_log (time, callid, queuename, agent, event, data) VALUES ($1, $2, $3, $4, $5, $6)',
      [e.time, e.callId, e.queue, e.agent, e.event, e.data.join('|')],
      { table: TABLE, key: `${TABLE}:log/${randomUUID()}`, op: 'log', entry: e },
    );
  }

  apply(change: Change): void {
    if (change.op === 'save') this.#memory.saveMember(change.member as DynamicMemberRecord);
    else if (change.op === 'remove') this.#memory.removeMember(String(change.queue), String(change.iface));
    else if (change.op === 'log') this.#memory.appendLog(change.entry as QueueLogEntry);
  }

  async reload(db: pg.ClientBase, key?: string): Promise<() => void> {
    const what = key?.slice(TABLE.length + 1);
    if (what?.startsWith('member/')) {
      const [queue, iface] = what.slice('member/'.length).split('\u0000');
      const { rows } = await db.query<MemberRow>('SELECT * FROM queue_members WHERE queue = $1 AND interface = $2', [queue, iface]);
      return () => {
        if (rows[0]) this.#memory.saveMember(toMember(rows[0]));
        else this.#memory.removeMember(queue, iface);
      };
    }
    const members = (await db.query<MemberRow>('SELECT * FROM queue_members ORDER BY queue, interface')).rows;
    const log = (await db.query<LogRow>('SELECT * FROM queue_log ORDER BY id')).rows;
    return () => {
      const fresh = new MemoryQueueStore();
      for (const row of members) fresh.saveMember(toMember(row));
      for (const row of log) fresh.appendLog(toLogEntry(row));
      this.#memory = fresh;
    };
  }
}
