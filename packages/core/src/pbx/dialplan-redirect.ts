/**
 * Sending live channels to a dialplan location from outside the dialplan: the manager's Redirect
 * (also for two channels at once) and its BlindTransfer. A channel in an application leaves it
 * (AppEnd) and continues there; a bridged channel leaves its bridge first; a channel running the
 * dialplan abandons the application it is in; any other channel starts the dialplan there.
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { Channel } from '../channels/channel.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import { conflict } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { DialplanLocationRef, DialplanRunner } from './dialplan-runner.js';

export interface DialplanRedirectDeps {
  bus: EventBus;
  applications: ApplicationRegistry;
  bridges: BridgeRegistry;
  dialplanRunner: DialplanRunner;
  /** Keeps a dialplan run started here so that shutdown waits for it. */
  track(work: Promise<void>): void;
}

export class DialplanRedirect {
  readonly #deps: DialplanRedirectDeps;

  constructor(deps: DialplanRedirectDeps) {
    this.#deps = deps;
  }

  async redirect(channel: Channel, target: DialplanLocationRef): Promise<void> {
    if (channel.isDestroyed) throw conflict('Channel hung up');
    const { applications, bridges, dialplanRunner } = this.#deps;
    if (channel.application !== undefined) {
      applications.continueInDialplan(channel, target);
      return;
    }
    const bridge = bridges.bridgeOf(channel.id);
    if (bridge !== undefined) await bridges.removeChannels(bridge, [channel]);
    if (!dialplanRunner.redirect(channel, target)) this.#deps.track(dialplanRunner.run(channel, target));
  }

  /**
   * The parties bridged with `transferer` go to `target`; the transferer hangs up. Publishes
   * BridgeBlindTransfer. 409 when the transferer is in no bridge with anyone else.
   */
  async blindTransfer(transferer: Channel, target: DialplanLocationRef): Promise<void> {
    const bridge = this.#deps.bridges.bridgeOf(transferer.id);
    const others = bridge ? [...bridge.participants.values()].map((p) => p.channel).filter((c) => c !== transferer) : [];
    if (!bridge || others.length === 0) throw conflict('Channel is not bridged with anyone');
    const snapshot = bridge.snapshot();
    for (const other of others) await this.redirect(other, target);
    this.#deps.bus.publish({
      type: 'BridgeBlindTransfer',
      channel: transferer.snapshot(),
      ...(others.length === 1 && others[0] ? { transferee: others[0].snapshot() } : {}),
      exten: target.exten,
      context: target.context,
      result: 'Success',
      is_external: true,
      bridge: snapshot,
    });
    await transferer.hangup(CAUSE_NORMAL_CLEARING);
  }
}
