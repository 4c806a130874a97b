/**
 * What queues keep across restarts: dynamic members (persistentmembers) and the queue log rows.
 * SQLite in a running server (store/sqlite-queues.ts), memory for a core built without a store.
 */

export interface DynamicMemberRecord {
  queue: string;
  interface: string;
  name: string;
  stateInterface: string;
  penalty: number;
  paused: boolean;
  pausedReason: string;
}

/** One queue_log line: `time|callid|queuename|agent|event|data…` as the original writes it. */
export interface QueueLogEntry {
  time: number;
  callId: string;
  queue: string;
  agent: string;
  event: string;
  data: string[];
}

export interface QueueStore {
  members(): DynamicMemberRecord[];
  saveMember(member: DynamicMemberRecord): void;
  removeMember(queue: string, iface: string): void;
  appendLog(entry: QueueLogEntry): void;
  log(queue?: string): QueueLogEntry[];
}

export class MemoryQueueStore implements QueueStore {
  readonly #members = new Map<string, DynamicMemberRecord>();
  readonly #log: QueueLogEntry[] = [];

  members(): DynamicMemberRecord[] {
    return [...this.#members.values()];
  }

  saveMember(member: DynamicMemberRecord): void {
    this.#members.set(`${member.queue}\0${member.interface}`, { ...member });
  }

  removeMember(queue: string, iface: string): void {
    this.#members.delete(`${queue}\0${iface}`);
  }

  appendLog(entry: QueueLogEntry): void {
    this.#log.push(entry);
  }

  log(queue?: string): QueueLogEntry[] {
    return this.#log.filter((e) => queue === undefined || e.queue === queue);
  }
}
