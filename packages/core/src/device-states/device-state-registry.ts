/**
 * Device states (SPEC §4.10, reference deviceStates.md). Two kinds of device:
 * - controlled devices (`App:<name>`), set by applications and kept in the store so they survive a
 *   restart;
 * - endpoint devices (`SIP/alice`), derived from the endpoint's reachability and its channels and
 *   announced whenever the derived value changes.
 * Every change is published as DeviceStateChanged; applications subscribe with `deviceState:<name>`.
 */
import { endpointOfChannelName } from '../apps/event-recipients.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import { conflict, CoreError, notFound } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import type { EventBus } from '../events/event-bus.js';
import type { DeviceStateSnapshot, DeviceStateValue } from '../model/snapshots.js';
import type { DeviceStateStore } from '../store/types.js';
import type { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import { canonicalDeviceName, canonicalTechnology } from '../endpoints/technology.js';
import { deviceStateOfCounts } from './derived-state.js';
import { CONTROLLED_DEVICE_PREFIX, isDeviceStateValue, type SettableDeviceState } from './device-state-values.js';

export interface DeviceStateRegistryOptions {
  bus: EventBus;
  channels: ChannelRegistry;
  endpoints: EndpointRegistry;
  /** Absent: controlled devices are refused with `unavailable` (the server always passes one). */
  store: DeviceStateStore | undefined;
}

export class DeviceStateRegistry {
  readonly #bus: EventBus;
  readonly #channels: ChannelRegistry;
  readonly #endpoints: EndpointRegistry;
  readonly #store: DeviceStateStore | undefined;
  /** Last published (merged) value of each endpoint device, so only changes are published. */
  readonly #derived = new Map<string, DeviceStateValue>();
  /** Last value derived from this node's own channels, as told to the other nodes. */
  readonly #announced = new Map<string, DeviceStateValue>();
  /** Other nodes' values of endpoint devices: device name → node id → state. */
  readonly #remote = new Map<string, Map<string, RemoteEndpointState>>();

  constructor(options: DeviceStateRegistryOptions) {
    this.#bus = options.bus;
    this.#channels = options.channels;
    this.#endpoints = options.endpoints;
    this.#store = options.store;
    options.bus.subscribe((event) => this.#onEvent(event));
    // A store shared by a cluster tells of other nodes' controlled devices: lamps are cluster-wide.
    options.store?.onRemoteChange?.((name, record) => {
      if (!isControlled(name)) return;
      const state = record && isDeviceStateValue(record.state) ? record.state : 'UNKNOWN';
      this.#bus.publish({ type: 'DeviceStateChanged', device_state: { name, state } });
    });
    // … and of the endpoint devices other nodes derive from their calls.
    if (options.store?.onRemoteEndpoint) {
      options.store.onRemoteEndpoint((nodeId, name, state) => this.#onRemoteEndpoint(nodeId, name, state));
      // A node that dies says nothing more: busy values are told again every REFRESH_MS and
      // another node's value not heard again within REMOTE_EXPIRY_MS is dropped.
      setInterval(() => this.#refresh(), REFRESH_MS).unref();
    }
  }

  /** The controlled devices (the reference lists only those). */
  async list(): Promise<DeviceStateSnapshot[]> {
    const records = await this.#requireStore().all();
    return records
      .filter((r) => isControlled(r.name))
      .map((r) => ({ name: r.name, state: isDeviceStateValue(r.state) ? r.state : 'UNKNOWN' }));
  }

  /** Any device: a controlled one from the store, an endpoint device derived; otherwise 404. */
  async get(name: string): Promise<DeviceStateSnapshot> {
    if (isControlled(name)) {
      const record = await this.#requireStore().get(name);
      if (!record) throw notFound('Device state not found');
      return { name, state: isDeviceStateValue(record.state) ? record.state : 'UNKNOWN' };
    }
    const derived = this.endpointDeviceState(name);
    if (!derived) throw notFound('Device state not found');
    return derived;
  }

  /** Creates or changes a controlled device; 409 for a name without `App:`, 404 for `App:` alone. */
  async update(name: string, state: SettableDeviceState): Promise<void> {
    assertControlled(name);
    await this.#requireStore().set(name, state);
    this.#bus.publish({ type: 'DeviceStateChanged', device_state: { name, state } });
  }

  async delete(name: string): Promise<void> {
    assertControlled(name);
    if (!(await this.#requireStore().delete(name))) throw notFound('Device state not found');
    // Subscribers see the device go back to the state every unknown device has.
    this.#bus.publish({ type: 'DeviceStateChanged', device_state: { name, state: 'UNKNOWN' } });
  }

  /**
   * `SIP/alice` (or `PJSIP/alice`) → its state derived here, merged with what the other nodes of a
   * cluster announced for it; undefined for a device we do not know.
   */
  endpointDeviceState(name: string): DeviceStateSnapshot | undefined {
    const local = this.#localEndpointDeviceState(name);
    if (!local) return undefined;
    const remote = this.#remote.get(local.name);
    return remote
      ? {
          name: local.name,
          state: mergeDeviceStates(
            local.state,
            [...remote.values()].map((r) => r.state),
          ),
        }
      : local;
  }

  #localEndpointDeviceState(name: string): DeviceStateSnapshot | undefined {
    const canonical = canonicalDeviceName(name);
    const slash = canonical.indexOf('/');
    if (slash <= 0) return undefined;
    const technology = canonical.slice(0, slash);
    const resource = canonical.slice(slash + 1);
    const state = this.#endpoints.stateOf(technology, resource);
    if (state === undefined) return undefined;
    // Counts kept by the channel registry: this runs on every channel state change.
    return { name: canonical, state: deviceStateOfCounts(state, this.#channels.endpointChannelCounts(technology, resource)) };
  }

  #onEvent(event: TimedDomainEvent): void {
    if (event.type === 'EndpointStateChange') this.#recompute(`${event.endpoint.technology}/${event.endpoint.resource}`);
    else if (event.type === 'ChannelCreated' || event.type === 'ChannelDestroyed') {
      // Not through EndpointStateChange: that is published only for endpoints an application takes.
      const channel = this.#channels.get(event.channel.id);
      const endpoint =
        channel === undefined ? endpointOfChannelName(event.channel.name) : { technology: channel.technology, resource: channel.endpoint };
      if (endpoint !== undefined) this.#recompute(`${canonicalTechnology(endpoint.technology)}/${endpoint.resource}`);
    } else if (event.type === 'ChannelStateChange') {
      const channel = this.#channels.get(event.channel.id);
      if (channel) this.#recompute(`${canonicalTechnology(channel.technology)}/${channel.endpoint}`);
    }
  }

  #recompute(name: string): void {
    this.#announce(name);
    const current = this.endpointDeviceState(name);
    if (!current || this.#derived.get(current.name) === current.state) return;
    this.#derived.set(current.name, current.state);
    this.#bus.publish({ type: 'DeviceStateChanged', device_state: current });
  }

  /** Tells the other nodes when the state derived from this node's own channels changes. */
  #announce(name: string): void {
    const store = this.#store;
    if (!store?.announceEndpoint) return;
    const local = this.#localEndpointDeviceState(name);
    if (!local || this.#announced.get(local.name) === local.state) return;
    this.#announced.set(local.name, local.state);
    store.announceEndpoint(local.name, local.state).catch(() => {
      // Forget it so the next change is announced again; other nodes keep the previous value meanwhile.
      this.#announced.delete(local.name);
    });
  }

  #onRemoteEndpoint(nodeId: string, name: string, state: string): void {
    const canonical = canonicalDeviceName(name);
    let perNode = this.#remote.get(canonical);
    if (isDeviceStateValue(state) && isBusy(state)) {
      if (!perNode) {
        perNode = new Map();
        this.#remote.set(canonical, perNode);
      }
      perNode.set(nodeId, { state, heardAt: Date.now() });
    } else if (perNode) {
      // Idle there: only this node's own reachability and calls count for it again.
      perNode.delete(nodeId);
      if (perNode.size === 0) this.#remote.delete(canonical);
    }
    this.#recompute(canonical);
  }

  /**
   * A node of the cluster is gone (its heartbeat stopped): its announced values go at once, rather
   * than after REMOTE_EXPIRY_MS, so a lamp lit by its calls goes out with them.
   */
  forgetNode(nodeId: string): void {
    for (const [name, perNode] of this.#remote) {
      if (!perNode.delete(nodeId)) continue;
      if (perNode.size === 0) this.#remote.delete(name);
      this.#recompute(name);
    }
  }

  #refresh(): void {
    for (const [name, state] of this.#announced) {
      if (isBusy(state)) this.#store?.announceEndpoint?.(name, state).catch(() => this.#announced.delete(name));
    }
    const oldest = Date.now() - REMOTE_EXPIRY_MS;
    for (const [name, perNode] of this.#remote) {
      for (const [nodeId, remote] of perNode) if (remote.heardAt < oldest) perNode.delete(nodeId);
      if (perNode.size === 0) this.#remote.delete(name);
      this.#recompute(name);
    }
  }

  #requireStore(): DeviceStateStore {
    if (!this.#store) throw new CoreError('unavailable', 'Device state storage is not configured');
    return this.#store;
  }
}

/** How often a node tells its busy endpoint devices again (see the constructor). */
const REFRESH_MS = 20_000;
const REMOTE_EXPIRY_MS = 3 * REFRESH_MS;

interface RemoteEndpointState {
  state: DeviceStateValue;
  heardAt: number;
}

const RINGING_STATES: ReadonlySet<DeviceStateValue> = new Set(['RINGING', 'RINGINUSE']);
const IN_USE_STATES: ReadonlySet<DeviceStateValue> = new Set(['INUSE', 'BUSY', 'ONHOLD', 'RINGINUSE']);

function isBusy(state: DeviceStateValue): boolean {
  return RINGING_STATES.has(state) || IN_USE_STATES.has(state);
}

/**
 * One device over several nodes: in use on any node is in use, ringing on any is ringing, both
 * is RINGINUSE; when no node has a call the local value (reachability) stands.
 */
export function mergeDeviceStates(local: DeviceStateValue, remote: Iterable<DeviceStateValue>): DeviceStateValue {
  const all = [local, ...remote];
  const ringing = all.some((s) => RINGING_STATES.has(s));
  const inUse = all.some((s) => IN_USE_STATES.has(s));
  if (ringing && inUse) return 'RINGINUSE';
  if (ringing) return 'RINGING';
  if (inUse) return 'INUSE';
  return local;
}

function isControlled(name: string): boolean {
  return name.startsWith(CONTROLLED_DEVICE_PREFIX);
}

function assertControlled(name: string): void {
  if (!isControlled(name)) throw conflict(`Only devices named ${CONTROLLED_DEVICE_PREFIX}<name> can be changed`);
  if (name.length === CONTROLLED_DEVICE_PREFIX.length) throw notFound('Device name missing after the prefix');
}
