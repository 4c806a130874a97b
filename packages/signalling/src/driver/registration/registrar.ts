// Just over 500 lines: one RFC 3261 §10.3 state (bindings per AOR) and its refresh, expiry and persistence belong together.
/**
 * The registrar (RFC 3261 §10.3) for `type=aor` objects: REGISTER binds Contact URIs to the AOR
 * named by the To user, after the request passed the driver's authenticator chain and the
 * authenticated endpoint lists that AOR in `aors`.
 *
 * Rules, in the order §10.3 gives them:
 * - `Contact: *` with `Expires: 0` (and nothing else) removes every binding; `*` otherwise is 400.
 * - A binding's expiry is its `expires` parameter, else the Expires header, else the AOR's
 *   `default_expiration`; non-zero below `minimum_expiration` is refused with 423 and Min-Expires
 *   (§10.3 step 7, §21.4.18); above `maximum_expiration` it is lowered to it.
 * - A binding refreshed with the same Call-ID must have a higher CSeq, else the whole request gets
 *   500 and nothing changes (§10.3 step 7).
 * - More bindings than `max_contacts`: with `remove_existing` the ones expiring soonest that this
 *   request did not name are dropped; without it the request is refused with 403 and nothing changes.
 *   `max_contacts = 0` (the default, as in Asterisk) accepts no registration at all.
 * - The 200 lists every binding with its remaining `expires` and carries a Date (§10.3 step 8).
 *
 * Bindings live in a `RegistrarContactStore` (the server backs it with core's SQLite store, so they
 * survive a restart) and each has an expiry timer on the injected clock. The packet's source
 * address is kept with the binding, and calls to an endpoint with `force_rport`/`rewrite_contact`
 * are sent there (the NAT binding the phone keeps open) rather than to the Contact's host.
 * Static `contact=` entries of the AOR are not stored; they are added to every lookup.
 *
 *   (none) ──REGISTER──> bound ──refresh──> bound
 *                          │
 *                          │ Expires: 0, `*`, expiry timer, remove_existing
 *                          v
 *                       (removed)
 */
import type { Clock, ContactRecord, ContactStore, Logger, SipAorConfig, SipConfig, SipEndpointConfig } from '@switchboard/core';
import { SipParseError } from '../../errors.js';
import { createResponse } from '../../message/builders.js';
import { newTag } from '../../message/ids.js';
import type { NameAddr } from '../../message/name-addr.js';
import { parseNameAddr } from '../../message/name-addr.js';
import type { SipRequest } from '../../message/sip-message.js';
import { parseUri, type SipUri } from '../../message/uri.js';
import type { ServerTransaction } from '../../transaction/transaction-layer.js';
import type { IncomingContext, PeerAddress } from '../../transport/transport.js';
import { applyReceived } from '../../transport/via-received.js';
import { authenticateInbound, type InboundAuthenticator } from '../auth/identify.js';

/**
 * Where bindings are kept. Core's `store.contacts` (SqliteContacts) satisfies it as it is;
 * `InMemoryContactStore` is the stand-in for tests.
 */
export type RegistrarContactStore = Pick<ContactStore, 'listByAor' | 'all' | 'put' | 'delete' | 'replaceAor' | 'deleteExpired'>;

/** Bindings in a Map, for tests and for running without a data directory. */
export class InMemoryContactStore implements RegistrarContactStore {
  readonly #byAor = new Map<string, Map<string, ContactRecord>>();

  async listByAor(aor: string): Promise<ContactRecord[]> {
    return [...(this.#byAor.get(aor)?.values() ?? [])].map((c) => ({ ...c }));
  }

  async all(): Promise<ContactRecord[]> {
    return [...this.#byAor.values()].flatMap((m) => [...m.values()]).map((c) => ({ ...c }));
  }

  async put(contact: ContactRecord): Promise<void> {
    let bindings = this.#byAor.get(contact.aor);
    if (bindings === undefined) {
      bindings = new Map();
      this.#byAor.set(contact.aor, bindings);
    }
    bindings.set(contact.uri, { ...contact });
  }

  async delete(aor: string, uri: string): Promise<boolean> {
    return this.#byAor.get(aor)?.delete(uri) ?? false;
  }

  async replaceAor(aor: string, contacts: ContactRecord[]): Promise<void> {
    this.#byAor.set(aor, new Map(contacts.map((c) => [c.uri, { ...c }])));
  }

  async deleteExpired(now: number): Promise<number> {
    let removed = 0;
    for (const bindings of this.#byAor.values()) {
      for (const [uri, contact] of bindings) {
        if (contact.expiresAt <= now) {
          bindings.delete(uri);
          removed++;
        }
      }
    }
    return removed;
  }
}

export type ContactChangeKind = 'created' | 'updated' | 'removed' | 'expired';

export interface ContactChange {
  kind: ContactChangeKind;
  aor: string;
  /** The endpoint that registered the binding, when known. */
  endpoint: string | undefined;
  uri: string;
  /** Absolute expiry (clock ms) for created/updated bindings. */
  expiresAt: number | undefined;
  userAgent: string | undefined;
}

/**
 * How the registrar reports reachability; the server connects it to core's endpoint state
 * (Endpoint `state` online/offline, ContactStatusChange / PeerStatusChange events).
 * A listener that throws is logged and does not stop the registrar.
 */
export interface EndpointStatusListener {
  /** A binding was created, refreshed, removed by its phone, or expired. */
  contactChanged?(change: ContactChange): void;
  /** An endpoint went from no registered contact to one (online) or back (offline). */
  endpointStateChanged?(endpoint: string, state: 'online' | 'offline'): void;
}

/** A contact to call, as outbound calls need it. */
export interface ResolvedContact {
  aor: string;
  uri: SipUri;
  /** Send here instead of the URI's host (the source of the REGISTER, for phones behind NAT). */
  flow: PeerAddress | undefined;
  /** Path values (RFC 3327 §5.3: used as the route set toward the contact), outermost first. */
  path: string[];
  /** True for a `contact=` of the AOR configuration. */
  static: boolean;
}

export interface RegistrarOptions {
  config: SipConfig;
  store: RegistrarContactStore;
  clock: Clock;
  logger: Logger;
  authenticators: readonly InboundAuthenticator[];
  listener?: EndpointStatusListener;
  userAgent?: string;
}

/** Largest value the registrar accepts in Expires (RFC 3261 §20.19: delta-seconds up to 2**32-1). */
const MAX_DELTA_SECONDS = 4_294_967_295;

/** A binding as this request would leave it. */
interface Binding {
  record: ContactRecord;
  named: boolean;
}

export class Registrar {
  #aors: ReadonlyMap<string, SipAorConfig>;
  #endpoints: readonly SipEndpointConfig[];
  readonly #store: RegistrarContactStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #authenticators: readonly InboundAuthenticator[];
  readonly #listener: EndpointStatusListener | undefined;
  readonly #userAgent: string;
  /** Expiry timers by `aor \n uri`. */
  readonly #timers = new Map<string, unknown>();
  /** REGISTERs for one AOR are processed one at a time so read-modify-write of its bindings is safe. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Dynamic binding count per endpoint, for online/offline. */
  readonly #endpointContacts = new Map<string, number>();
  #closed = false;

  constructor(options: RegistrarOptions) {
    this.#aors = new Map(options.config.aors.map((aor) => [aor.name, aor]));
    this.#endpoints = options.config.endpoints;
    this.#store = options.store;
    this.#clock = options.clock;
    this.#log = options.logger;
    this.#authenticators = options.authenticators;
    this.#listener = options.listener;
    this.#userAgent = options.userAgent ?? 'Switchboard';
  }

  /** The aors and endpoints in force changed; bindings of an aor that is gone expire as usual. */
  reloadObjects(config: Pick<SipConfig, 'aors' | 'endpoints'>): void {
    this.#aors = new Map(config.aors.map((aor) => [aor.name, aor]));
    this.#endpoints = config.endpoints;
  }

  /** Drops bindings that expired while the server was down and arms timers for the others. */
  async start(): Promise<void> {
    const now = this.#clock.now();
    const expired = await this.#store.deleteExpired(now);
    const live = await this.#store.all();
    for (const record of live) {
      if (!this.#aors.has(record.aor)) continue;
      this.#arm(record);
      this.#count(record.aor, record.endpoint, +1);
    }
    this.#log.info({ restored: live.length, expired }, 'registrations restored');
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) this.#clock.clearTimeout(timer);
    this.#timers.clear();
  }

  /** Live bindings of these AORs, then their static contacts. */
  async lookup(aorNames: readonly string[], endpoint: SipEndpointConfig): Promise<ResolvedContact[]> {
    const now = this.#clock.now();
    const useFlow = endpoint.forceRport || endpoint.rewriteContact;
    const found: ResolvedContact[] = [];
    for (const name of aorNames) {
      const aor = this.#aors.get(name);
      if (aor === undefined) continue;
      for (const record of await this.#store.listByAor(name)) {
        if (record.expiresAt <= now) continue;
        const uri = safeSipUri(record.uri);
        if (uri === undefined) continue;
        // A WebSocket client (RFC 7118 §5) can only be reached on the connection it opened.
        const transportParam = uri.params.get('transport')?.toLowerCase();
        const websocket = transportParam === 'ws' || transportParam === 'wss';
        const flow =
          (useFlow || websocket) && record.viaAddress !== undefined && record.viaPort !== undefined
            ? { address: record.viaAddress, port: record.viaPort }
            : undefined;
        const path = record.path === undefined || record.path === '' ? [] : record.path.split(/,(?=\s*<)/).map((p) => p.trim());
        found.push({ aor: name, uri, flow, path, static: false });
      }
      for (const text of aor.contacts) {
        const uri = safeSipUri(text);
        if (uri === undefined) {
          this.#log.warn({ aor: name, contact: text }, 'static contact is not a SIP URI; ignored');
          continue;
        }
        found.push({ aor: name, uri, flow: undefined, path: [], static: true });
      }
    }
    return found;
  }

  /** Answers a REGISTER (the transaction gets exactly one final response). */
  handleRegister(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): void {
    this.#process(request, context, transaction).catch((err: unknown) => {
      this.#log.error({ err, callId: request.callId }, 'REGISTER handling failed');
      this.#respond(transaction, request, 500);
    });
  }

  async #process(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): Promise<void> {
    const source = context.source;
    const auth = await authenticateInbound(this.#authenticators, request, source);
    if (auth.kind === 'reject') {
      this.#respond(transaction, request, auth.status, auth.headers ?? [], auth.reason);
      return;
    }
    const endpoint = auth.endpoint;
    if (endpoint.forceRport) {
      // force_rport: the response goes back to the packet's source port (RFC 3581 §4).
      const updated = applyReceived(request.topVia, source, true);
      if (updated !== undefined) request.replaceTopVia(updated);
    }
    const toUri = request.to.uri;
    const aorName = toUri.kind === 'sip' ? toUri.user : undefined;
    const aor = aorName === undefined ? undefined : this.#aors.get(aorName);
    if (aorName === undefined || aor === undefined || !endpoint.aors.includes(aorName)) {
      this.#log.warn(
        { endpoint: endpoint.name, aor: aorName, source: `${source.address}:${source.port}` },
        'REGISTER refused: the identified endpoint does not list this AOR in aors',
      );
      this.#respond(transaction, request, 403);
      return;
    }
    const queued = (this.#queues.get(aorName) ?? Promise.resolve()).then(() => this.#bind(request, source, transaction, aor, endpoint));
    const tail = queued.catch(() => undefined);
    this.#queues.set(aorName, tail);
    try {
      await queued;
    } finally {
      if (this.#queues.get(aorName) === tail) this.#queues.delete(aorName);
    }
  }

  async #bind(
    request: SipRequest,
    source: PeerAddress,
    transaction: ServerTransaction,
    aor: SipAorConfig,
    endpoint: SipEndpointConfig,
  ): Promise<void> {
    const now = this.#clock.now();
    const rawContacts = request.getHeaderList('Contact');
    const star = rawContacts.some((value) => value.trim() === '*');
    let contacts: NameAddr[];
    try {
      contacts = rawContacts.filter((value) => value.trim() !== '*').map(parseNameAddr);
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
      this.#respond(transaction, request, 400, [], 'Bad Contact');
      return;
    }
    const headerExpires = parseDelta(request.getHeader('Expires'));
    const existing = (await this.#store.listByAor(aor.name)).filter((record) => record.expiresAt > now);

    if (star) {
      // RFC 3261 §10.3 step 6: `*` only alone and with Expires: 0.
      if (contacts.length > 0 || headerExpires !== 0) {
        this.#respond(transaction, request, 400, [], 'Invalid Contact *');
        return;
      }
      await this.#store.replaceAor(aor.name, []);
      for (const record of existing) this.#removed(record, 'removed');
      this.#respond(transaction, request, 200, [['Date', new Date(now).toUTCString()]]);
      return;
    }

    const bindings = new Map<string, Binding>(existing.map((record) => [record.uri, { record, named: false }]));
    const callId = request.callId;
    const cseq = request.cseq.seq;
    const path = request.getHeaderList('Path').join(', ');
    const userAgent = request.getHeader('User-Agent');
    for (const contact of contacts) {
      if (contact.uri.kind !== 'sip') {
        this.#respond(transaction, request, 400, [], 'Contact is not a SIP URI');
        return;
      }
      const uri = contact.uri.toString();
      const expires = parseDelta(contact.params.get('expires') ?? undefined) ?? headerExpires ?? aor.defaultExpiration;
      if (expires !== 0 && expires < aor.minimumExpiration) {
        this.#respond(transaction, request, 423, [['Min-Expires', String(aor.minimumExpiration)]]);
        return;
      }
      const previous = bindings.get(uri)?.record;
      if (previous !== undefined && previous.callId === callId && previous.cseq !== undefined && cseq <= previous.cseq) {
        this.#respond(transaction, request, 500, [], 'Out of Order');
        return;
      }
      if (expires === 0) {
        bindings.delete(uri);
        continue;
      }
      const seconds = aor.maximumExpiration > 0 ? Math.min(expires, aor.maximumExpiration) : expires;
      const record: ContactRecord = {
        aor: aor.name,
        uri,
        expiresAt: now + seconds * 1000,
        viaAddress: source.address,
        viaPort: source.port,
        callId,
        cseq,
        endpoint: endpoint.name,
        ...(path !== '' ? { path } : {}),
        ...(userAgent !== undefined ? { userAgent: userAgent.slice(0, 256) } : {}),
      };
      bindings.set(uri, { record, named: true });
    }

    if (bindings.size > aor.maxContacts) {
      const named = [...bindings.values()].filter((b) => b.named).length;
      if (!aor.removeExisting || named > aor.maxContacts) {
        this.#log.info({ aor: aor.name, max: aor.maxContacts, wanted: bindings.size }, 'REGISTER exceeds max_contacts');
        this.#respond(transaction, request, 403, [], 'Too Many Contacts');
        return;
      }
      // remove_existing: make room by dropping the bindings this request did not name, soonest expiry first.
      const others = [...bindings.values()].filter((b) => !b.named).sort((a, b) => a.record.expiresAt - b.record.expiresAt);
      for (const binding of others) {
        if (bindings.size <= aor.maxContacts) break;
        bindings.delete(binding.record.uri);
      }
    }

    const next = [...bindings.values()].map((b) => b.record);
    if (contacts.length > 0) await this.#store.replaceAor(aor.name, next);
    if (this.#closed) return;

    const before = new Map(existing.map((record) => [record.uri, record]));
    for (const record of existing) if (!bindings.has(record.uri)) this.#removed(record, 'removed');
    for (const binding of bindings.values()) {
      if (!binding.named) continue;
      const kind = before.has(binding.record.uri) ? 'updated' : 'created';
      this.#arm(binding.record);
      if (kind === 'created') this.#count(aor.name, binding.record.endpoint, +1);
      this.#notify(binding.record, kind);
    }
    this.#log.debug({ aor: aor.name, endpoint: endpoint.name, bindings: next.length }, 'registration processed');
    this.#respond(transaction, request, 200, [
      ...next.map((record) => ['Contact', `<${record.uri}>;expires=${Math.max(0, Math.round((record.expiresAt - now) / 1000))}`] as const),
      ['Date', new Date(now).toUTCString()],
    ]);
  }

  #removed(record: ContactRecord, kind: 'removed' | 'expired'): void {
    this.#disarm(record);
    this.#count(record.aor, record.endpoint, -1);
    this.#notify(record, kind);
  }

  #arm(record: ContactRecord): void {
    this.#disarm(record);
    const key = `${record.aor}\n${record.uri}`;
    const expiresAt = record.expiresAt;
    const timer = this.#clock.setTimeout(
      () => {
        this.#timers.delete(key);
        void this.#expire(record.aor, record.uri, expiresAt);
      },
      Math.max(0, expiresAt - this.#clock.now()),
    );
    this.#timers.set(key, timer);
  }

  #disarm(record: ContactRecord): void {
    const key = `${record.aor}\n${record.uri}`;
    const timer = this.#timers.get(key);
    if (timer !== undefined) this.#clock.clearTimeout(timer);
    this.#timers.delete(key);
  }

  /** The binding's time is up (RFC 3261 §10.2.1: the registrar removes it silently). */
  async #expire(aor: string, uri: string, expiresAt: number): Promise<void> {
    const run = async () => {
      const current = (await this.#store.listByAor(aor)).find((record) => record.uri === uri);
      // A refresh that raced the timer has moved the expiry: nothing to do.
      if (current === undefined || current.expiresAt !== expiresAt) return;
      await this.#store.delete(aor, uri);
      if (this.#closed) return;
      this.#count(aor, current.endpoint, -1);
      this.#notify(current, 'expired');
    };
    const queued = (this.#queues.get(aor) ?? Promise.resolve()).then(run);
    const tail = queued.catch((err: unknown) => this.#log.error({ err, aor }, 'expiring a registration failed'));
    this.#queues.set(aor, tail);
    await tail;
    if (this.#queues.get(aor) === tail) this.#queues.delete(aor);
  }

  #count(aor: string, endpointName: string | undefined, delta: number): void {
    const endpoint = endpointName ?? this.#endpoints.find((e) => e.aors.includes(aor))?.name;
    if (endpoint === undefined) return;
    const before = this.#endpointContacts.get(endpoint) ?? 0;
    const after = Math.max(0, before + delta);
    if (after === 0) this.#endpointContacts.delete(endpoint);
    else this.#endpointContacts.set(endpoint, after);
    if ((before === 0) === (after === 0)) return;
    try {
      this.#listener?.endpointStateChanged?.(endpoint, after > 0 ? 'online' : 'offline');
    } catch (err) {
      this.#log.error({ err }, 'endpoint status listener failed');
    }
  }

  #notify(record: ContactRecord, kind: ContactChangeKind): void {
    // Operators follow registrations in the log (a refresh is routine and stays at debug).
    // `received`: where the REGISTER came from (behind a NAT, the mapping requests to it use).
    const received = record.viaAddress === undefined ? {} : { received: `${record.viaAddress}:${record.viaPort ?? ''}` };
    const entry = { aor: record.aor, endpoint: record.endpoint, uri: record.uri, ...received };
    if (kind === 'created') this.#log.info(entry, 'contact added');
    else if (kind === 'removed') this.#log.info(entry, 'contact removed');
    else if (kind === 'expired') this.#log.info(entry, 'contact expired');
    else this.#log.debug(entry, 'contact refreshed');
    try {
      this.#listener?.contactChanged?.({
        kind,
        aor: record.aor,
        endpoint: record.endpoint,
        uri: record.uri,
        expiresAt: kind === 'created' || kind === 'updated' ? record.expiresAt : undefined,
        userAgent: record.userAgent,
      });
    } catch (err) {
      this.#log.error({ err }, 'endpoint status listener failed');
    }
  }

  /** Whether an endpoint has a registered (dynamic) contact right now. */
  isOnline(endpoint: string): boolean {
    return (this.#endpointContacts.get(endpoint) ?? 0) > 0;
  }

  #respond(
    transaction: ServerTransaction,
    request: SipRequest,
    status: number,
    headers: ReadonlyArray<readonly [string, string]> = [],
    reason?: string,
  ): void {
    if (transaction.finalResponseSent || transaction.terminated) return;
    transaction.respond(
      createResponse(request, status, {
        toTag: newTag(),
        ...(reason !== undefined ? { reason } : {}),
        headers: [...headers, ['Server', this.#userAgent]],
      }),
    );
  }
}

/** delta-seconds (RFC 3261 §25.1); anything else counts as absent (§10.3 step 7: then the default). */
function parseDelta(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^\d{1,10}$/.test(text)) return undefined;
  return Math.min(Number(text), MAX_DELTA_SECONDS);
}

function safeSipUri(text: string): SipUri | undefined {
  try {
    const uri = parseUri(text.trim());
    return uri.kind === 'sip' ? uri : undefined;
  } catch (err) {
    if (err instanceof SipParseError) return undefined;
    throw err;
  }
}
