/**
 * One conference and its users. A user's life:
 *
 *   waiting (wait_marked, no marked user yet: music on hold) ──► in (in the mixing bridge) ──► left
 *        └───────────────────────── hangup / kicked ─────────────────────────────────────────┘
 *
 * `leave` is the one way out: it records why (CONFBRIDGE_RESULT) and wakes the ConfBridge
 * application that waits on the user's `left` signal.
 */
import type { Bridge } from '../../../bridges/bridge.js';
import type { Channel } from '../../../channels/channel.js';
import type { BridgeProfile, MenuProfile, UserProfile } from './confbridge-config.js';

/** CONFBRIDGE_RESULT values of the original. */
export type ConfBridgeResult = 'FAILED' | 'HANGUP' | 'KICKED' | 'ENDMARKED' | 'DTMF' | 'TIMEOUT';

export type UserState = 'waiting' | 'in' | 'left';

const TRANSITIONS: Record<UserState, readonly UserState[]> = {
  waiting: ['in', 'left'],
  in: ['left'],
  left: [],
};

export class ConferenceUser {
  readonly channel: Channel;
  readonly profile: UserProfile;
  readonly menu: MenuProfile | undefined;
  /** The name the user recorded on joining (announce_join_leave), a stored recording's name. */
  readonly nameRecording: string | undefined;
  readonly joinedAt = Date.now();
  muted: boolean;
  /** -4..4, as the original's listening volume steps. */
  listenVolume = 0;
  /** Talking now, by talk detection (talk_detection_events); false without it. */
  talking = false;
  result: ConfBridgeResult = 'HANGUP';
  /** Whether the user got in (a hangup may have taken the channel out of the bridge already). */
  wasIn = false;
  #state: UserState = 'waiting';
  readonly #left = new AbortController();
  readonly #entered: Array<() => void> = [];

  constructor(channel: Channel, profile: UserProfile, menu: MenuProfile | undefined, nameRecording?: string) {
    this.channel = channel;
    this.profile = profile;
    this.menu = menu;
    this.nameRecording = nameRecording;
    this.muted = profile.startMuted;
  }

  get state(): UserState {
    return this.#state;
  }

  /** Aborts when the user has left the conference (for whatever reason). */
  get left(): AbortSignal {
    return this.#left.signal;
  }

  transition(next: UserState): void {
    if (!TRANSITIONS[this.#state].includes(next)) throw new Error(`conference user: ${this.#state} → ${next} is not allowed`);
    this.#state = next;
    if (next === 'in') this.wasIn = true;
    if (next === 'in') for (const wake of this.#entered.splice(0)) wake();
    if (next === 'left') {
      for (const wake of this.#entered.splice(0)) wake();
      this.#left.abort();
    }
  }

  /** Resolves when a waiting user is let in (or leaves). */
  whenEntered(): Promise<void> {
    if (this.#state !== 'waiting') return Promise.resolve();
    return new Promise((resolve) => this.#entered.push(resolve));
  }

  /** Marks the user as leaving with `result`; the application notices through `left`. */
  leave(result: ConfBridgeResult): void {
    if (this.#state === 'left') return;
    this.result = result;
    this.transition('left');
  }
}

export class Conference {
  readonly name: string;
  readonly profile: BridgeProfile;
  readonly bridge: Bridge;
  readonly users = new Map<string, ConferenceUser>();
  readonly startedAt = Date.now();
  locked = false;
  recordingName: string | undefined;
  ended = false;

  constructor(name: string, profile: BridgeProfile, bridge: Bridge) {
    this.name = name;
    this.profile = profile;
    this.bridge = bridge;
  }

  /** Users in the bridge, in the order they joined. */
  present(): ConferenceUser[] {
    return [...this.users.values()].filter((u) => u.state === 'in');
  }

  waiting(): ConferenceUser[] {
    return [...this.users.values()].filter((u) => u.state === 'waiting');
  }

  markedPresent(): boolean {
    return this.present().some((u) => u.profile.marked);
  }
}

/** A conference as the operator console lists it. */
export interface ConferenceSnapshot {
  name: string;
  bridge_id: string;
  bridge_profile: string;
  locked: boolean;
  recording?: string;
  started: string;
  participants: Array<{
    channel: string;
    channel_id: string;
    user_profile: string;
    state: UserState;
    admin: boolean;
    marked: boolean;
    muted: boolean;
    joined: string;
  }>;
}

export function conferenceSnapshot(conference: Conference): ConferenceSnapshot {
  return {
    name: conference.name,
    bridge_id: conference.bridge.id,
    bridge_profile: conference.profile.name,
    locked: conference.locked,
    ...(conference.recordingName === undefined ? {} : { recording: conference.recordingName }),
    started: new Date(conference.startedAt).toISOString(),
    participants: [...conference.users.values()].map((u) => ({
      channel: u.channel.name,
      channel_id: u.channel.id,
      user_profile: u.profile.name,
      state: u.state,
      admin: u.profile.admin,
      marked: u.profile.marked,
      muted: u.muted,
      joined: new Date(u.joinedAt).toISOString(),
    })),
  };
}
