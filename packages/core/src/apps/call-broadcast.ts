/**
 * Broadcast of a channel to several applications, first claim wins (reference events.md
 * `claimChannel`, CallBroadcast/CallClaimed; the dialplan application AppBroadcast, alias
 * StasisBroadcast). A broadcast stays known until the winner's session ends, so a late claim is
 * told 409 (claimed) rather than 404 (never broadcast).
 *
 *   broadcast() ──► offered ──claim()──► claimed ──end()──► (forgotten)
 *                      │                                  ▲
 *                      └────────── timeout / hangup ───────┘
 */
import type { Channel } from '../channels/channel.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { ApplicationRegistry } from './application-registry.js';

interface Offer {
  readonly channel: Channel;
  /** The applications that were offered the channel. */
  readonly offeredTo: readonly string[];
  readonly notifyClaimed: boolean;
  winner: string | undefined;
  readonly claimed: Promise<string>;
  resolveClaim(winner: string): void;
}

export interface BroadcastOptions {
  /** Only applications whose names match are offered the channel; all when absent. */
  readonly filter?: RegExp;
  /** Whether the offered applications hear CallClaimed when one of them wins. */
  readonly notifyClaimed: boolean;
}

export class CallBroadcasts {
  readonly #offers = new Map<string, Offer>();
  readonly #bus: EventBus;
  readonly #applications: ApplicationRegistry;

  constructor(bus: EventBus, applications: ApplicationRegistry) {
    this.#bus = bus;
    this.#applications = applications;
  }

  /**
   * Offers the channel to the registered applications (CallBroadcast to each) and returns the
   * promise of the winner's name. `end` must follow, whatever happens.
   */
  broadcast(channel: Channel, options: BroadcastOptions): Promise<string> {
    if (this.#offers.has(channel.id)) throw invalidArgument('Channel is already being broadcast');
    const offeredTo = this.#applications
      .list()
      .map((app) => app.name)
      .filter((name) => options.filter === undefined || options.filter.test(name));
    let resolveClaim: (winner: string) => void = () => undefined;
    const claimed = new Promise<string>((resolve) => {
      resolveClaim = resolve;
    });
    this.#offers.set(channel.id, { channel, offeredTo, notifyClaimed: options.notifyClaimed, winner: undefined, claimed, resolveClaim });
    const snapshot = channel.snapshot();
    for (const application of offeredTo) {
      this.#bus.publish({
        type: 'CallBroadcast',
        application,
        channel: snapshot,
        ...(channel.caller.number !== '' ? { caller: channel.caller.number } : {}),
        ...(channel.dialplan.exten !== '' ? { called: channel.dialplan.exten } : {}),
      });
    }
    return claimed;
  }

  /** The first claim wins; 404 when the channel is not being broadcast, 409 when it was claimed. */
  claim(channelId: string, application: string): void {
    const offer = this.#offers.get(channelId);
    if (!offer) throw notFound('Channel not found or not being broadcast');
    if (offer.winner !== undefined) throw conflict(`Channel was already claimed by ${offer.winner}`);
    if (!this.#applications.get(application)) throw notFound(`Application ${application} is not registered`);
    offer.winner = application;
    offer.resolveClaim(application);
    if (!offer.notifyClaimed) return;
    const snapshot = offer.channel.snapshot();
    for (const name of offer.offeredTo) {
      this.#bus.publish({ type: 'CallClaimed', application: name, channel: snapshot, winner_app: application });
    }
  }

  /** The broadcast is over (timed out, the channel hung up, or the winner's session ended). */
  end(channelId: string): void {
    this.#offers.delete(channelId);
  }
}
