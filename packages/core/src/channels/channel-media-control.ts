/**
 * Per-channel media controls of the API: mute, hold, music on hold, silence, local ringback and
 * DTMF generation. Each channel has one "generator" at a time (music, silence or ringback), as in
 * the reference: starting one replaces the other, and a later playback on the leg replaces it
 * without resuming it (the media engine plays one thing per leg).
 *
 * Hold hook for bridges: hold mutes what the channel sends and publishes ChannelHold; a bridge
 * that wants its other participants to hear music listens for ChannelHold/ChannelUnhold on the bus
 * (or asks `isHeld`). Holds reported by the far end (SIP `sendonly`) publish the same events.
 */
import type { Channel } from './channel.js';
import { isStandIn } from '../cluster/cluster-media-legs.js';
import { conflict, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { MediaEngine, MediaNotification, RtpStatistics, ToneSegment } from '../media/media-engine.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { type DtmfStep, type DtmfTiming, checkDtmfTiming, parseDtmf } from './dtmf.js';
import { DEFAULT_MOH_CLASS, type MohClassResolver } from './moh-classes.js';

export type MuteDirection = 'both' | 'in' | 'out';

/** US ringback, used when the tone zone has no `ring` tone: 2 s of 440+480 Hz, 4 s of silence. */
export const DEFAULT_RINGBACK: ToneSegment[] = [
  { frequencies: [440, 480], durationMs: 2000 },
  { frequencies: [], durationMs: 4000 },
];
/** A silence generator is a tone with no frequencies that lasts until stopped. */
const SILENCE: ToneSegment[] = [{ frequencies: [], durationMs: 0 }];

/** Digits reported by both the driver and the media engine for one key press arrive this close. */
const DUPLICATE_DIGIT_WINDOW_MS = 50;

type Generator =
  | { kind: 'moh'; id: string; files: string[]; index: number; mohClass: string }
  | { kind: 'silence'; id: string }
  | { kind: 'ringback'; id: string };

interface MediaState {
  muteIn: boolean;
  muteOut: boolean;
  held: boolean;
  generator: Generator | undefined;
  dtmfQueue: Promise<void>;
  lastDigit: { digit: string; at: number } | undefined;
}

export interface ChannelMediaControlDeps {
  bus: EventBus;
  media: MediaEngine;
  clock: Clock;
  log: Logger;
  mohClasses: MohClassResolver;
  /** The `ring` tone of the channel's tone zone (else the default zone); undefined when there is none. */
  ringback?(channel: Channel): ToneSegment[] | undefined;
  /** The channel carrying a media leg (media notifications name legs). */
  channelOfLeg(legId: string): Channel | undefined;
}

export class ChannelMediaControl {
  readonly #states = new Map<string, MediaState>();
  /** Generator id → channel id, to route playbackFinished of music files. */
  readonly #generators = new Map<string, string>();
  readonly #deps: ChannelMediaControlDeps;
  #mohClasses: MohClassResolver;
  #sequence = 0;

  constructor(deps: ChannelMediaControlDeps) {
    this.#deps = deps;
    this.#mohClasses = deps.mohClasses;
    deps.media.onNotification((n) => this.#onNotification(n));
  }

  /** Replaces how music classes find their files (musiconhold.conf). */
  setMohClassResolver(resolver: MohClassResolver): void {
    this.#mohClasses = resolver;
  }

  isHeld(channel: Channel): boolean {
    return this.#states.get(channel.id)?.held ?? false;
  }

  async mute(channel: Channel, direction: MuteDirection): Promise<void> {
    const state = this.#state(channel);
    if (direction !== 'out') state.muteIn = true;
    if (direction !== 'in') state.muteOut = true;
    await this.#applyMute(channel, state);
  }

  async unmute(channel: Channel, direction: MuteDirection): Promise<void> {
    const state = this.#state(channel);
    if (direction !== 'out') state.muteIn = false;
    if (direction !== 'in') state.muteOut = false;
    await this.#applyMute(channel, state);
  }

  /** The API's hold: what the channel sends is dropped and ChannelHold tells the applications. */
  async hold(channel: Channel): Promise<void> {
    const state = this.#state(channel);
    state.held = true;
    await this.#applyMute(channel, state);
    this.#deps.bus.publish({ type: 'ChannelHold', channel: channel.snapshot(), musicclass: 'N/A' });
  }

  async unhold(channel: Channel): Promise<void> {
    const state = this.#state(channel);
    state.held = false;
    await this.#applyMute(channel, state);
    this.#deps.bus.publish({ type: 'ChannelUnhold', channel: channel.snapshot() });
  }

  /** The far end put the call on hold or resumed it (driver report); its media already stopped. */
  remoteHold(channel: Channel, onHold: boolean): void {
    if (channel.isDestroyed) return;
    this.#state(channel).held = onHold;
    this.#deps.bus.publish(
      onHold
        ? { type: 'ChannelHold', channel: channel.snapshot(), musicclass: 'N/A' }
        : { type: 'ChannelUnhold', channel: channel.snapshot() },
    );
  }

  /** A digit reported by the driver (SIP INFO, or RFC 4733 when the driver sees it first). */
  remoteDtmf(channel: Channel, digit: string, durationMs: number): void {
    this.#digitReceived(channel, digit, durationMs);
  }

  /** Starts music of `mohClass` (the default class when absent); silence when the class has no files. */
  startMoh(channel: Channel, mohClass: string | undefined): Promise<void> {
    const name = mohClass && mohClass.length > 0 ? mohClass : DEFAULT_MOH_CLASS;
    const files = this.#mohClasses(name);
    if (files.length === 0)
      this.#deps.log.warn({ channel: channel.name, mohClass: name }, 'music on hold class has no files; playing silence');
    return this.#startGenerator(channel, { kind: 'moh', id: this.#nextId(channel, 'moh'), files, index: 0, mohClass: name });
  }

  stopMoh(channel: Channel): Promise<void> {
    return this.#stopGenerator(channel, 'moh');
  }

  startSilence(channel: Channel): Promise<void> {
    return this.#startGenerator(channel, { kind: 'silence', id: this.#nextId(channel, 'silence') });
  }

  stopSilence(channel: Channel): Promise<void> {
    return this.#stopGenerator(channel, 'silence');
  }

  /** Ringing: a 180 while the call is unanswered, a locally generated ringback tone once it is up. */
  async ring(channel: Channel): Promise<void> {
    if (channel.state !== 'Up') {
      await channel.indicateRinging();
      return;
    }
    await this.#startGenerator(channel, { kind: 'ringback', id: this.#nextId(channel, 'ring') });
  }

  ringStop(channel: Channel): Promise<void> {
    return this.#stopGenerator(channel, 'ringback');
  }

  /**
   * Validates at once (so the API can answer 400) and returns the promise of the sending, which
   * runs after any earlier sendDtmf on the same channel.
   */
  sendDtmf(channel: Channel, dtmf: string | undefined, timing: DtmfTiming): Promise<void> {
    const steps = parseDtmf(dtmf);
    checkDtmfTiming(timing);
    const legId = this.#legOf(channel);
    const state = this.#state(channel);
    const run = state.dtmfQueue.then(() => this.#sendSteps(channel, legId, steps, timing));
    state.dtmfQueue = run.catch(() => undefined);
    return run;
  }

  /** RTP statistics of the channel's media leg (404 when it has none), with the channel id added. */
  async rtpStatistics(channel: Channel): Promise<RtpStatistics> {
    const legId = channel.tech.mediaLegId;
    if (!legId) throw notFound('Channel has no RTP session');
    const statistics = await this.#deps.media.getRtpStatistics(legId);
    return { ...statistics, channel_uniqueid: channel.id };
  }

  async #sendSteps(channel: Channel, legId: string, steps: DtmfStep[], timing: DtmfTiming): Promise<void> {
    await this.#sleep(channel, timing.beforeMs);
    for (const [i, step] of steps.entries()) {
      if (step.kind === 'pause') await this.#sleep(channel, step.ms);
      else {
        if (i > 0 && steps[i - 1]?.kind === 'digits') await this.#sleep(channel, timing.betweenMs);
        await this.#deps.media.sendDtmf(legId, { digits: step.digits, durationMs: timing.durationMs, betweenMs: timing.betweenMs });
      }
    }
    await this.#sleep(channel, timing.afterMs);
  }

  #sleep(channel: Channel, ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    const signal = channel.hangupSignal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#deps.clock.clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = this.#deps.clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async #applyMute(channel: Channel, state: MediaState): Promise<void> {
    await this.#deps.media.setLegMute(this.#legOf(channel), { inbound: state.muteIn || state.held, outbound: state.muteOut });
  }

  async #startGenerator(channel: Channel, generator: Generator): Promise<void> {
    const legId = this.#legOf(channel);
    const state = this.#state(channel);
    const previous = state.generator;
    state.generator = generator;
    this.#generators.set(generator.id, channel.id);
    if (previous) this.#forget(previous);
    switch (generator.kind) {
      case 'moh':
        await this.#playMusic(legId, generator);
        return;
      case 'silence':
        await this.#deps.media.playTone({ kind: 'leg', legId }, { playbackId: generator.id, segments: SILENCE, repeat: true });
        return;
      case 'ringback':
        await this.#deps.media.playTone(
          { kind: 'leg', legId },
          { playbackId: generator.id, segments: this.#deps.ringback?.(channel) ?? DEFAULT_RINGBACK, repeat: true },
        );
        return;
    }
  }

  async #stopGenerator(channel: Channel, kind: Generator['kind']): Promise<void> {
    const legId = this.#legOf(channel);
    const state = this.#state(channel);
    const generator = state.generator;
    if (!generator || generator.kind !== kind) return;
    state.generator = undefined;
    this.#forget(generator);
    await this.#deps.media.stopPlayback(legId, generator.id);
  }

  /** One file loops by itself; several are played in turn, moving on when each completes. */
  async #playMusic(legId: string, generator: Extract<Generator, { kind: 'moh' }>): Promise<void> {
    const file = generator.files[generator.index];
    if (file === undefined) {
      await this.#deps.media.playTone({ kind: 'leg', legId }, { playbackId: generator.id, segments: SILENCE, repeat: true });
      return;
    }
    await this.#deps.media.playFile(legId, { playbackId: generator.id, file, loop: generator.files.length === 1 });
  }

  #forget(generator: Generator): void {
    this.#generators.delete(generator.id);
  }

  #onNotification(n: MediaNotification): void {
    switch (n.type) {
      case 'playbackFinished': {
        const channelId = this.#generators.get(n.playbackId);
        const generator = channelId === undefined ? undefined : this.#states.get(channelId)?.generator;
        if (generator?.kind !== 'moh' || generator.id !== n.playbackId || n.reason !== 'complete') return;
        // A class without files plays silence, which never completes.
        if (generator.files.length === 0) return;
        generator.index = (generator.index + 1) % generator.files.length;
        void this.#playMusic(n.legId, generator).catch((err: unknown) => this.#deps.log.warn({ err }, 'music on hold stopped'));
        return;
      }
      case 'dtmfReceived': {
        const channel = this.#deps.channelOfLeg(n.legId);
        // A stand-in's digit came over the leg from the node owning the channel, which told the
        // applications already (ChannelDtmfReceived on the same id): the bridge passes it on alone.
        if (channel && !isStandIn(channel)) this.#digitReceived(channel, n.digit, n.durationMs);
        return;
      }
      case 'talkingStarted': {
        const channel = this.#deps.channelOfLeg(n.legId);
        if (channel) this.#deps.bus.publish({ type: 'ChannelTalkingStarted', channel: channel.snapshot() });
        return;
      }
      case 'talkingFinished': {
        const channel = this.#deps.channelOfLeg(n.legId);
        if (channel) this.#deps.bus.publish({ type: 'ChannelTalkingFinished', channel: channel.snapshot(), duration: n.durationMs });
        return;
      }
      case 'toneDetected': {
        const channel = this.#deps.channelOfLeg(n.legId);
        if (channel) this.#deps.bus.publish({ type: 'ChannelToneDetected', channel: channel.snapshot() });
        return;
      }
    }
  }

  #digitReceived(channel: Channel, digit: string, durationMs: number): void {
    if (channel.isDestroyed) return;
    const state = this.#state(channel);
    const now = this.#deps.clock.now();
    const last = state.lastDigit;
    if (last && last.digit === digit && now - last.at < DUPLICATE_DIGIT_WINDOW_MS) return;
    state.lastDigit = { digit, at: now };
    this.#deps.bus.publish({ type: 'ChannelDtmfReceived', channel: channel.snapshot(), digit, duration_ms: durationMs });
  }

  #legOf(channel: Channel): string {
    const legId = channel.tech.mediaLegId;
    if (!legId) throw conflict('Channel has no media');
    return legId;
  }

  #state(channel: Channel): MediaState {
    let state = this.#states.get(channel.id);
    if (!state) {
      state = { muteIn: false, muteOut: false, held: false, generator: undefined, dtmfQueue: Promise.resolve(), lastDigit: undefined };
      this.#states.set(channel.id, state);
      channel.onHangup(() => {
        const gone = this.#states.get(channel.id);
        if (gone?.generator) this.#forget(gone.generator);
        this.#states.delete(channel.id);
      });
    }
    return state;
  }

  #nextId(channel: Channel, kind: string): string {
    this.#sequence += 1;
    return `${channel.id}:${kind}:${this.#sequence}`;
  }
}
