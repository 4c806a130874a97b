/**
 * Qualify: an OPTIONS ping (RFC 3261 §11.1) every `qualify_frequency` seconds to each contact,
 * registered or static, of every AOR that asks for it. Any final response means the contact is
 * reachable — a 404 or 405 still proves a UA answered — with the round-trip time measured from send
 * to response; no response within QUALIFY_TIMEOUT (or a transport error) means unreachable.
 *
 * Reports go to a listener only on change: a contact's Reachable/Unreachable, and the endpoint's
 * peer status (Reachable while any of its qualified contacts is). At most MAX_CONCURRENT_PINGS are
 * outstanding at once, so an AOR with many contacts cannot flood the transport.
 *
 *   (first ping) ──response──> Reachable ──timeout──> Unreachable ──response──> Reachable …
 */
import type { Clock, Logger, SipAorConfig, SipEndpointConfig } from '@switchboard/core';
import type { Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import type { OutboundTarget } from '../calls/outbound-call.js';
import { sendOutOfDialog } from '../messaging/out-of-dialog.js';

/** Asterisk's `qualify_timeout` default: a ping unanswered after 3 s counts as lost. */
export const QUALIFY_TIMEOUT_MS = 3000;
export const MAX_CONCURRENT_PINGS = 16;

export type ContactReachability = 'Reachable' | 'Unreachable';

/** One contact's answer to an on-demand qualify (PJSIPQualify). */
export interface ContactQualifyResult {
  aor: string;
  uri: string;
  status: ContactReachability;
  roundtripUsec?: number;
}

export interface QualifyListener {
  contactStatus(change: { endpoint: string; aor: string; uri: string; status: ContactReachability; roundtripUsec?: number }): void;
  peerStatus(endpoint: string, status: ContactReachability): void;
}

export interface QualifierOptions {
  ua: UserAgentCore;
  clock: Clock;
  logger: Logger;
  aors: readonly SipAorConfig[];
  endpoints: readonly SipEndpointConfig[];
  /** The AOR's contacts as targets (registered and static). */
  contactsOf(aor: string, endpoint: SipEndpointConfig): Promise<OutboundTarget[]>;
  transportFor(endpoint: SipEndpointConfig, target: OutboundTarget): Transport | undefined;
  listener: QualifyListener;
  userAgent: string;
  timeoutMs?: number;
  maxConcurrent?: number;
}

export class Qualifier {
  readonly #options: QualifierOptions;
  readonly #timers = new Map<string, unknown>();
  /** `aor|uri` → last reported reachability. */
  readonly #contactStatus = new Map<string, ContactReachability>();
  readonly #peerStatus = new Map<string, ContactReachability>();
  readonly #queue: Array<() => Promise<void>> = [];
  #running = 0;
  #closed = false;

  constructor(options: QualifierOptions) {
    this.#options = options;
  }

  start(): void {
    for (const aor of this.#options.aors) {
      if (aor.qualifyFrequency <= 0) continue;
      const endpoint = this.#options.endpoints.find((e) => e.aors.includes(aor.name));
      if (endpoint === undefined) continue;
      this.#schedule(aor, endpoint, 0);
    }
  }

  /** Pings the AOR's contacts now (a contact just registered need not wait a whole period). */
  qualifyAor(aorName: string): void {
    const aor = this.#options.aors.find((a) => a.name === aorName);
    const endpoint = this.#options.endpoints.find((e) => e.aors.includes(aorName));
    if (aor === undefined || endpoint === undefined || aor.qualifyFrequency <= 0 || this.#closed) return;
    void this.#round(aor, endpoint);
  }

  /**
   * Pings every contact of the endpoint's AORs now, whatever their qualify_frequency (the
   * manager's PJSIPQualify); resolves with each contact's answer once all have answered or timed
   * out. Changes are reported to the listener as for the periodic pings.
   */
  async qualifyEndpoint(endpoint: SipEndpointConfig): Promise<ContactQualifyResult[]> {
    const results: ContactQualifyResult[] = [];
    for (const aor of endpoint.aors) {
      let targets: OutboundTarget[];
      try {
        targets = await this.#options.contactsOf(aor, endpoint);
      } catch (err) {
        this.#options.logger.warn({ err, aor }, 'qualify: contacts could not be read');
        continue;
      }
      await Promise.all(
        targets.map((target) =>
          this.#limited(async () => {
            const result = await this.#ping(aor, endpoint, target);
            if (result !== undefined) results.push(result);
          }),
        ),
      );
    }
    this.#updatePeer(endpoint);
    return results;
  }

  /** Stops every timer; pings still in flight report nothing. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) this.#options.clock.clearTimeout(timer);
    this.#timers.clear();
    this.#queue.length = 0;
  }

  #schedule(aor: SipAorConfig, endpoint: SipEndpointConfig, delayMs: number): void {
    if (this.#closed) return;
    const timer = this.#options.clock.setTimeout(() => {
      void this.#round(aor, endpoint).finally(() => this.#schedule(aor, endpoint, aor.qualifyFrequency * 1000));
    }, delayMs);
    this.#timers.set(aor.name, timer);
  }

  async #round(aor: SipAorConfig, endpoint: SipEndpointConfig): Promise<void> {
    let targets: OutboundTarget[];
    try {
      targets = await this.#options.contactsOf(aor.name, endpoint);
    } catch (err) {
      this.#options.logger.warn({ err, aor: aor.name }, 'qualify: contacts could not be read');
      return;
    }
    await Promise.all(targets.map((target) => this.#limited(async () => void (await this.#ping(aor.name, endpoint, target)))));
    this.#updatePeer(endpoint);
  }

  #limited(task: () => Promise<void>): Promise<void> {
    const max = this.#options.maxConcurrent ?? MAX_CONCURRENT_PINGS;
    return new Promise((resolve) => {
      const run = async () => {
        this.#running++;
        try {
          await task();
        } finally {
          this.#running--;
          resolve();
          const next = this.#queue.shift();
          if (next !== undefined) void next();
        }
      };
      if (this.#running < max) void run();
      else this.#queue.push(run);
    });
  }

  /** One OPTIONS ping; reports a change to the listener and returns the answer (undefined: not sent). */
  async #ping(aorName: string, endpoint: SipEndpointConfig, target: OutboundTarget): Promise<ContactQualifyResult | undefined> {
    if (this.#closed) return undefined;
    const transport = target.transport ?? this.#options.transportFor(endpoint, target);
    if (transport === undefined) return undefined;
    const clock = this.#options.clock;
    const started = clock.now();
    const startedHr = process.hrtime.bigint();
    let timer: unknown;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = clock.setTimeout(() => resolve('timeout'), this.#options.timeoutMs ?? QUALIFY_TIMEOUT_MS);
    });
    const outcome = await Promise.race([
      sendOutOfDialog(this.#options.ua, {
        method: 'OPTIONS',
        target,
        transport,
        headers: [['Accept', 'application/sdp']],
        userAgent: this.#options.userAgent,
      }),
      timeout,
    ]);
    clock.clearTimeout(timer);
    if (this.#closed) return undefined;
    const uri = target.requestUri.toString();
    const reachable = outcome !== 'timeout' && outcome.kind === 'response';
    // The wall-clock difference on a fake clock is 0; the monotonic clock gives the real figure.
    const elapsedUsec = Math.max(Number((process.hrtime.bigint() - startedHr) / 1000n), (clock.now() - started) * 1000);
    const status: ContactReachability = reachable ? 'Reachable' : 'Unreachable';
    const result: ContactQualifyResult = { aor: aorName, uri, status, ...(reachable ? { roundtripUsec: elapsedUsec } : {}) };
    const key = `${aorName}|${uri}`;
    if (this.#contactStatus.get(key) === status) return result;
    this.#contactStatus.set(key, status);
    this.#options.logger.info({ aor: aorName, uri, status }, 'contact status');
    try {
      this.#options.listener.contactStatus({ endpoint: endpoint.name, ...result });
    } catch (err) {
      this.#options.logger.error({ err }, 'qualify listener failed');
    }
    return result;
  }

  #updatePeer(endpoint: SipEndpointConfig): void {
    if (this.#closed) return;
    const prefixes = endpoint.aors.map((a) => `${a}|`);
    const statuses = [...this.#contactStatus].filter(([key]) => prefixes.some((p) => key.startsWith(p))).map(([, s]) => s);
    if (statuses.length === 0) return;
    const status: ContactReachability = statuses.includes('Reachable') ? 'Reachable' : 'Unreachable';
    if (this.#peerStatus.get(endpoint.name) === status) return;
    this.#peerStatus.set(endpoint.name, status);
    try {
      this.#options.listener.peerStatus(endpoint.name, status);
    } catch (err) {
      this.#options.logger.error({ err }, 'qualify listener failed');
    }
  }

  /** A contact that went away is forgotten, so it reports afresh if it comes back. */
  forgetContact(aor: string, uri: string): void {
    this.#contactStatus.delete(`${aor}|${uri}`);
  }
}
