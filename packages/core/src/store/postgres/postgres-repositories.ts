/**
 * The PostgreSQL side of the asynchronous store interfaces: one query each, through a pool
 * shared by every node of a cluster. BIGINT columns come back as strings from `pg` (they may
 * exceed 2^53); the values kept here (epoch milliseconds, ids) fit a number, hence Number().
 */
import { inTransaction, type Queryable } from './transaction.js';
import { type RemoteChanges, type RemoteEndpointListener, STATE_CHANNEL } from './remote-changes.js';
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
  RemoteChangeHook,
} from '../types.js';

/** Runs `statement` and tells the other nodes in the same statement, so they hear of it at commit. */
const notifying = (statement: string, payloadParam: number) =>
  `WITH written AS (${statement} RETURNING 1) SELECT (SELECT count(*) FROM written)::int AS n, pg_notify('${STATE_CHANNEL}', $${payloadParam})`;

export class PostgresGlobalVariables implements GlobalVariableStore {
  constructor(private readonly db: Queryable) {}

  async get(name: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM global_variables WHERE name = $1', [name]);
    return rows[0]?.value;
  }

  async set(name: string, value: string): Promise<void> {
    await this.db.query(
      'INSERT INTO global_variables (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      [name, value],
    );
  }

  async delete(name: string): Promise<boolean> {
    return ((await this.db.query('DELETE FROM global_variables WHERE name = $1', [name])).rowCount ?? 0) > 0;
  }

  async all(): Promise<GlobalVariable[]> {
    return (await this.db.query<GlobalVariable>('SELECT name, value FROM global_variables ORDER BY name')).rows;
  }
}

interface DeviceStateRow {
  name: string;
  state: string;
  updated_at: string;
}

const toDeviceState = (row: DeviceStateRow): DeviceStateRecord => ({ name: row.name, state: row.state, updatedAt: Number(row.updated_at) });

export class PostgresDeviceStates implements DeviceStateStore {
  readonly onRemoteChange: RemoteChangeHook<DeviceStateRecord>;

  constructor(
    private readonly db: Queryable,
    private readonly changes: RemoteChanges,
  ) {
    this.onRemoteChange = (listener) => changes.onDevice(listener);
  }

  /** Not stored: a node's endpoint states live as long as its calls, so only a notification. */
  async announceEndpoint(name: string, state: string): Promise<void> {
    await this.db.query(`SELECT pg_notify('${STATE_CHANNEL}', $1)`, [this.changes.payload({ kind: 'endpoint', name, state })]);
  }

  onRemoteEndpoint(listener: RemoteEndpointListener): () => void {
    return this.changes.onEndpoint(listener);
  }

  async get(name: string): Promise<DeviceStateRecord | undefined> {
    const { rows } = await this.db.query<DeviceStateRow>('SELECT name, state, updated_at FROM device_states WHERE name = $1', [name]);
    return rows[0] && toDeviceState(rows[0]);
  }

  async set(name: string, state: string, updatedAt: number = Date.now()): Promise<void> {
    await this.db.query(
      notifying(
        `INSERT INTO device_states (name, state, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
        4,
      ),
      [name, state, updatedAt, this.changes.payload({ kind: 'device', name, record: { name, state, updatedAt } })],
    );
  }

  async delete(name: string): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(notifying('DELETE FROM device_states WHERE name = $1', 2), [
      name,
      this.changes.payload({ kind: 'device', name }),
    ]);
    return rows[0].n > 0;
  }

  async all(): Promise<DeviceStateRecord[]> {
    return (await this.db.query<DeviceStateRow>('SELECT name, state, updated_at FROM device_states ORDER BY name')).rows.map(toDeviceState);
  }
}

interface MailboxRow {
  name: string;
  old_messages: number;
  new_messages: number;
}

const toMailbox = (row: MailboxRow): MailboxRecord => ({ name: row.name, oldMessages: row.old_messages, newMessages: row.new_messages });

export class PostgresMailboxes implements MailboxStore {
  readonly onRemoteChange: RemoteChangeHook<MailboxRecord>;

  constructor(
    private readonly db: Queryable,
    private readonly changes: RemoteChanges,
  ) {
    this.onRemoteChange = (listener) => changes.onMailbox(listener);
  }

  async get(name: string): Promise<MailboxRecord | undefined> {
    const { rows } = await this.db.query<MailboxRow>('SELECT name, old_messages, new_messages FROM mailboxes WHERE name = $1', [name]);
    return rows[0] && toMailbox(rows[0]);
  }

  async set(mailbox: MailboxRecord): Promise<void> {
    const record = { name: mailbox.name, oldMessages: mailbox.oldMessages, newMessages: mailbox.newMessages };
    await this.db.query(
      notifying(
        `INSERT INTO mailboxes (name, old_messages, new_messages) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET old_messages = excluded.old_messages, new_messages = excluded.new_messages`,
        4,
      ),
      [mailbox.name, mailbox.oldMessages, mailbox.newMessages, this.changes.payload({ kind: 'mailbox', name: mailbox.name, record })],
    );
  }

  async delete(name: string): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(notifying('DELETE FROM mailboxes WHERE name = $1', 2), [
      name,
      this.changes.payload({ kind: 'mailbox', name }),
    ]);
    return rows[0].n > 0;
  }

  async all(): Promise<MailboxRecord[]> {
    return (await this.db.query<MailboxRow>('SELECT name, old_messages, new_messages FROM mailboxes ORDER BY name')).rows.map(toMailbox);
  }
}

interface ContactRow {
  aor: string;
  uri: string;
  expires_at: string;
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
  const contact: ContactRecord = { aor: row.aor, uri: row.uri, expiresAt: Number(row.expires_at) };
  if (row.path !== null) contact.path = row.path;
  if (row.user_agent !== null) contact.userAgent = row.user_agent;
  if (row.via_address !== null) contact.viaAddress = row.via_address;
  if (row.via_port !== null) contact.viaPort = row.via_port;
  if (row.call_id !== null) contact.callId = row.call_id;
  if (row.cseq !== null) contact.cseq = row.cseq;
  if (row.endpoint !== null) contact.endpoint = row.endpoint;
  return contact;
}

const contactValues = (c: ContactRecord) => [
  c.aor,
  c.uri,
  c.expiresAt,
  c.path ?? null,
  c.userAgent ?? null,
  c.viaAddress ?? null,
  c.viaPort ?? null,
  c.callId ?? null,
  c.cseq ?? null,
  c.endpoint ?? null,
];

const PUT_CONTACT = `INSERT INTO contacts (${CONTACT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
  ON CONFLICT (aor, uri) DO UPDATE SET expires_at = excluded.expires_at, path = excluded.path, user_agent = excluded.user_agent,
    via_address = excluded.via_address, via_port = excluded.via_port, call_id = excluded.call_id, cseq = excluded.cseq,
    endpoint = excluded.endpoint`;

export class PostgresContacts implements ContactStore {
  constructor(private readonly db: Queryable) {}

  async get(aor: string, uri: string): Promise<ContactRecord | undefined> {
    const { rows } = await this.db.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE aor = $1 AND uri = $2`, [aor, uri]);
    return rows[0] && toContact(rows[0]);
  }

  async listByAor(aor: string): Promise<ContactRecord[]> {
    const { rows } = await this.db.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE aor = $1 ORDER BY uri`, [aor]);
    return rows.map(toContact);
  }

  async all(): Promise<ContactRecord[]> {
    return (await this.db.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts ORDER BY aor, uri`)).rows.map(toContact);
  }

  async put(contact: ContactRecord): Promise<void> {
    await this.db.query(PUT_CONTACT, contactValues(contact));
  }

  async delete(aor: string, uri: string): Promise<boolean> {
    return ((await this.db.query('DELETE FROM contacts WHERE aor = $1 AND uri = $2', [aor, uri])).rowCount ?? 0) > 0;
  }

  async replaceAor(aor: string, contacts: ContactRecord[]): Promise<void> {
    const stray = contacts.find((c) => c.aor !== aor);
    if (stray) throw new Error(`replaceAor(${aor}) given a contact of aor ${stray.aor}`);
    await inTransaction(this.db, async (client) => {
      await client.query('DELETE FROM contacts WHERE aor = $1', [aor]);
      for (const contact of contacts) await client.query(PUT_CONTACT, contactValues(contact));
    });
  }

  async deleteExpired(now: number): Promise<number> {
    return (await this.db.query('DELETE FROM contacts WHERE expires_at <= $1', [now])).rowCount ?? 0;
  }
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

const CDR_COLUMNS = ['start', 'answer', '"end"', 'duration', 'billsec', ...CDR_TEXT_COLUMNS];

type CdrRow = Omit<StoredCdr, 'id' | 'answer'> & { id: string; answer: Date | null };

function toCdr(row: CdrRow): StoredCdr {
  const { id, answer, ...rest } = row;
  const cdr: StoredCdr = { ...rest, id: Number(id) };
  if (answer !== null) cdr.answer = answer;
  return cdr;
}

function cdrValues(r: CdrRecord): unknown[] {
  return [
    r.start,
    r.answer ?? null,
    r.end,
    Math.round(r.duration),
    Math.round(r.billsec),
    r.src,
    r.dst,
    r.dcontext,
    r.channel,
    r.dstchannel,
    r.lastapp,
    r.lastdata,
    r.disposition,
    r.amaflags,
    r.accountcode,
    r.uniqueid,
    r.linkedid,
    r.userfield,
    r.clid ?? '',
    r.peeraccount ?? '',
    r.sequence ?? 0,
  ];
}

/** `($1, …, $21), ($22, …)` for `rows` rows of CDR_COLUMNS. */
function cdrPlaceholders(rows: number): string {
  const width = CDR_COLUMNS.length;
  return Array.from({ length: rows }, (_, r) => `(${CDR_COLUMNS.map((_c, i) => `$${r * width + i + 1}`).join(', ')})`).join(', ');
}

export class PostgresCdr implements CdrStore {
  constructor(private readonly db: Queryable) {}

  async insert(record: CdrRecord): Promise<number> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO cdr (${CDR_COLUMNS.join(', ')}) VALUES ${cdrPlaceholders(1)} RETURNING id`,
      cdrValues(record),
    );
    return Number(rows[0].id);
  }

  /** One multi-row INSERT, which PostgreSQL applies atomically. */
  async insertMany(records: readonly CdrRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const result = await this.db.query(
      `INSERT INTO cdr (${CDR_COLUMNS.join(', ')}) VALUES ${cdrPlaceholders(records.length)}`,
      records.flatMap(cdrValues),
    );
    return result.rowCount ?? 0;
  }

  async recent(limit: number): Promise<StoredCdr[]> {
    const { rows } = await this.db.query<CdrRow>(`SELECT id, ${CDR_COLUMNS.join(', ')} FROM cdr ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(toCdr);
  }
}

interface ConfigObjectRow {
  config_class: string;
  object_type: string;
  id: string;
  fields_json: unknown;
}

function isTuple(value: unknown): value is ConfigTupleRecord {
  if (typeof value !== 'object' || value === null) return false;
  const tuple = value as Record<string, unknown>;
  return typeof tuple.attribute === 'string' && typeof tuple.value === 'string';
}

function toConfigObject(row: ConfigObjectRow): ConfigObjectRecord {
  const fields = Array.isArray(row.fields_json) ? row.fields_json.filter(isTuple) : [];
  return { configClass: row.config_class, objectType: row.object_type, id: row.id, fields };
}

const CONFIG_COLUMNS = 'config_class, object_type, id, fields_json';
const CONFIG_ORDER = 'ORDER BY config_class, object_type, id';

export class PostgresConfigObjects implements ConfigObjectStore {
  constructor(private readonly db: Queryable) {}

  async get(configClass: string, objectType: string, id: string): Promise<ConfigObjectRecord | undefined> {
    const { rows } = await this.db.query<ConfigObjectRow>(
      `SELECT ${CONFIG_COLUMNS} FROM config_objects WHERE config_class = $1 AND object_type = $2 AND id = $3`,
      [configClass, objectType, id],
    );
    return rows[0] && toConfigObject(rows[0]);
  }

  async put(object: ConfigObjectRecord): Promise<void> {
    const fields = object.fields.map(({ attribute, value }) => ({ attribute, value }));
    await this.db.query(
      `INSERT INTO config_objects (${CONFIG_COLUMNS}) VALUES ($1, $2, $3, $4)
       ON CONFLICT (config_class, object_type, id) DO UPDATE SET fields_json = excluded.fields_json`,
      [object.configClass, object.objectType, object.id, JSON.stringify(fields)],
    );
  }

  async delete(configClass: string, objectType: string, id: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM config_objects WHERE config_class = $1 AND object_type = $2 AND id = $3', [
      configClass,
      objectType,
      id,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(configClass?: string, objectType?: string): Promise<ConfigObjectRecord[]> {
    const select = `SELECT ${CONFIG_COLUMNS} FROM config_objects`;
    const { rows } =
      configClass === undefined
        ? await this.db.query<ConfigObjectRow>(`${select} ${CONFIG_ORDER}`)
        : objectType === undefined
          ? await this.db.query<ConfigObjectRow>(`${select} WHERE config_class = $1 ${CONFIG_ORDER}`, [configClass])
          : await this.db.query<ConfigObjectRow>(`${select} WHERE config_class = $1 AND object_type = $2 ${CONFIG_ORDER}`, [
              configClass,
              objectType,
            ]);
    return rows.map(toConfigObject);
  }
}
