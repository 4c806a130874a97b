import type { AstDb } from './astdb.js';
import type { VoicemailStore } from '../pbx/apps/voicemail/voicemail-store.js';
import type { QueueStore } from '../pbx/apps/queue/queue-store.js';

/**
 * What must survive a restart, behind narrow interfaces: SQLite implements them today; PostgreSQL
 * or Redis can replace it for several nodes sharing state. Every operation returns a promise for
 * that reason, even though SQLite answers synchronously. Times are milliseconds since the epoch.
 */

export interface GlobalVariable {
  name: string;
  value: string;
}

export interface GlobalVariableStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(name: string): Promise<boolean>;
  all(): Promise<GlobalVariable[]>;
}

export interface DeviceStateRecord {
  /** Full device name, e.g. `App:alice`. */
  name: string;
  state: string;
  updatedAt: number;
}

/**
 * Told of a change another node made to a shared store: the new record, or undefined when it
 * was deleted. Returns the function that stops the telling.
 */
export type RemoteChangeHook<T> = (listener: (name: string, record: T | undefined) => void) => () => void;

export interface DeviceStateStore {
  /** Present in stores shared by several nodes (PostgreSQL): other nodes' changes. */
  onRemoteChange?: RemoteChangeHook<DeviceStateRecord>;
  /**
   * Present in shared stores: tells the other nodes the state this node derives for one of its
   * endpoint devices (`SIP/alice`), so each can merge them (busy on any node is busy).
   */
  announceEndpoint?(name: string, state: string): Promise<void>;
  /** Present in shared stores: other nodes' announcements, with the announcing node's id. */
  onRemoteEndpoint?(listener: (nodeId: string, name: string, state: string) => void): () => void;
  get(name: string): Promise<DeviceStateRecord | undefined>;
  /** `updatedAt` defaults to now. */
  set(name: string, state: string, updatedAt?: number): Promise<void>;
  delete(name: string): Promise<boolean>;
  all(): Promise<DeviceStateRecord[]>;
}

export interface MailboxRecord {
  name: string;
  oldMessages: number;
  newMessages: number;
}

export interface MailboxStore {
  /** Present in stores shared by several nodes (PostgreSQL): other nodes' changes. */
  onRemoteChange?: RemoteChangeHook<MailboxRecord>;
  get(name: string): Promise<MailboxRecord | undefined>;
  set(mailbox: MailboxRecord): Promise<void>;
  delete(name: string): Promise<boolean>;
  all(): Promise<MailboxRecord[]>;
}

/** A SIP registration binding (RFC 3261 §10.3): one Contact URI of one address-of-record. */
export interface ContactRecord {
  aor: string;
  uri: string;
  expiresAt: number;
  /** Path header values (RFC 3327), joined with commas. */
  path?: string;
  userAgent?: string;
  /** Where the REGISTER came from, for NAT traversal. */
  viaAddress?: string;
  viaPort?: number;
  callId?: string;
  cseq?: number;
  endpoint?: string;
}

export interface ContactStore {
  get(aor: string, uri: string): Promise<ContactRecord | undefined>;
  listByAor(aor: string): Promise<ContactRecord[]>;
  all(): Promise<ContactRecord[]>;
  /** Inserts or replaces the binding (aor, uri). */
  put(contact: ContactRecord): Promise<void>;
  delete(aor: string, uri: string): Promise<boolean>;
  /** Replaces all bindings of an aor at once (a REGISTER with `remove_existing`, or `Contact: *`). */
  replaceAor(aor: string, contacts: ContactRecord[]): Promise<void>;
  /** Removes bindings that expired at or before `now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
}

export type CdrDisposition = 'ANSWERED' | 'NO ANSWER' | 'BUSY' | 'FAILED' | 'CONGESTION';

/** One call detail record, with Asterisk's CDR field names. */
export interface CdrRecord {
  start: Date;
  answer?: Date;
  end: Date;
  /** Seconds from start to end. */
  duration: number;
  /** Seconds from answer to end. */
  billsec: number;
  src: string;
  dst: string;
  dcontext: string;
  channel: string;
  dstchannel: string;
  lastapp: string;
  lastdata: string;
  disposition: CdrDisposition;
  amaflags: string;
  accountcode: string;
  uniqueid: string;
  linkedid: string;
  userfield: string;
  /** `"name" <number>` of the caller. */
  clid?: string;
  /** The accountcode of the other party. */
  peeraccount?: string;
  /** A number unique to each record, counting up. */
  sequence?: number;
}

export interface StoredCdr extends CdrRecord {
  id: number;
}

export interface CdrStore {
  /** Returns the record's id. */
  insert(record: CdrRecord): Promise<number>;
  /** Several records in one transaction (batched CDR writes); resolves with how many were written. */
  insertMany?(records: readonly CdrRecord[]): Promise<number>;
  /** The most recent records, newest first. */
  recent(limit: number): Promise<StoredCdr[]>;
}

/** One field of a dynamic configuration object (the API's ConfigTuple). */
export interface ConfigTupleRecord {
  attribute: string;
  value: string;
}

export interface ConfigObjectRecord {
  configClass: string;
  objectType: string;
  id: string;
  /** In the order given; an attribute may repeat (`allow`). */
  fields: ConfigTupleRecord[];
}

export interface ConfigObjectStore {
  get(configClass: string, objectType: string, id: string): Promise<ConfigObjectRecord | undefined>;
  /** Creates or replaces the object. */
  put(object: ConfigObjectRecord): Promise<void>;
  delete(configClass: string, objectType: string, id: string): Promise<boolean>;
  /** All objects, or those of one class, or of one class and type. */
  list(configClass?: string, objectType?: string): Promise<ConfigObjectRecord[]>;
}

/**
 * Application names shared by the nodes of a cluster: the node a connection registers a name on
 * claims it, and the node that served it before loses it (ApplicationReplaced), as on one node.
 */
export interface ApplicationClaimStore {
  /** Records that this node serves `name` from now on; the other nodes are told. */
  claim(name: string): Promise<void>;
  /** Told when another node claimed a name after this node's last claim of it. */
  onClaimedElsewhere(listener: (name: string) => void): () => void;
  /** Gives up this node's claim of `name` (its connection ended). */
  release(name: string): Promise<void>;
  /** Told of every claim another node makes (whichever node served the name before). */
  onClaimed(listener: (name: string) => void): () => void;
  /** The node (by its store id) serving `name` now, when that is another node. */
  servedElsewhere(name: string): Promise<string | undefined>;
  /** Whether `name` is claimed by a node that is gone (killed outright: it released nothing). */
  deadClaim?(name: string): Promise<boolean>;
  /** Whether the node (by its store id) is alive (it holds its lock). */
  nodeAlive?(node: string): Promise<boolean>;
  /**
   * Sends an event of `application` to the node serving it. Sends leave in order, after every
   * directory change this node made before (ClusterDirectory), and arrive in that order.
   */
  sendEvent(node: string, application: string, event: Readonly<Record<string, unknown>>): void;
  /** Events other nodes sent to this node's applications, in the order each node sent them. */
  onEvent(listener: (application: string, event: Record<string, unknown>) => void): () => void;
}

/** What a subscription names: an event source kind, or `all` (the application's subscribeAll). */
export type SharedSubscriptionKind = 'channel' | 'bridge' | 'endpoint' | 'deviceState' | 'all';

/** One subscription of an application as the cluster shares it: its count (0: gone). */
export interface SharedSubscription {
  application: string;
  kind: SharedSubscriptionKind;
  /** The source's id (empty: every source of the kind, and for `all`). */
  source: string;
  count: number;
  /**
   * The row was removed because its source ended or the run of the node owning it did (dropSource,
   * dropSourcesOf): the node serving the application forgets the source too, whatever its count.
   */
  sourceGone?: boolean;
}

/**
 * The subscriptions applications made through the API, shared by the nodes of a cluster. They are
 * state of the application, not of the connection that made them: an application that reconnects
 * to another node (its node died) keeps them, and every node sends the events of its own objects
 * that an application subscribed to to the node serving the application.
 */
export interface ApplicationSubscriptionStore {
  /**
   * Adds `delta` to a subscription's count (a row at zero is removed); every node is told the new
   * count. `sourceNode` is the node owning a channel or bridge source, so its subscriptions go with it.
   */
  change(application: string, kind: SharedSubscriptionKind, source: string, delta: number, sourceNode?: string): void;
  /** Records whether the application's connection subscribes to everything (`subscribeAll`). */
  setAll(application: string, on: boolean): void;
  /** Removes every subscription of an application (it is unregistered for good). */
  dropApplication(application: string): void;
  /** Removes every subscription to a source (the channel or bridge ended). */
  dropSource(kind: SharedSubscriptionKind, source: string): void;
  /** Removes the subscriptions to the objects of an earlier run of `node` (it was killed). */
  dropSourcesOf(node: string): void;
  /** Every subscription now (a node that starts). */
  load(): Promise<SharedSubscription[]>;
  /** Told of every change, this node's included, in commit order. */
  onChange(listener: (subscription: SharedSubscription) => void): () => void;
}

/** An event of an application's shared journal, with the number the cluster gave it. */
export interface SharedJournalEntry {
  sequence: number;
  /** The event as JSON would carry it (its timestamp a string). */
  event: Record<string, unknown>;
}

/** What the shared journal keeps of an application after a sequence number. */
export interface SharedJournalSlice {
  /** In order; every kept event after the number asked for. */
  entries: SharedJournalEntry[];
  /** The highest number no longer kept (0: nothing dropped); events after the one asked for up to this are lost. */
  droppedThrough: number;
  /** The last number given (0: the application has no journal). */
  last: number;
}

/**
 * The event journals of the applications of a cluster, shared so that an application that
 * reconnects to another node (its node died) resumes where it was (ari.conf resume_window,
 * resume_max_events). The store numbers the events: 1, 2, 3… per application, whichever node
 * wrote them, so the node serving an application and a node writing for it while no node serves
 * it never give one number twice.
 */
export interface ApplicationJournalStore {
  /**
   * Numbers and keeps events of an application, in the order given, dropping those beyond the
   * limits; resolves with the first number given (the others follow it).
   */
  append(
    application: string,
    events: readonly Readonly<Record<string, unknown>>[],
    limits: JournalLimits,
    origins?: readonly (JournalOrigin | undefined)[],
  ): Promise<number>;
  /** The highest origin number of `run` the journal of `application` holds (0: none). */
  lastOrigin(application: string, run: string): Promise<number>;
  /** The kept events after `after`. */
  since(application: string, after: number): Promise<SharedJournalSlice>;
  /**
   * The last number given to the application's events (the journal's head), or undefined when the
   * store has no journal of it (nothing written yet, or dropped with the application).
   */
  head(application: string): Promise<number | undefined>;
  /** Forgets an application's journal (it is unregistered for good). */
  drop(application: string): Promise<void>;
}

/** The sending node's run and number of an event that came from another node (apps/event-origins.ts). */
export interface JournalOrigin {
  readonly run: string;
  readonly seq: number;
}

export interface JournalLimits {
  readonly windowMs: number;
  readonly maxEvents: number;
}

/** The objects whose owning node a cluster records, so a request on one reaches its node. */
export type ClusterObjectKind = 'channel' | 'bridge' | 'playback' | 'recording';

/**
 * Which node owns each live channel, bridge, playback and live recording of a cluster: written when
 * the object is made, removed when it ends. Changes are queued in order with the events the node
 * sends (ApplicationClaimStore.sendEvent), so an application told of an object can already find it.
 */
export interface ClusterDirectory {
  record(kind: ClusterObjectKind, id: string, node: string): void;
  forget(kind: ClusterObjectKind, id: string): void;
  ownerOf(kind: ClusterObjectKind, id: string): Promise<string | undefined>;
  /** Drops what an earlier run of `node` left (it ended without removing its objects). */
  forgetNode(node: string): Promise<void>;
}

/** A node found dead (its heartbeat stopped), or an earlier run of a node that started again. */
export interface NodeDown {
  /** Its `systemname` (the directory's node). */
  name: string;
  /** Its store id (application claims, endpoint announcements). */
  storeId: string;
}

/**
 * Which nodes of a cluster are alive: each writes a heartbeat; one whose heartbeat is older than
 * the timeout is dead, and one surviving node clears its directory rows and application claims,
 * then every node is told (onNodeDown) to drop what it holds of it.
 */
export interface NodeLiveness {
  /** Starts this node's heartbeat under `name`; an earlier run of it is reported down first. */
  start(name: string, timeoutMs: number): Promise<void>;
  onNodeDown(listener: (node: NodeDown) => void): () => void;
}

export interface Store {
  /** The AstDB (family, key) → value table (astdb.ts). */
  readonly astdb: AstDb;
  readonly globals: GlobalVariableStore;
  readonly deviceStates: DeviceStateStore;
  readonly mailboxes: MailboxStore;
  readonly contacts: ContactStore;
  readonly cdr: CdrStore;
  readonly configObjects: ConfigObjectStore;
  /** Voicemail metadata (pbx/apps/voicemail): absent in stores that do not keep it. */
  readonly voicemail?: VoicemailStore;
  /** Dynamic queue members and the queue log (pbx/apps/queue): absent in stores that do not keep them. */
  readonly queues?: QueueStore;
  /** Present in stores shared by several nodes: application names unique across them. */
  readonly applicationClaims?: ApplicationClaimStore;
  /** Present in stores shared by several nodes: the owner of each live object. */
  readonly clusterDirectory?: ClusterDirectory;
  /** Present in stores shared by several nodes: node heartbeats and the death of a node. */
  readonly nodeLiveness?: NodeLiveness;
  /** Present in stores shared by several nodes: application subscriptions made through the API. */
  readonly applicationSubscriptions?: ApplicationSubscriptionStore;
  /** Present in stores shared by several nodes: the applications' event journals. */
  readonly applicationJournal?: ApplicationJournalStore;
  /** Flushes and closes; calling it again does nothing. */
  close(): Promise<void>;
}
