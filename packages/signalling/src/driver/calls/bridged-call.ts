/**
 * Two channels Dial() connected in a Dial bridge (dial-bridges.ts: a bridge of the system that the
 * control API lists), and what ends that connection:
 *
 *   connected ──a party hangs up──────────────> ended {hangup, by}
 *       │ ──REFER (blind) from a party────────> ended {blind, by, target}
 *       │ ──REFER with Replaces from a party──> ended {moved, successor}
 *       │ ──INVITE with Replaces for a party──> ended {moved, successor}
 *
 * An attended transfer (RFC 5589 §7) involves two BridgedCalls that share a transferer: B talks
 * to A in one and to C in the other, and sends REFER on one of its dialogs with a Replaces naming
 * the other. Both calls end; A and C are connected in a new BridgedCall (the successor), which
 * keeps A's bridge (B leaves it, C moves in; C's old bridge goes, as when Asterisk merges the two
 * bridges of an attended transfer); B's two legs are hung up, the REFER's leg only after the
 * final NOTIFY (RFC 5589 §7.1: the transferer learns the outcome before its dialog ends).
 *
 * A BridgedCall does not decide what a hangup means for the dialplan: the Dial() threads that
 * watch it (`watchers`, the channels whose dialplan waits on it) do that in `superviseBridgedCall`.
 */
import type { BridgeSnapshot, Channel, ChannelTechnology, Clock, DialplanFlow, DomainEvent, Logger } from '@switchboard/core';
import type { DialBridges } from './dial-bridges.js';
import { CAUSE_NORMAL_CLEARING } from './hangup-causes.js';
import { type BlindTransferTarget, isTransferSource, type TransferOutcome } from './transfer.js';

/** After a blind transfer the transferer is expected to hang up (RFC 5589 §6); after this we do. */
export const TRANSFERER_HANGUP_MS = 5000;

export type BridgedCallEnd =
  | { kind: 'hangup'; by: Channel }
  | { kind: 'blind'; by: Channel; target: BlindTransferTarget }
  /**
   * One party went on in `successor`: an attended transfer joined it to the far party of the
   * transferer's other call, or a call with Replaces took the other party's place.
   */
  | { kind: 'moved'; successor: BridgedCall };

export interface BridgedCallDeps {
  bridges: DialBridges;
  clock: Clock;
  log: Logger;
  publish?(event: DomainEvent): void;
  /**
   * Starts the dialplan on a channel whose own dialplan does not wait on the call (a callee sent
   * to an extension by a blind transfer); without it such a channel cannot be transferred.
   */
  runDialplan?(channel: Channel, start: { context: string; exten: string; priority: number }): void;
}

/** Which BridgedCall a SIP call's channel is connected in, so that a Replaces can find it. */
const membership = new WeakMap<ChannelTechnology, { call: BridgedCall; channel: Channel }>();

export class BridgedCall {
  readonly parties: readonly [Channel, Channel];
  /** Channels whose dialplan (a Dial() thread) waits on this call. */
  readonly watchers = new Set<Channel>();
  readonly ended: Promise<BridgedCallEnd>;
  readonly #deps: BridgedCallDeps;
  #resolve: (end: BridgedCallEnd) => void = () => {};
  #done = false;
  #bridgeId: string | undefined;
  /** The bridge is this call's to destroy (not yet destroyed, nor handed to a successor). */
  #bridged = false;
  readonly #adopted: boolean;
  readonly #cleanups: Array<() => void> = [];

  /**
   * `adoptedBridgeId`: a bridge both parties are already in (Dial's early media, or the bridge an
   * attended transfer keeps), used instead of a new one.
   */
  constructor(deps: BridgedCallDeps, a: Channel, b: Channel, adoptedBridgeId?: string) {
    this.#deps = deps;
    this.parties = [a, b];
    this.#bridgeId = adoptedBridgeId;
    this.#adopted = adoptedBridgeId !== undefined;
    // An adopted bridge is ours to destroy even if the legs turn out to be unusable.
    this.#bridged = this.#adopted;
    this.ended = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The call's bridge; undefined until connect() made it (or when it could not be made). */
  get bridgeId(): string | undefined {
    return this.#bridgeId;
  }

  other(channel: Channel): Channel {
    return this.parties[0] === channel ? this.parties[1] : this.parties[0];
  }

  /** Bridges the two media legs and starts watching both parties. */
  async connect(): Promise<void> {
    const [a, b] = this.parties;
    try {
      if (!this.#adopted) {
        this.#bridgeId = await this.#deps.bridges.create();
        this.#bridged = true;
        await this.#deps.bridges.add(this.#bridgeId, [a, b]);
      }
    } catch (err) {
      this.#deps.log.error({ err, bridgeId: this.#bridgeId }, 'the two parties could not be bridged; the call continues without audio');
    }
    for (const party of this.parties) {
      if (party.isDestroyed) {
        void this.#finish({ kind: 'hangup', by: party });
        return;
      }
    }
    for (const party of this.parties) this.#watch(party);
  }

  #watch(party: Channel): void {
    const onHangup = () => void this.#finish({ kind: 'hangup', by: party });
    this.#cleanups.push(party.whenHungUp(onHangup));
    const tech = party.tech;
    if (!isTransferSource(tech)) return;
    membership.set(tech, { call: this, channel: party });
    tech.transferHandler = async (request) => {
      if (this.#done) return { ok: false };
      if (request.kind === 'attended') return await this.#attended(party, request.replaced);
      const target = { exten: request.exten, context: request.context };
      if (!this.#canSendToDialplan(this.other(party))) return { ok: false };
      this.#blind(party, target);
      return { ok: true };
    };
    this.#cleanups.push(() => {
      // A successor may already own the call; then its handler stays.
      if (membership.get(tech)?.call !== this) return;
      membership.delete(tech);
      tech.transferHandler = undefined;
    });
  }

  /**
   * A blind transfer typed by a party (Dial's t/T and features.conf `blindxfer`): the other party
   * goes to `target`; the transferer is hung up at once, as after the original's DTMF transfer.
   * False when the call is over or the transferee cannot be sent to the dialplan.
   */
  transferByFeature(transferer: Channel, target: BlindTransferTarget): boolean {
    if (this.#done || !this.parties.includes(transferer) || !this.#canSendToDialplan(this.other(transferer))) return false;
    this.#blind(transferer, target, false);
    void transferer.hangup(CAUSE_NORMAL_CLEARING);
    return true;
  }

  /** A transferee goes to the dialplan through its own Dial() thread, or a dialplan started on it. */
  #canSendToDialplan(transferee: Channel): boolean {
    return this.watchers.has(transferee) || this.#deps.runDialplan !== undefined;
  }

  #blind(transferer: Channel, target: BlindTransferTarget, external = true): void {
    const transferee = this.other(transferer);
    this.#deps.log.info({ transferer: transferer.name, transferee: transferee.name, ...target }, 'blind transfer');
    this.#publish({
      type: 'BridgeBlindTransfer',
      channel: transferer.snapshot(),
      transferee: transferee.snapshot(),
      exten: target.exten,
      context: target.context,
      result: 'Success',
      is_external: external,
    });
    // The transferer hears the outcome (NOTIFY 200) and hangs up itself; it is hung up if it lingers.
    if (!transferer.isDestroyed) {
      const timer = this.#deps.clock.setTimeout(() => void transferer.hangup(CAUSE_NORMAL_CLEARING), TRANSFERER_HANGUP_MS);
      transferer.hangupSignal.addEventListener('abort', () => this.#deps.clock.clearTimeout(timer), { once: true });
    }
    void this.#finish({ kind: 'blind', by: transferer, target });
  }

  /**
   * RFC 5589 §7 seen from the middle: `transferer` (B's leg toward the transferee) sent REFER with
   * a Replaces naming `replacedTech`, B's leg of another BridgedCall. The transferee and that
   * call's other party (the transfer target) are connected in a new BridgedCall.
   */
  async #attended(transferer: Channel, replacedTech: ChannelTechnology): Promise<TransferOutcome> {
    const second = membership.get(replacedTech);
    if (second === undefined || second.call === this || second.call.#done) return { ok: false };
    const other = second.call;
    const secondLeg = second.channel;
    const transferee = this.other(transferer);
    const target = other.other(secondLeg);
    this.#detach();
    other.#detach();
    // The event shows both bridges as they were when the transfer began.
    const firstLegBridge = this.#bridgeSnapshot();
    const secondLegBridge = other.#bridgeSnapshot();
    // As Asterisk merges the two bridges: the transferer's legs leave, the target moves into the
    // transferee's bridge (BridgeMerged), and the emptied bridge goes.
    await other.#removeFromBridge(secondLeg);
    const successor = await this.#handOver(transferer, target);
    const mergedFrom = other.#bridgeSnapshot();
    const mergedInto = successor.bridgeId === this.#bridgeId ? this.#bridgeSnapshot() : undefined;
    if (mergedInto !== undefined && mergedFrom !== undefined && other.#bridged) {
      this.#publish({ type: 'BridgeMerged', bridge: mergedInto, bridge_from: mergedFrom });
    }
    await other.#destroyBridge();
    for (const watcher of [...this.watchers, ...other.watchers]) {
      if (watcher === transferee || watcher === target) successor.watchers.add(watcher);
    }
    await successor.connect();
    this.#deps.log.info(
      { transferer: transferer.name, transferee: transferee.name, target: target.name, bridgeId: successor.bridgeId },
      'attended transfer',
    );
    this.#publish({
      type: 'BridgeAttendedTransfer',
      transferer_first_leg: transferer.snapshot(),
      transferer_second_leg: secondLeg.snapshot(),
      transferee: transferee.snapshot(),
      transfer_target: target.snapshot(),
      result: 'Success',
      is_external: true,
      destination_type: 'bridge',
      ...(successor.bridgeId !== undefined ? { destination_bridge: successor.bridgeId } : {}),
      ...(firstLegBridge !== undefined ? { transferer_first_leg_bridge: firstLegBridge } : {}),
      ...(secondLegBridge !== undefined ? { transferer_second_leg_bridge: secondLegBridge } : {}),
    });
    this.#resolve({ kind: 'moved', successor });
    other.#resolve({ kind: 'moved', successor });
    if (successor.watchers.size === 0) void superviseBridgedCall(successor, undefined, { deps: this.#deps, continueAfterPeer: false });
    // The replaced dialog ends now (RFC 3891 §3 has the target end it); the REFER's after its NOTIFY.
    void secondLeg.hangup(CAUSE_NORMAL_CLEARING);
    return { ok: true, afterNotify: () => void transferer.hangup(CAUSE_NORMAL_CLEARING) };
  }

  /**
   * RFC 3891 §3: `channel` (a new call with Replaces) takes the place of the party whose call is
   * `replacedTech`; the other party is connected to it in a successor call. False when that call
   * is not connected in a BridgedCall. The replaced channel is left to the caller to hang up.
   */
  static async replaceParty(replacedTech: ChannelTechnology, channel: Channel): Promise<boolean> {
    const member = membership.get(replacedTech);
    if (member === undefined || member.call.#done) return false;
    const old = member.call;
    const peer = old.other(member.channel);
    old.#detach();
    const successor = await old.#handOver(member.channel, channel);
    if (old.watchers.has(peer)) successor.watchers.add(peer);
    await successor.connect();
    old.#deps.log.info({ replaced: member.channel.name, by: channel.name, peer: peer.name }, 'call replaced');
    old.#resolve({ kind: 'moved', successor });
    if (successor.watchers.size === 0) void superviseBridgedCall(successor, undefined, { deps: old.#deps, continueAfterPeer: false });
    return true;
  }

  /** Whether the call of `tech` is connected in a BridgedCall now. */
  static isBridged(tech: ChannelTechnology): boolean {
    const member = membership.get(tech);
    return member !== undefined && !member.call.#done;
  }

  async #finish(end: BridgedCallEnd): Promise<void> {
    if (this.#done) return;
    this.#detach();
    await this.#destroyBridge();
    this.#resolve(end);
  }

  /** Stops watching the parties: nothing that happens to them concerns this call any more. */
  #detach(): void {
    this.#done = true;
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
  }

  /**
   * A successor call for `leaving`'s place: `arriving` (moved out of any other bridge) and the
   * other party, in this call's bridge, which the successor owns from now on. When this call has
   * no bridge, or the move fails, the successor makes a new one.
   */
  async #handOver(leaving: Channel, arriving: Channel): Promise<BridgedCall> {
    const stays = this.other(leaving);
    const bridgeId = this.#bridgeId;
    if (!this.#bridged || bridgeId === undefined) return new BridgedCall(this.#deps, stays, arriving);
    this.#bridged = false;
    try {
      await this.#deps.bridges.remove(bridgeId, [leaving]);
      await this.#deps.bridges.add(bridgeId, [arriving]);
      return new BridgedCall(this.#deps, stays, arriving, bridgeId);
    } catch (err) {
      this.#deps.log.error({ err, bridgeId }, 'the bridge could not take the new party; a new bridge is made');
      await this.#deps.bridges.destroy(bridgeId).catch(() => undefined);
      return new BridgedCall(this.#deps, stays, arriving);
    }
  }

  async #removeFromBridge(channel: Channel): Promise<void> {
    const bridgeId = this.#bridgeId;
    if (!this.#bridged || bridgeId === undefined) return;
    await this.#deps.bridges
      .remove(bridgeId, [channel])
      .catch((err: unknown) => this.#deps.log.debug({ err, bridgeId }, 'leg already gone'));
  }

  #bridgeSnapshot(): BridgeSnapshot | undefined {
    return this.#bridgeId === undefined ? undefined : this.#deps.bridges.snapshot(this.#bridgeId);
  }

  async #destroyBridge(): Promise<void> {
    const bridgeId = this.#bridgeId;
    if (!this.#bridged || bridgeId === undefined) return;
    this.#bridged = false;
    await this.#deps.bridges.destroy(bridgeId).catch((err: unknown) => this.#deps.log.debug({ err, bridgeId }, 'bridge already gone'));
  }

  #publish(event: DomainEvent): void {
    try {
      this.#deps.publish?.(event);
    } catch (err) {
      this.#deps.log.error({ err, type: event.type }, 'transfer event could not be published');
    }
  }
}

export interface SuperviseOptions {
  deps: BridgedCallDeps;
  /** Dial's option `g`: when the other party hangs up, the watcher's dialplan goes on. */
  continueAfterPeer: boolean;
}

/**
 * Follows a BridgedCall (and its successors) on behalf of `me`, the channel whose Dial() thread
 * waits, and returns how that dialplan goes on. With `me` undefined the call has no Dial() thread
 * (both parties were callees of calls an attended transfer joined) and is supervised on its own.
 *
 * - a party hangs up: the other is hung up, unless it is `me` and Dial had option `g`;
 * - blind transfer: the transferee goes to the target extension (its own Dial() thread jumps there,
 *   or a dialplan is started on it, exactly once);
 * - attended transfer: `me` follows the successor call if it is in it; else `me` was the
 *   transferer's leg, which the transfer hangs up.
 */
export async function superviseBridgedCall(start: BridgedCall, me: Channel | undefined, options: SuperviseOptions): Promise<DialplanFlow> {
  let call = start;
  for (;;) {
    const end = await call.ended;
    if (end.kind === 'moved') {
      if (me !== undefined && end.successor.parties.includes(me)) {
        call = end.successor;
        continue;
      }
      return { kind: 'stop' };
    }
    if (end.kind === 'hangup') {
      const survivor = call.other(end.by);
      if (survivor === me && options.continueAfterPeer && !me.isDestroyed) return { kind: 'next' };
      await survivor.hangup(CAUSE_NORMAL_CLEARING);
      return { kind: 'stop' };
    }
    const transferee = call.other(end.by);
    const destination = { context: end.target.context, exten: end.target.exten, priority: 1 };
    if (transferee === me) return { kind: 'goto', ...destination };
    // A transferee with its own Dial() thread goes there itself; otherwise it is started here.
    if (!call.watchers.has(transferee)) options.deps.runDialplan?.(transferee, destination);
    return { kind: 'stop' };
  }
}
