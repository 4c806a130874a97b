/**
 * Conferences: each one is a core mixing bridge (GET /bridges lists it, bridge_class `confbridge`,
 * named after the conference), so applications may subscribe to it. The service admits users
 * (max_members, locked, wait_marked), announces joins and leaves, plays music while someone is
 * alone, ends marked-only conferences (end_marked), records (record_conference, or on demand from
 * the manager's ConfbridgeStartRecord), runs the menu actions and publishes the Confbridge* office
 * events.
 */
import type { BridgeRegistry } from '../../../bridges/bridge-registry.js';
import type { Channel } from '../../../channels/channel.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { MediaEngine } from '../../../media/media-engine.js';
import type { PlaybackManager } from '../../../playback/playback-manager.js';
import { bridgeRecordTarget } from '../../../recordings/record-targets.js';
import type { RecordingManager } from '../../../recordings/recording-manager.js';
import type { Logger } from '../../../util/logger.js';
import { volumeFactor } from '../mixmonitor/mixmonitor-options.js';
import type { BridgeProfile, ConfBridgeConfig, MenuAction, MenuProfile, UserProfile } from './confbridge-config.js';
import { Conference, type ConferenceSnapshot, ConferenceUser, type ConfBridgeResult, conferenceSnapshot } from './conference.js';

export interface ConfBridgeDeps {
  bus: EventBus;
  bridges: BridgeRegistry;
  playbacks: PlaybackManager;
  media: MediaEngine;
  recordings: RecordingManager;
  moh: { start(channel: Channel, mohClass: string | undefined): Promise<void>; stop(channel: Channel): Promise<void> };
  config: () => ConfBridgeConfig;
  defaultLanguage: string;
  log: Logger;
}

export interface JoinProfiles {
  bridge: BridgeProfile;
  user: UserProfile;
  menu: MenuProfile | undefined;
}

export class ConfBridgeService {
  readonly #conferences = new Map<string, Conference>();
  readonly #deps: ConfBridgeDeps;

  constructor(deps: ConfBridgeDeps) {
    this.#deps = deps;
    deps.bus.subscribe((event) => {
      if (event.type !== 'ChannelTalkingStarted' && event.type !== 'ChannelTalkingFinished') return;
      for (const conference of this.#conferences.values()) {
        const user = conference.users.get(event.channel.id);
        if (user?.state !== 'in' || !user.profile.talkDetectionEvents) continue;
        user.talking = event.type === 'ChannelTalkingStarted';
        deps.bus.publish({
          type: 'ConfbridgeTalking',
          conference: conference.name,
          bridge: conference.bridge.snapshot(),
          channel: event.channel,
          admin: user.profile.admin,
          talking: event.type === 'ChannelTalkingStarted',
        });
      }
    });
  }

  /** Every conference with its participants (console: confbridge list). */
  list(): ConferenceSnapshot[] {
    return [...this.#conferences.values()].map(conferenceSnapshot);
  }

  get(name: string): Conference | undefined {
    return this.#conferences.get(name);
  }

  /**
   * Puts the channel into the conference and resolves when it has left, with CONFBRIDGE_RESULT.
   * The menu (if any) is served by `serveMenu` while the user is in.
   */
  async join(
    channel: Channel,
    name: string,
    profiles: JoinProfiles,
    serveMenu: (user: ConferenceUser, conference: Conference) => Promise<void>,
    nameRecording?: string,
  ): Promise<ConfBridgeResult> {
    const conference = this.#conferences.get(name) ?? (await this.#start(name, profiles.bridge));
    const admitted = conference.present().length + conference.waiting().length;
    if (!profiles.user.admin && (conference.locked || (conference.profile.maxMembers > 0 && admitted >= conference.profile.maxMembers))) {
      await this.#playTo(channel, ['conf-locked']);
      this.#forgetName(nameRecording);
      this.#endIfEmpty(conference);
      return 'FAILED';
    }
    const user = new ConferenceUser(channel, profiles.user, profiles.menu, nameRecording);
    conference.users.set(channel.id, user);
    channel.onHangup(() => user.leave('HANGUP'));
    try {
      if (profiles.user.waitMarked && !conference.markedPresent()) {
        if (!profiles.user.quiet) await this.#playTo(channel, ['conf-waitforleader']);
        if (user.state === 'waiting')
          await this.#deps.moh.start(channel, profiles.user.musicOnHoldClass || undefined).catch(() => undefined);
        await user.whenEntered();
        await this.#deps.moh.stop(channel).catch(() => undefined);
        if (user.state === 'left') return user.result;
      } else {
        user.transition('in');
      }
      await this.#enterBridge(conference, user);
      if (user.state === 'in') await serveMenu(user, conference);
      await untilAborted(user.left);
      return user.result;
    } finally {
      await this.#afterLeave(conference, user);
    }
  }

  /** Runs one menu action for a user who is in the conference. */
  async runAction(conference: Conference, user: ConferenceUser, action: MenuAction): Promise<void> {
    switch (action.kind) {
      case 'toggle_mute':
        await this.setMuted(conference, user, !user.muted);
        await this.#playTo(user.channel, [user.muted ? 'conf-muted' : 'conf-unmuted']);
        return;
      case 'leave_conference':
        user.leave('DTMF');
        return;
      case 'participant_count':
        await this.#playTo(
          user.channel,
          conference.present().length > 1 ? userCountPrompts(conference.present().length - 1) : ['sound:conf-onlyperson'],
          false,
        );
        return;
      case 'admin_toggle_conference_lock':
        if (!user.profile.admin) return;
        this.setLocked(conference, !conference.locked);
        await this.#playTo(user.channel, [conference.locked ? 'conf-lockednow' : 'conf-unlockednow']);
        return;
      case 'admin_kick_last': {
        if (!user.profile.admin) return;
        const last = conference
          .present()
          .filter((u) => u !== user && !u.profile.admin)
          .at(-1);
        if (last) await this.kick(conference, last);
        return;
      }
      case 'increase_listening_volume':
      case 'decrease_listening_volume':
      case 'reset_listening_volume': {
        const step = action.kind === 'increase_listening_volume' ? 1 : action.kind === 'decrease_listening_volume' ? -1 : 0;
        user.listenVolume = step === 0 ? 0 : Math.max(-4, Math.min(4, user.listenVolume + step));
        // Between -1 and 1 nothing changes in the original's scale; skip over it as it does.
        if (user.listenVolume === -1 && step === 1) user.listenVolume = 1;
        if (user.listenVolume === 1 && step === -1) user.listenVolume = -1;
        const legId = user.channel.tech.mediaLegId;
        if (legId) {
          await this.#deps.media
            .setBridgeParticipant(conference.bridge.id, legId, { listenGain: volumeFactor(user.listenVolume) })
            .catch((err: unknown) => this.#deps.log.warn({ err }, 'could not change the listening volume'));
        }
        return;
      }
      case 'playback':
        await this.#playTo(user.channel, action.file.split('&'));
        return;
      case 'no_op':
        return;
    }
  }

  async setMuted(conference: Conference, user: ConferenceUser, muted: boolean): Promise<void> {
    user.muted = muted;
    if (user.state === 'in') {
      await this.#deps.bridges.addChannels(conference.bridge, [user.channel], { mute: muted, absorbDtmf: !user.profile.dtmfPassage });
    }
    this.#deps.bus.publish({
      type: 'ConfbridgeMute',
      conference: conference.name,
      bridge: conference.bridge.snapshot(),
      channel: user.channel.snapshot(),
      admin: user.profile.admin,
      muted,
    });
  }

  /** A locked conference admits only admins (the manager's ConfbridgeLock/ConfbridgeUnlock). */
  setLocked(conference: Conference, locked: boolean): void {
    if (conference.locked === locked) return;
    conference.locked = locked;
    this.#deps.bus.publish({ type: 'ConfbridgeLock', conference: conference.name, bridge: conference.bridge.snapshot(), locked });
  }

  /**
   * Starts recording the conference's mix (the manager's ConfbridgeStartRecord): `file` as the
   * bridge profile's record_file, a name under the recordings directory with an optional format
   * (the profile's when absent). False when it is already being recorded; a bad name throws the
   * recording manager's error.
   */
  startRecording(conference: Conference, file: string = conference.profile.recordFile): boolean {
    if (conference.recordingName !== undefined) return false;
    this.#record(conference, file);
    return true;
  }

  /** Stops the conference's recording and keeps the file; false when nothing is being recorded. */
  stopRecording(conference: Conference): boolean {
    const name = conference.recordingName;
    if (name === undefined) return false;
    conference.recordingName = undefined;
    void this.#deps.recordings.stop(name).catch(() => undefined);
    this.#deps.bus.publish({
      type: 'ConfbridgeRecord',
      conference: conference.name,
      bridge: conference.bridge.snapshot(),
      recording_name: name,
      recording_state: 'stopped',
    });
    return true;
  }

  async kick(conference: Conference, user: ConferenceUser, result: ConfBridgeResult = 'KICKED'): Promise<void> {
    if (user.state === 'left') return;
    if (user.state === 'in') {
      await this.#deps.bridges.removeChannels(conference.bridge, [user.channel]).catch(() => undefined);
      await this.#playTo(user.channel, [result === 'ENDMARKED' ? 'conf-leaderhasleft' : 'conf-kicked']);
    }
    user.leave(result);
  }

  async #start(name: string, profile: BridgeProfile): Promise<Conference> {
    const bridge = await this.#deps.bridges.create({
      type: 'mixing',
      name,
      appOwned: false,
      bridgeClass: 'confbridge',
      creator: 'ConfBridge',
    });
    // Another caller may have started the same conference while the bridge was being made.
    const raced = this.#conferences.get(name);
    if (raced) {
      await this.#deps.bridges.destroy(bridge).catch(() => undefined);
      return raced;
    }
    const conference = new Conference(name, profile, bridge);
    this.#conferences.set(name, conference);
    this.#deps.bus.publish({ type: 'ConfbridgeStart', conference: name, bridge: bridge.snapshot() });
    if (profile.recordConference) {
      try {
        this.#record(conference, profile.recordFile);
      } catch (err) {
        this.#deps.log.warn({ err, conference: name }, 'could not record the conference');
      }
    }
    return conference;
  }

  #record(conference: Conference, file: string): void {
    const dot = file.lastIndexOf('.');
    const hasFormat = dot > file.lastIndexOf('/') + 1 && this.#deps.recordings.formats.includes(file.slice(dot + 1));
    const base = file === '' ? `confbridge/${conference.name}` : hasFormat ? file.slice(0, dot) : file;
    const format = hasFormat ? file.slice(dot + 1) : 'wav';
    // The original appends the time the recording starts, so that each recording keeps its own file.
    const name = `${base}-${Math.floor(Date.now() / 1000)}`;
    this.#deps.recordings.record(bridgeRecordTarget(conference.bridge), { name, format, ifExists: 'overwrite' });
    conference.recordingName = name;
    this.#deps.bus.publish({
      type: 'ConfbridgeRecord',
      conference: conference.name,
      bridge: conference.bridge.snapshot(),
      recording_name: name,
      recording_state: 'started',
    });
  }

  async #enterBridge(conference: Conference, user: ConferenceUser): Promise<void> {
    const { channel, profile } = user;
    await this.#deps.bridges.addChannels(conference.bridge, [channel], { mute: user.muted, absorbDtmf: !profile.dtmfPassage });
    const legId = channel.tech.mediaLegId;
    if (profile.talkDetectionEvents && legId) {
      await this.#deps.media
        .setTalkDetection(legId, { energyThreshold: profile.talkingThreshold, talkMs: 160, silenceMs: profile.silenceThresholdMs })
        .catch((err: unknown) => this.#deps.log.warn({ err }, 'talk detection could not start'));
    }
    this.#deps.bus.publish({
      type: 'ConfbridgeJoin',
      conference: conference.name,
      bridge: conference.bridge.snapshot(),
      channel: channel.snapshot(),
      admin: profile.admin,
      marked: profile.marked,
      muted: user.muted,
    });
    const present = conference.present();
    if (present.length === 2) await this.#deps.bridges.stopMusic(conference.bridge).catch(() => undefined);
    if (profile.marked) for (const waiting of conference.waiting()) void this.#letIn(waiting);
    if (present.length === 1) {
      if (!profile.quiet && profile.announceOnlyUser) await this.#playTo(channel, ['conf-onlyperson']);
      if (profile.musicOnHoldWhenEmpty && conference.present().length === 1) {
        await this.#deps.bridges.startMusic(conference.bridge, profile.musicOnHoldClass || undefined).catch(() => undefined);
      }
    } else if (!profile.quiet) {
      if (profile.announceUserCount) await this.#playTo(channel, userCountPrompts(present.length - 1), false);
      if (profile.announceJoinLeave) this.#playToBridge(conference, [...nameOf(user), 'sound:conf-hasjoin']);
      const all = profile.announceUserCountAll;
      if (all !== undefined && present.length > all) this.#playToBridge(conference, userCountPrompts(present.length - 1));
    }
  }

  async #letIn(user: ConferenceUser): Promise<void> {
    if (user.state !== 'waiting') return;
    await this.#deps.moh.stop(user.channel).catch(() => undefined);
    if (!user.profile.quiet) await this.#playTo(user.channel, ['conf-placeintoconf']);
    if (user.state === 'waiting') user.transition('in');
  }

  async #afterLeave(conference: Conference, user: ConferenceUser): Promise<void> {
    user.leave(user.result);
    conference.users.delete(user.channel.id);
    const wasIn = user.wasIn;
    if (conference.bridge.participants.has(user.channel.id) && !user.channel.isDestroyed)
      await this.#deps.bridges.removeChannels(conference.bridge, [user.channel]).catch(() => undefined);
    this.#deps.bus.publish({
      type: 'ConfbridgeLeave',
      conference: conference.name,
      bridge: conference.bridge.snapshot(),
      channel: user.channel.snapshot(),
      admin: user.profile.admin,
    });
    const remaining = conference.present();
    if (user.profile.marked && !conference.markedPresent()) {
      // The last marked user is gone: end_marked users leave with it (the original's ENDMARKED).
      await Promise.all(remaining.filter((u) => u.profile.endMarked).map((u) => this.kick(conference, u, 'ENDMARKED')));
    }
    const stillIn = conference.present();
    let leaveAnnouncement: string | undefined;
    if (stillIn.length > 0 && wasIn) {
      if (user.profile.announceJoinLeave && !user.profile.quiet)
        leaveAnnouncement = this.#playToBridge(conference, [...nameOf(user), 'sound:conf-hasleft']);
      const last = stillIn[0];
      if (stillIn.length === 1 && last.profile.musicOnHoldWhenEmpty) {
        await this.#deps.bridges.startMusic(conference.bridge, last.profile.musicOnHoldClass || undefined).catch(() => undefined);
      }
    }
    // The recorded name goes once it has been said for the last time.
    if (leaveAnnouncement === undefined) this.#forgetName(user.nameRecording);
    else
      void this.#deps.playbacks
        .whenFinished(leaveAnnouncement)
        .catch(() => undefined)
        .then(() => this.#forgetName(user.nameRecording));
    this.#endIfEmpty(conference);
  }

  #forgetName(name: string | undefined): void {
    if (name === undefined) return;
    try {
      this.#deps.recordings.stored.delete(name);
    } catch (err) {
      this.#deps.log.debug({ err, name }, 'recorded conference name not deleted');
    }
  }

  #endIfEmpty(conference: Conference): void {
    if (conference.users.size > 0 || conference.ended) return;
    conference.ended = true;
    this.#conferences.delete(conference.name);
    this.stopRecording(conference);
    this.#deps.bus.publish({ type: 'ConfbridgeEnd', conference: conference.name, bridge: conference.bridge.snapshot() });
    void this.#deps.bridges.destroy(conference.bridge).catch(() => undefined);
  }

  /** Plays prompts (sound names, or media URIs when `asSounds` is false) to one channel and waits for them (a hangup ends the wait). */
  async #playTo(channel: Channel, sounds: string[], asSounds = true): Promise<void> {
    if (channel.isDestroyed) return;
    try {
      const { finished } = this.#deps.playbacks.playOnChannelTracked(channel, asSounds ? sounds.map((s) => `sound:${s}`) : sounds);
      await Promise.race([finished, untilAborted(channel.hangupSignal)]);
    } catch (err) {
      this.#deps.log.debug({ err, channel: channel.name }, 'conference prompt not played');
    }
  }

  /** Plays media URIs to everyone in the conference; the playback's id, or undefined when it could not start. */
  #playToBridge(conference: Conference, uris: string[]): string | undefined {
    try {
      return this.#deps.playbacks.playOnBridge(conference.bridge, uris, {
        defaultLanguage: conference.profile.language || this.#deps.defaultLanguage,
      }).id;
    } catch (err) {
      this.#deps.log.debug({ err, conference: conference.name }, 'conference announcement not played');
      return undefined;
    }
  }
}

/** "There is one other participant" / "there are currently <n> other participants" (nothing when alone). */
export function userCountPrompts(others: number): string[] {
  if (others <= 0) return [];
  if (others === 1) return ['sound:conf-onlyone'];
  return ['sound:conf-thereare', `number:${others}`, 'sound:conf-otherinparty'];
}

function nameOf(user: ConferenceUser): string[] {
  return user.nameRecording === undefined ? [] : [`recording:${user.nameRecording}`];
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
