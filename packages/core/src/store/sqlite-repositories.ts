/**
 * The SQLite side of each store interface. Statements are prepared once, when the store opens;
 * better-sqlite3 answers synchronously, and the promise wrappers keep the interface open to
 * network-backed stores.
 */
import type { Database } from 'better-sqlite3';
import type {
  CdrRecord,
  CdrStore,
  ConfigObjectRecord,
  ConfigObjectStore,
  ConfigTupleRecord,
  ContactRecord,
  ContactStore,
  DeviceStateRecord,
  DeviceStateStore,
  GlobalVariable,
  GlobalVariableStore,
  MailboxRecord,
  MailboxStore,
  StoredCdr,
} from './types.js';

/** Runs `fn` now and reports its outcome as a promise (a throw becomes a rejection). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

export class SqliteGlobalVariables implements GlobalVariableStore {
  readonly #get;
  readonly #set;
  readonly #delete;
  readonly #all;

  constructor(db: Database) {
    this.#get = db.prepare<[string], { value: string }>('SELECT value FROM global_variables WHERE name = ?');
    this.#set = db.prepare<[string, string]>(
      'INSERT INTO global_variables (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    this.#delete = db.prepare<[string]>('DELETE FROM global_variables WHERE name = ?');
    this.#all = db.prepare<[], GlobalVariable>('SELECT name, value FROM global_variables ORDER BY name');
  }

  get(name: string): Promise<string | undefined> {
    return settle(() => this.#get.get(name)?.value);
  }

  set(name: string, value: string): Promise<void> {
    return settle(() => {
      this.#set.run(name, value);
    });
  }

  delete(name: string): Promise<boolean> {
    return settle(() => this.#delete.run(name).changes > 0);
  }

  all(): Promise<GlobalVariable[]> {
    return settle(() => this.#all.all());
  }
}

interface DeviceStateRow {
  name: string;
  state: string;
  updated_at: number;
}

const toDeviceState = (row: DeviceStateRow): DeviceStateRecord => ({ name: row.name, state: row.state, updatedAt: row.updated_at });

export class SqliteDeviceStates implements DeviceStateStore {
  readonly #get;
  readonly #set;
  readonly #delete;
  readonly #all;

  constructor(db: Database) {
    this.#get = db.prepare<[string], DeviceStateRow>('SELECT name, state, updated_at FROM device_states WHERE name = ?');
    this.#set = db.prepare<[string, string, number]>(
      `INSERT INTO device_states (name, state, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    );
    this.#delete = db.prepare<[string]>('DELETE FROM device_states WHERE name = ?');
    this.#all = db.prepare<[], DeviceStateRow>('SELECT name, state, updated_at FROM device_states ORDER BY name');
  }

  get(name: string): Promise<DeviceStateRecord | undefined> {
    return settle(() => {
      const row = this.#get.get(name);
      return row && toDeviceState(row);
    });
  }

  set(name: string, state: string, updatedAt: number = Date.now()): Promise<void> {
    return settle(() => {
      this.#set.run(name, state, updatedAt);
    });
  }

  delete(name: string): Promise<boolean> {
    return settle(() => this.#delete.run(name).changes > 0);
  }

  all(): Promise<DeviceStateRecord[]> {
    return settle(() => this.#all.all().map(toDeviceState));
  }
}

interface MailboxRow {
  name: string;
  old_messages: number;
  new_messages: number;
}

const toMailbox = (row: MailboxRow): MailboxRecord => ({ name: row.name, oldMessages: row.old_messages, newMessages: row.new_messages });

export class SqliteMailboxes implements MailboxStore {
  readonly #get;
  readonly #set;
  readonly #delete;
  readonly #all;

  constructor(db: Database) {
    this.#get = db.prepare<[string], MailboxRow>('SELECT name, old_messages, new_messages FROM mailboxes WHERE name = ?');
    this.#set = db.prepare<[string, number, number]>(
      `INSERT INTO mailboxes (name, old_messages, new_messages) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET old_messages = excluded.old_messages, new_messages = excluded.new_messages`,
    );
    this.#delete = db.prepare<[string]>('DELETE FROM mailboxes WHERE name = ?');
    this.#all = db.prepare<[], MailboxRow>('SELECT name, old_messages, new_messages FROM mailboxes ORDER BY name');
  }

  get(name: string): Promise<MailboxRecord | undefined> {
    return settle(() => {
      const row = this.#get.get(name);
      return row && toMailbox(row);
    });
  }

  set(mailbox: MailboxRecord): Promise<void> {
    return settle(() => {
      this.#set.run(mailbox.name, mailbox.oldMessages, mailbox.newMessages);
    });
  }

  delete(name: string): Promise<boolean> {
    return settle(() => this.#delete.run(name).changes > 0);
  }

  all(): Promise<MailboxRecord[]> {
    return settle(() => this.#all.all().map(toMailbox));
  }
}

interface ContactRow {
  aor: string;
  uri: string;
  expires_at: number;
  path: string | null;
  user_agent: string | null;
  via_address: string | null;
  via_port: number | null;
  call_id: string | null;
  cseq: number | null;
  endpoint: string | null;
}

const CONTACT_COLUMNS = 'aor, uri, expires_at, path, user_agent, via_address, via_port, call_id, cseq, endpoint';

function toContact(row: ContactRow): ContactRecord {
  const contact: ContactRecord = { aor: row.aor, uri: row.uri, expiresAt: row.expires_at };
  if (row.path !== null) contact.path = row.path;
  if (row.user_agent !== null) contact.userAgent = row.user_agent;
  if (row.via_address !== null) contact.viaAddress = row.via_address;
  if (row.via_port !== null) contact.viaPort = row.via_port;
  if (row.call_id !== null) contact.callId = row.call_id;
  if (row.cseq !== null) contact.cseq = row.cseq;
  if (row.endpoint !== null) contact.endpoint = row.endpoint;
  return contact;
}

function fromContact(contact: ContactRecord): ContactRow {
  return {
    aor: contact.aor,
    uri: contact.uri,
    expires_at: contact.expiresAt,
    path: contact.path ?? null,
    user_agent: contact.userAgent ?? null,
    via_address: contact.viaAddress ?? null,
    via_port: contact.viaPort ?? null,
    call_id: contact.callId ?? null,
    cseq: contact.cseq ?? null,
    endpoint: contact.endpoint ?? null,
  };
}

/** More AORs than this in the read cache and it starts again (each entry is one configured AOR's bindings). */
const CONTACT_CACHE_LIMIT = 10_000;

/**
 * Bindings are read on every call to a phone (Dial(PJSIP/bob)) and written only by REGISTER, so
 * reads are answered from a per-AOR cache that every write through this object clears. That is
 * sound because this process is the database's only writer; a shared store (PostgreSQL) does not
 * cache. The query cost about 55 µs a call (WAL look-ups while CDR batches are written).
 */
export class SqliteContacts implements ContactStore {
  readonly #db: Database;
  readonly #cache = new Map<string, readonly ContactRecord[]>();
  readonly #get;
  readonly #byAor;
  readonly #all;
  readonly #put;
  readonly #delete;
  readonly #deleteAor;
  readonly #deleteExpired;

  constructor(db: Database) {
    this.#db = db;
    this.#get = db.prepare<[string, string], ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE aor = ? AND uri = ?`);
    this.#byAor = db.prepare<[string], ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE aor = ? ORDER BY uri`);
    this.#all = db.prepare<[], ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts ORDER BY aor, uri`);
    this.#put = db.prepare<[ContactRow]>(
      `INSERT OR REPLACE INTO contacts (${CONTACT_COLUMNS})
       VALUES (@aor, @uri, @expires_at, @path, @user_agent, @via_address, @via_port, @call_id, @cseq, @endpoint)`,
    );
    this.#delete = db.prepare<[string, string]>('DELETE FROM contacts WHERE aor = ? AND uri = ?');
    this.#deleteAor = db.prepare<[string]>('DELETE FROM contacts WHERE aor = ?');
    this.#deleteExpired = db.prepare<[number]>('DELETE FROM contacts WHERE expires_at <= ?');
  }

  get(aor: string, uri: string): Promise<ContactRecord | undefined> {
    return settle(() => {
      const row = this.#get.get(aor, uri);
      return row && toContact(row);
    });
  }

  listByAor(aor: string): Promise<ContactRecord[]> {
    return settle(() => {
      let contacts = this.#cache.get(aor);
      if (contacts === undefined) {
        if (this.#cache.size >= CONTACT_CACHE_LIMIT) this.#cache.clear();
        contacts = this.#byAor.all(aor).map(toContact);
        this.#cache.set(aor, contacts);
      }
      // Copies: a caller may change what it was given without changing the cache.
      return contacts.map((contact) => ({ ...contact }));
    });
  }

  all(): Promise<ContactRecord[]> {
    return settle(() => this.#all.all().map(toContact));
  }

  put(contact: ContactRecord): Promise<void> {
    return settle(() => {
      this.#cache.delete(contact.aor);
      this.#put.run(fromContact(contact));
    });
  }

  delete(aor: string, uri: string): Promise<boolean> {
    return settle(() => {
      this.#cache.delete(aor);
      return this.#delete.run(aor, uri).changes > 0;
    });
  }

  replaceAor(aor: string, contacts: ContactRecord[]): Promise<void> {
    return settle(() => {
      const stray = contacts.find((c) => c.aor !== aor);
      if (stray) throw new Error(`replaceAor(${aor}) given a contact of aor ${stray.aor}`);
      this.#cache.delete(aor);
      this.#db.transaction(() => {
        this.#deleteAor.run(aor);
        for (const contact of contacts) this.#put.run(fromContact(contact));
      })();
    });
  }

  deleteExpired(now: number): Promise<number> {
    return settle(() => {
      const removed = this.#deleteExpired.run(now).changes;
      if (removed > 0) this.#cache.clear();
      return removed;
    });
  }
}

interface CdrRow {
  id: number;
  start: string;
  answer: string | null;
  end: string;
  duration: number;
  billsec: number;
  src: string;
  dst: string;
  dcontext: string;
  channel: string;
  dstchannel: string;
  lastapp: string;
  lastdata: string;
  disposition: StoredCdr['disposition'];
  amaflags: string;
  accountcode: string;
  uniqueid: string;
  linkedid: string;
  userfield: string;
  clid: string;
  peeraccount: string;
  sequence: number;
}

const CDR_TEXT_COLUMNS = [
  'src',
  'dst',
  'dcontext',
  'channel',
  'dstchannel',
  'lastapp',
  'lastdata',
  'disposition',
  'amaflags',
  'accountcode',
  'uniqueid',
  'linkedid',
  'userfield',
  'clid',
  'peeraccount',
  'sequence',
] as const;

function toCdr(row: CdrRow): StoredCdr {
  const { id, start, answer, end, ...rest } = row;
  const cdr: StoredCdr = { ...rest, id, start: new Date(start), end: new Date(end) };
  if (answer !== null) cdr.answer = new Date(answer);
  return cdr;
}

export class SqliteCdr implements CdrStore {
  readonly #insert;
  readonly #recent;
  readonly #insertAll;

  constructor(db: Database) {
    ensureCdrColumns(db);
    // Dates are stored as ISO 8601 text so operators can read and query them with the sqlite3 shell.
    this.#insert = db.prepare<[Omit<CdrRow, 'id'>]>(
      `INSERT INTO cdr (start, answer, "end", duration, billsec, ${CDR_TEXT_COLUMNS.join(', ')})
       VALUES (@start, @answer, @end, @duration, @billsec, ${CDR_TEXT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
    );
    this.#recent = db.prepare<[number], CdrRow>(
      `SELECT id, start, answer, "end", duration, billsec, ${CDR_TEXT_COLUMNS.join(', ')} FROM cdr ORDER BY id DESC LIMIT ?`,
    );
    this.#insertAll = db.transaction((rows: Omit<CdrRow, 'id'>[]) => {
      for (const row of rows) this.#insert.run(row);
      return rows.length;
    });
  }

  insert(record: CdrRecord): Promise<number> {
    return settle(() => Number(this.#insert.run(cdrRow(record)).lastInsertRowid));
  }

  insertMany(records: readonly CdrRecord[]): Promise<number> {
    return settle(() => this.#insertAll(records.map(cdrRow)));
  }

  recent(limit: number): Promise<StoredCdr[]> {
    return settle(() => this.#recent.all(limit).map(toCdr));
  }
}

/**
 * Fields the original has that the first schema lacked, added in place when missing (kept out
 * of the migration list so the table's other users can evolve it independently).
 */
const ADDED_CDR_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['clid', "TEXT NOT NULL DEFAULT ''"],
  ['peeraccount', "TEXT NOT NULL DEFAULT ''"],
  ['sequence', 'INTEGER NOT NULL DEFAULT 0'],
];

function ensureCdrColumns(db: Database): void {
  const existing = new Set(
    db
      .prepare<[], { name: string }>('PRAGMA table_info(cdr)')
      .all()
      .map((c) => c.name),
  );
  for (const [name, type] of ADDED_CDR_COLUMNS) {
    if (!existing.has(name)) db.exec(`ALTER TABLE cdr ADD COLUMN ${name} ${type}`);
  }
}

function cdrRow(record: CdrRecord): Omit<CdrRow, 'id'> {
  return {
    start: record.start.toISOString(),
    answer: record.answer ? record.answer.toISOString() : null,
    end: record.end.toISOString(),
    duration: Math.round(record.duration),
    billsec: Math.round(record.billsec),
    src: record.src,
    dst: record.dst,
    dcontext: record.dcontext,
    channel: record.channel,
    dstchannel: record.dstchannel,
    lastapp: record.lastapp,
    lastdata: record.lastdata,
    disposition: record.disposition,
    amaflags: record.amaflags,
    accountcode: record.accountcode,
    uniqueid: record.uniqueid,
    linkedid: record.linkedid,
    userfield: record.userfield,
    clid: record.clid ?? '',
    peeraccount: record.peeraccount ?? '',
    sequence: record.sequence ?? 0,
  };
}

interface ConfigObjectRow {
  config_class: string;
  object_type: string;
  id: string;
  fields_json: string;
}

function toConfigObject(row: ConfigObjectRow): ConfigObjectRecord {
  const parsed: unknown = JSON.parse(row.fields_json);
  const fields = Array.isArray(parsed) ? parsed.filter(isTuple) : [];
  return { configClass: row.config_class, objectType: row.object_type, id: row.id, fields };
}

function isTuple(value: unknown): value is ConfigTupleRecord {
  if (typeof value !== 'object' || value === null) return false;
  const tuple = value as Record<string, unknown>;
  return typeof tuple.attribute === 'string' && typeof tuple.value === 'string';
}

const CONFIG_COLUMNS = 'config_class, object_type, id, fields_json';

export class SqliteConfigObjects implements ConfigObjectStore {
  readonly #get;
  readonly #put;
  readonly #delete;
  readonly #listAll;
  readonly #listClass;
  readonly #listType;

  constructor(db: Database) {
    this.#get = db.prepare<[string, string, string], ConfigObjectRow>(
      `SELECT ${CONFIG_COLUMNS} FROM config_objects WHERE config_class = ? AND object_type = ? AND id = ?`,
    );
    this.#put = db.prepare<[string, string, string, string]>(
      `INSERT INTO config_objects (${CONFIG_COLUMNS}) VALUES (?, ?, ?, ?)
       ON CONFLICT (config_class, object_type, id) DO UPDATE SET fields_json = excluded.fields_json`,
    );
    this.#delete = db.prepare<[string, string, string]>('DELETE FROM config_objects WHERE config_class = ? AND object_type = ? AND id = ?');
    const order = 'ORDER BY config_class, object_type, id';
    this.#listAll = db.prepare<[], ConfigObjectRow>(`SELECT ${CONFIG_COLUMNS} FROM config_objects ${order}`);
    this.#listClass = db.prepare<[string], ConfigObjectRow>(`SELECT ${CONFIG_COLUMNS} FROM config_objects WHERE config_class = ? ${order}`);
    this.#listType = db.prepare<[string, string], ConfigObjectRow>(
      `SELECT ${CONFIG_COLUMNS} FROM config_objects WHERE config_class = ? AND object_type = ? ${order}`,
    );
  }

  get(configClass: string, objectType: string, id: string): Promise<ConfigObjectRecord | undefined> {
    return settle(() => {
      const row = this.#get.get(configClass, objectType, id);
      return row && toConfigObject(row);
    });
  }

  put(object: ConfigObjectRecord): Promise<void> {
    return settle(() => {
      const fields = object.fields.map(({ attribute, value }) => ({ attribute, value }));
      this.#put.run(object.configClass, object.objectType, object.id, JSON.stringify(fields));
    });
  }

  delete(configClass: string, objectType: string, id: string): Promise<boolean> {
    return settle(() => this.#delete.run(configClass, objectType, id).changes > 0);
  }

  list(configClass?: string, objectType?: string): Promise<ConfigObjectRecord[]> {
    return settle(() => {
      if (configClass === undefined) return this.#listAll.all().map(toConfigObject);
      if (objectType === undefined) return this.#listClass.all(configClass).map(toConfigObject);
      return this.#listType.all(configClass, objectType).map(toConfigObject);
    });
  }
}
