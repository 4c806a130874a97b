/**
 * The manager's Atxfer: an attended transfer started for a bridged channel. The transferer leaves
 * its bridge (the parties left there hear music on hold), a Local channel dials exten@context, and
 * once it answers the transferer talks to it in a consultation bridge. When the transferer hangs
 * up, the target takes its place in the first bridge (BridgeAttendedTransfer); when the target
 * hangs up or never answers, the transferer goes back.
 *
 *   bridged ──start──► dialling ──answer──► consulting ──transferer hangs up──► done (target joins)
 *      ▲                  │                     │
 *      └── target gone ───┴─────────────────────┘ (transferer returns)
 */
import type { Bridge } from '../bridges/bridge.js';
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { Channel } from '../channels/channel.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import { conflict } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { OriginateService } from '../originate/originate-service.js';
import type { Logger } from '../util/logger.js';

type TransferState = 'dialling' | 'consulting' | 'returned' | 'done';

const TRANSITIONS: Record<TransferState, readonly TransferState[]> = {
  dialling: ['consulting', 'returned', 'done'],
  consulting: ['returned', 'done'],
  returned: [],
  done: [],
};

export interface AttendedTransferDeps {
  bus: EventBus;
  bridges: BridgeRegistry;
  originator: OriginateService;
  log: Logger;
}

/** Seconds the target may ring before the transferer goes back. */
export const ATTENDED_TRANSFER_TIMEOUT_SECONDS = 30;

export class AttendedTransferService {
  readonly #deps: AttendedTransferDeps;

  constructor(deps: AttendedTransferDeps) {
    this.#deps = deps;
  }

  /** Resolves once the target is being dialled. 409 when the transferer is bridged with nobody. */
  async start(transferer: Channel, target: { context: string; exten: string }): Promise<void> {
    const home = this.#deps.bridges.bridgeOf(transferer.id);
    const others = home ? [...home.participants.values()].filter((p) => p.channel !== transferer) : [];
    if (!home || others.length === 0) throw conflict('Channel is not bridged with anyone');
    await new Consultation(this.#deps, transferer, home).start(target);
  }
}

/** One attended transfer in progress (the state machine above). */
class Consultation {
  readonly #deps: AttendedTransferDeps;
  readonly #transferer: Channel;
  readonly #home: Bridge;
  #state: TransferState = 'dialling';
  #bridge: Bridge | undefined;

  constructor(deps: AttendedTransferDeps, transferer: Channel, home: Bridge) {
    this.#deps = deps;
    this.#transferer = transferer;
    this.#home = home;
  }

  #move(next: TransferState): boolean {
    if (!TRANSITIONS[this.#state].includes(next)) return false;
    this.#state = next;
    return true;
  }

  async start(target: { context: string; exten: string }): Promise<void> {
    const { bridges, originator, log } = this.#deps;
    const transferer = this.#transferer;
    await bridges.removeChannels(this.#home, [transferer]);
    await bridges.startMusic(this.#home).catch((err: unknown) => log.warn({ err }, 'no music on hold for the transferee'));
    let local: Channel;
    try {
      local = await originator.originate({
        endpoint: `Local/${target.exten}@${target.context}`,
        timeout: ATTENDED_TRANSFER_TIMEOUT_SECONDS,
        callerId: `"${transferer.caller.name}" <${transferer.caller.number}>`,
        afterAnswer: (answered) => this.#consult(answered),
      });
    } catch (err) {
      await this.#returnHome();
      throw err;
    }
    const failed = (err: unknown) => log.warn({ err }, 'attended transfer step failed');
    local.onHangup(() => {
      if (this.#state === 'dialling' || this.#state === 'consulting') void this.#returnHome().catch(failed);
    });
    transferer.onHangup(() => {
      void this.#complete(local, this.#state === 'consulting').catch(failed);
    });
  }

  async #consult(answered: Channel): Promise<void> {
    if (this.#transferer.isDestroyed || !this.#move('consulting')) {
      await answered.hangup(CAUSE_NORMAL_CLEARING);
      return;
    }
    const { bridges } = this.#deps;
    this.#bridge = await bridges.create({ type: 'mixing', appOwned: false, bridgeClass: 'basic' });
    await bridges.addChannels(this.#bridge, [this.#transferer, answered]);
  }

  async #endConsultation(): Promise<void> {
    const { bridges } = this.#deps;
    if (this.#bridge) await bridges.destroy(this.#bridge);
    await bridges.stopMusic(this.#home).catch(() => undefined);
  }

  /** The target is gone or never answered: the transferer goes back to its bridge. */
  async #returnHome(): Promise<void> {
    if (!this.#move('returned')) return;
    await this.#endConsultation();
    if (!this.#transferer.isDestroyed && !this.#home.isDestroyed) await this.#deps.bridges.addChannels(this.#home, [this.#transferer]);
  }

  /** The transferer hung up: a consulting target joins the first bridge; a ringing one is cancelled. */
  async #complete(local: Channel, consulting: boolean): Promise<void> {
    if (!this.#move('done')) return;
    const { bridges, bus } = this.#deps;
    const home = this.#home;
    const homeSnapshot = home.snapshot();
    const transferee = [...home.participants.values()][0]?.channel;
    if (!consulting || local.isDestroyed || home.isDestroyed || !transferee) {
      await this.#endConsultation();
      if (!local.isDestroyed) await local.hangup(CAUSE_NORMAL_CLEARING);
      return;
    }
    // Out of the consultation bridge first: destroying it must not take the target along.
    if (this.#bridge && bridges.bridgeOf(local.id) === this.#bridge) await bridges.removeChannels(this.#bridge, [local]);
    await this.#endConsultation();
    await bridges.addChannels(home, [local]);
    const transfererSnapshot = this.#transferer.snapshot();
    bus.publish({
      type: 'BridgeAttendedTransfer',
      transferer_first_leg: transfererSnapshot,
      transferer_second_leg: transfererSnapshot,
      transferee: transferee.snapshot(),
      transfer_target: local.snapshot(),
      result: 'Success',
      is_external: true,
      transferer_first_leg_bridge: homeSnapshot,
      destination_type: 'bridge',
      destination_bridge: home.id,
    });
  }
}
