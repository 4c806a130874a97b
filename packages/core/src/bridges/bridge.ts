import type { Channel } from '../channels/channel.js';
import type { BridgeSnapshot, BridgeVideoMode } from '../model/snapshots.js';
import { formatWireDate } from '../util/time.js';
import type { BridgeType } from './bridge-type.js';

/** How a channel takes part in a bridge (addChannel flags). */
export interface ParticipantOptions {
  /** Cleared each time the channel enters a bridge (SPEC §2.3); `announcer` matters in holding bridges. */
  role?: string;
  mute: boolean;
  absorbDtmf: boolean;
  inhibitConnectedLineUpdates: boolean;
}

export interface Participant {
  channel: Channel;
  options: ParticipantOptions;
}

export interface BridgeInit {
  id: string;
  name: string;
  type: BridgeType;
  /** Created through the API: only such bridges may be controlled by it (others answer 409). */
  appOwned: boolean;
  /** Shown as `bridge_class` / `creator`; by default `app`/`App`, or `base`/'' for core's own bridges. */
  bridgeClass?: string;
  creator?: string;
}

/**
 * A bridge's state: its participants, video source and variables. The registry changes it and
 * publishes the events; a bridge never outlives its registry entry.
 */
export class Bridge {
  readonly id: string;
  readonly name: string;
  readonly type: BridgeType;
  readonly appOwned: boolean;
  readonly bridgeClass: string;
  readonly creator: string;
  readonly createdAt = new Date();
  readonly participants = new Map<string, Participant>();
  /** Bridge variables; those with `report` set appear as `bridgevars` in snapshots. */
  readonly variables = new Map<string, { value: string; report: boolean }>();
  videoMode: BridgeVideoMode;
  videoSourceId: string | undefined;
  #destroyed = false;
  readonly #destroyHooks: (() => void)[] = [];

  constructor(init: BridgeInit) {
    this.id = init.id;
    this.name = init.name;
    this.type = init.type;
    this.appOwned = init.appOwned;
    this.bridgeClass = init.bridgeClass ?? (init.appOwned ? 'app' : 'base');
    this.creator = init.creator ?? (init.appOwned ? 'App' : '');
    this.videoMode = init.type.videoMode;
  }

  get isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** Work bound to the bridge (playbacks, recordings, music) ends with it. */
  onDestroy(hook: () => void): void {
    this.#destroyHooks.push(hook);
  }

  /** Marks the bridge gone and runs its hooks once. */
  markDestroyed(onError: (err: unknown) => void): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const hook of this.#destroyHooks) {
      try {
        hook();
      } catch (err) {
        onError(err);
      }
    }
  }

  /** The technology the reference would pick: two-party relay, multi-party mix, or holding. */
  get technology(): string {
    if (this.type.kind === 'holding') return 'holding_bridge';
    return this.participants.size > 2 || this.type.attributes.has('video_sfu') ? 'softmix' : 'simple_bridge';
  }

  snapshot(): BridgeSnapshot {
    const snapshot: BridgeSnapshot = {
      id: this.id,
      technology: this.technology,
      bridge_type: this.type.kind,
      bridge_class: this.bridgeClass,
      creator: this.creator,
      name: this.name,
      channels: [...this.participants.keys()],
      video_mode: this.videoMode,
      creationtime: formatWireDate(this.createdAt),
    };
    if (this.videoSourceId !== undefined && this.videoMode !== 'none') snapshot.video_source_id = this.videoSourceId;
    const reported = [...this.variables].filter(([, v]) => v.report);
    if (reported.length > 0) snapshot.bridgevars = Object.fromEntries(reported.map(([k, v]) => [k, v.value]));
    return snapshot;
  }
}
