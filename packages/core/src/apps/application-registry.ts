import type { Channel } from '../channels/channel.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { isOfficeEvent } from '../events/office-events.js';
import type { EventBus } from '../events/event-bus.js';
import { isStandIn } from '../cluster/cluster-media-legs.js';
import type {
  ApplicationClaimStore,
  ApplicationJournalStore,
  ApplicationSubscriptionStore,
  JournalLimits,
  SharedSubscription,
  SharedSubscriptionKind,
} from '../store/types.js';
import type { Logger } from '../util/logger.js';
import { Application, type ApplicationEvent, type ApplicationSink, type EventSourceKind } from './application.js';
import { takeOrigin } from './event-origins.js';
import { type Candidates, recipientsOf, wantsEndpoint } from './event-recipients.js';
import { applyDelta, SharedSubscriptions } from './shared-subscriptions.js';
import { StandInRouting } from './stand-in-routing.js';

/** Application names are limited like the reference's (73 characters). */
export const MAX_APPLICATION_NAME_LENGTH = 73;

/** How a channel left an application. */
export type ApplicationExit =
  | { kind: 'hangup' }
  | { kind: 'continue'; context?: string; exten?: string; priority?: number; label?: string }
  /** The application was not registered when the channel tried to enter it. */
  | { kind: 'failed'; reason: string };

/**
 * Makes an application available when a channel enters it while unregistered: an outbound
 * per-call connection is opened then, for that channel alone. Returns undefined for names it does
 * not serve, otherwise the name of the application the channel enters (the per-call connection's
 * own, `<app>:<channel name>` as in the reference) or undefined when none could be made available.
 */
export type ApplicationActivator = (name: string, channel: Channel) => Promise<string | undefined> | undefined;

interface Session {
  channel: Channel;
  application: string;
  resolve: (exit: ApplicationExit) => void;
}

/**
 * Registered applications, the channels inside them, and the routing of domain events to the
 * applications subscribed to their sources (SPEC §6.3).
 */
export class ApplicationRegistry {
  readonly #apps = new Map<string, Application>();
  /**
   * Applications served by another node of the cluster that channels of this node entered: their
   * subscriptions are kept here (where the channels are) and their events are sent to that node.
   * Not listed, not found by name: the REST resource of an application is on its own node.
   */
  readonly #remote = new Map<string, Application>();
  readonly #sessions = new Map<string, Session>();
  readonly #bus: EventBus;
  readonly #log: Logger;
  #activator: ApplicationActivator | undefined;
  #claims: ApplicationClaimStore | undefined;
  #subscriptionStore: ApplicationSubscriptionStore | undefined;
  /** The cluster's shared subscriptions (shareSubscriptionsThrough); none on a node of its own. */
  readonly #shared = new SharedSubscriptions();
  #journal: ApplicationJournalStore | undefined;
  #routing: StandInRouting | undefined;

  constructor(bus: EventBus, log: Logger) {
    this.#bus = bus;
    this.#log = log;
    bus.subscribe((event) => this.#route(event));
  }

  static validateName(name: string): void {
    if (name.length === 0 || name.length > MAX_APPLICATION_NAME_LENGTH) {
      throw invalidArgument(`Application name must be 1 to ${MAX_APPLICATION_NAME_LENGTH} characters`);
    }
  }

  /**
   * Registers (or takes over) an application for a connection. A previous connection serving the
   * same name is told ApplicationReplaced and receives nothing more for it.
   */
  register(name: string, sink: ApplicationSink, options: { subscribeAll?: boolean } = {}): Application {
    ApplicationRegistry.validateName(name);
    this.#claim(name);
    this.#subscriptionStore?.setAll(name, options.subscribeAll ?? false);
    // Served here from now on: channels entering it stay here, and the stand-in that kept this
    // node's subscriptions for the node serving it before becomes the application.
    const standIn = this.#remote.get(name);
    this.#remote.delete(name);
    this.#routing?.forget(name);
    if (standIn && !this.#apps.has(name)) {
      standIn.sink = sink;
      standIn.subscribeAll = options.subscribeAll ?? false;
      this.#apps.set(name, standIn);
      this.#log.info({ application: name }, 'application registered (served elsewhere before)');
      return standIn;
    }
    const existing = this.#apps.get(name);
    if (existing) {
      const previous = existing.sink;
      existing.sink = sink;
      existing.subscribeAll = options.subscribeAll ?? false;
      if (previous !== sink) this.#deliverSafely(previous, { type: 'ApplicationReplaced', timestamp: new Date() });
      return existing;
    }
    const app = new Application(name, sink, options.subscribeAll ?? false);
    this.#shared.applyAll(name, app);
    app.subscribeAll = options.subscribeAll ?? false;
    this.#apps.set(name, app);
    this.#log.info({ application: name }, 'application registered');
    return app;
  }

  /**
   * Shares application names with the other nodes of a cluster: registering a name here claims
   * it everywhere, and a name claimed on another node later is taken from this one, whose
   * connection is told ApplicationReplaced (as when a second connection takes it on one node).
   */
  shareNamesThrough(claims: ApplicationClaimStore): void {
    this.#claims = claims;
    this.#routing = new StandInRouting(claims, this.#log);
    claims.onEvent((name, event) => this.#deliverFromElsewhere(name, event));
    // The application moved to another node: the channels already in it send their events there.
    claims.onClaimed((name) => {
      if (!this.#remote.has(name) && !this.#shared.has(name)) return;
      this.#servedElsewhere(name).catch((err: unknown) => this.#log.error({ err, application: name }, 'could not follow the application'));
    });
    claims.onClaimedElsewhere((name) => {
      const app = this.#apps.get(name);
      if (!app) return;
      this.#apps.delete(name);
      this.#log.info({ application: name }, 'application taken over by another node');
      const sink = app.sink;
      // Its subscriptions here stay: this node sends their events to the node serving it now.
      app.sink = () => undefined;
      this.#remote.set(name, app);
      this.#servedElsewhere(name).catch((err: unknown) => this.#log.error({ err, application: name }, 'could not follow the application'));
      this.#deliverSafely(sink, { type: 'ApplicationReplaced', timestamp: new Date() });
    });
  }

  /**
   * Shares the subscriptions made through the API with the other nodes of a cluster (store
   * application-subscriptions.ts): this node keeps, for each application served elsewhere, a
   * stand-in holding them, so the events of its own channels, bridges and endpoints that the
   * application subscribed to (or all of them, for subscribeAll) are sent to the node serving it.
   */
  shareSubscriptionsThrough(store: ApplicationSubscriptionStore, nodeName: string): void {
    this.#subscriptionStore = store;
    // Subscriptions to the objects of an earlier run of this node (killed) go with those objects.
    store.dropSourcesOf(nodeName);
    let heard: Set<string> | undefined = new Set<string>();
    store.onChange((subscription) => {
      heard?.add(`${subscription.application}\n${subscription.kind}\n${subscription.source}`);
      this.#sharedChanged(subscription);
    });
    store.load().then(
      (subscriptions) => {
        const newer = heard;
        heard = undefined;
        for (const subscription of subscriptions) {
          // A notification heard while loading is newer than the load.
          if (!newer?.has(`${subscription.application}\n${subscription.kind}\n${subscription.source}`)) this.#sharedChanged(subscription);
        }
      },
      (err: unknown) => this.#log.error({ err }, 'could not load the shared application subscriptions'),
    );
  }

  /**
   * Keeps the events of applications whose node died in the cluster's shared journal until they
   * reconnect (stand-in-routing.ts), and drops an application's journal when it is unregistered.
   */
  shareJournalThrough(journal: ApplicationJournalStore, limits: () => JournalLimits): void {
    this.#journal = journal;
    this.#routing?.useJournal(journal, limits, () => this.#remote);
  }

  /** Counts a subscription made through the API in the cluster's shared copy (no-op on a node of its own). */
  shareSubscription(name: string, kind: EventSourceKind, source: string, delta: number, sourceNode?: string): void {
    this.#subscriptionStore?.change(name, kind, source, delta, sourceNode);
  }

  #sharedChanged(subscription: SharedSubscription): void {
    const previous = this.#shared.set(subscription);
    const name = subscription.application;
    const served = this.#apps.get(name);
    if (served) {
      // The node serving the application changed its own Application when the request was made;
      // only that the source ended on another node (or with that node's run) it learns from here.
      if (subscription.sourceGone && subscription.kind !== 'all') served.forget(subscription.kind, subscription.source);
      return;
    }
    const standIn = this.#remote.get(name);
    if (standIn) {
      applyDelta(standIn, subscription, previous);
      return;
    }
    if (subscription.count === 0) return;
    // The stand-in made now is given every shared subscription of the application.
    this.#servedElsewhere(name).catch((err: unknown) => this.#log.error({ err, application: name }, 'could not follow the application'));
  }

  #claim(name: string): void {
    this.#claims?.claim(name).catch((err: unknown) => {
      this.#log.error({ err, application: name }, 'could not claim the application name for the cluster');
    });
  }

  /** Unregisters when `sink` still serves the application (a replaced connection unregisters nothing). */
  unregister(name: string, sink: ApplicationSink): void {
    const app = this.#apps.get(name);
    if (!app || app.sink !== sink) return;
    this.#apps.delete(name);
    // Gone for good (its resume window passed): a later application of the name starts with none.
    this.#subscriptionStore?.dropApplication(name);
    this.#journal?.drop(name).catch((err: unknown) => this.#log.error({ err, application: name }, 'could not drop the shared journal'));
    this.#claims?.release(name).catch((err: unknown) => {
      this.#log.error({ err, application: name }, 'could not release the application name in the cluster');
    });
    this.#log.info({ application: name }, 'application unregistered');
  }

  /** An event a node sent for an application served here: delivered as if raised on this node. */
  #deliverFromElsewhere(name: string, event: Record<string, unknown>): void {
    const app = this.#apps.get(name);
    if (!app || typeof event.type !== 'string' || !app.passesFilter(event.type)) return;
    const [fields, markOrigin] = takeOrigin(event);
    const revived = { ...fields, timestamp: new Date(String(fields.timestamp)) } as unknown as ApplicationEvent;
    markOrigin(revived);
    this.#deliverSafely(app.sink, revived);
  }

  /**
   * The stand-in for an application another node serves (see #remote), made when a channel of
   * this node enters it; undefined when no node serves it.
   */
  async #servedElsewhere(name: string): Promise<Application | undefined> {
    const node = await this.#claims?.servedElsewhere(name);
    if (node === undefined || this.#apps.has(name)) return undefined;
    let app = this.#remote.get(name);
    if (!app) {
      app = new Application(name, () => undefined, false);
      this.#shared.applyAll(name, app);
      this.#remote.set(name, app);
      this.#log.info({ application: name, node }, 'channels enter an application served by another node');
    }
    this.#routing?.sendTo(name, app, node);
    return app;
  }

  get(name: string): Application | undefined {
    return this.#apps.get(name);
  }

  require(name: string): Application {
    const app = this.#apps.get(name);
    if (!app) throw notFound('Application not found');
    return app;
  }

  list(): Application[] {
    return [...this.#apps.values()];
  }

  /** Who opens connections for applications on demand (one activator; a later one replaces it). */
  setActivator(activator: ApplicationActivator | undefined): void {
    this.#activator = activator;
  }

  /**
   * Puts a channel in an application; resolves when it leaves (continue, move, hangup).
   * The application is subscribed to the channel at once (SPEC §6.3 rule 1). An unregistered
   * application is first offered to the activator.
   */
  enter(channel: Channel, name: string, args: string[], options: { replaceChannel?: Channel } = {}): Promise<ApplicationExit> {
    const activation = this.#apps.has(name) ? undefined : this.#activator?.(name, channel);
    if (!activation) return this.#enterRegistered(channel, name, args, options);
    return activation.then(
      (entered) => this.#enterRegistered(channel, entered ?? name, args, options),
      () => this.#enterRegistered(channel, name, args, options),
    );
  }

  #enterRegistered(channel: Channel, name: string, args: string[], options: { replaceChannel?: Channel }): Promise<ApplicationExit> {
    const app = this.#apps.get(name);
    if (app || !this.#claims) return this.#enterApplication(channel, name, app, args, options);
    return this.#servedElsewhere(name).then(
      (remote) => this.#enterApplication(channel, name, remote, args, options),
      (err: unknown) => {
        this.#log.error({ err, application: name }, 'could not look up the application in the cluster');
        return this.#enterApplication(channel, name, undefined, args, options);
      },
    );
  }

  #enterApplication(
    channel: Channel,
    name: string,
    app: Application | undefined,
    args: string[],
    options: { replaceChannel?: Channel },
  ): Promise<ApplicationExit> {
    if (!app) return Promise.resolve({ kind: 'failed', reason: `application '${name}' is not registered` });
    if (this.#sessions.has(channel.id)) return Promise.resolve({ kind: 'failed', reason: 'channel already in an application' });
    if (channel.isDestroyed) return Promise.resolve({ kind: 'hangup' });
    return new Promise<ApplicationExit>((resolve) => {
      this.#sessions.set(channel.id, { channel, application: name, resolve });
      channel.application = name;
      app.subscribe('channel', channel.id);
      const replaced = options.replaceChannel;
      this.#bus.publish({
        type: 'AppStart',
        application: name,
        channel: channel.snapshot(),
        args,
        ...(replaced !== undefined ? { replace_channel: replaced.snapshot() } : {}),
      });
      channel.onHangup(() => this.#leave(channel.id, { kind: 'hangup' }));
    });
  }

  /** Sends a channel back to the dialplan (continue). */
  continueInDialplan(channel: Channel, target: Omit<Extract<ApplicationExit, { kind: 'continue' }>, 'kind'>): void {
    if (!this.#sessions.has(channel.id)) throw conflict('Channel not in an application');
    this.#leave(channel.id, { kind: 'continue', ...target });
  }

  /**
   * Moves a controlled channel to another application (AppEnd in the old one, AppStart in the new
   * one); whoever waits on `enter` keeps waiting. A destination that is not registered leaves the
   * channel where it is and tells its application ApplicationMoveFailed (SPEC §4.4 rule 9).
   */
  move(channel: Channel, name: string, args: string[]): boolean {
    const session = this.#sessions.get(channel.id);
    if (!session) throw conflict('Channel not in an application');
    const destination = this.#apps.get(name) ?? this.#remote.get(name);
    if (!destination) {
      this.#bus.publish({
        type: 'ApplicationMoveFailed',
        application: session.application,
        channel: channel.snapshot(),
        destination: name,
        args,
      });
      return false;
    }
    this.#bus.publish({ type: 'AppEnd', application: session.application, channel: channel.snapshot() });
    session.application = name;
    channel.application = name;
    destination.subscribe('channel', channel.id);
    this.#bus.publish({ type: 'AppStart', application: name, channel: channel.snapshot(), args });
    return true;
  }

  /** The application a channel is in, or a 409 for a channel outside every application. */
  requireControlled(channel: Channel): string {
    const session = this.#sessions.get(channel.id);
    if (!session) throw conflict('Channel not in an application');
    return session.application;
  }

  subscribe(name: string, kind: EventSourceKind, id: string): Application {
    const app = this.require(name);
    app.subscribe(kind, id);
    return app;
  }

  #leave(channelId: string, exit: ApplicationExit): void {
    const session = this.#sessions.get(channelId);
    if (!session) return;
    this.#sessions.delete(channelId);
    session.channel.application = undefined;
    this.#bus.publish({ type: 'AppEnd', application: session.application, channel: session.channel.snapshot() });
    session.resolve(exit);
  }

  #route(event: TimedDomainEvent): void {
    // No wire event is declared for the office features' events yet (office-events.ts).
    if (isOfficeEvent(event)) return;
    for (const app of recipientsOf(event, this.#recipientCandidates)) {
      if (app.passesFilter(event.type)) this.#deliverSafely(app.sink, event);
    }
    if (event.type === 'ChannelDestroyed') {
      for (const app of this.#apps.values()) app.forget('channel', event.channel.id);
      for (const app of this.#remote.values()) app.forget('channel', event.channel.id);
      if (!isStandIn(event.channel)) this.#sourceEnded('channel', event.channel.id);
    }
    if (event.type === 'BridgeDestroyed') this.#sourceEnded('bridge', event.bridge.id);
  }

  /** The owner of a channel or bridge drops the shared subscriptions to it when it ends. */
  #sourceEnded(kind: SharedSubscriptionKind, id: string): void {
    if (this.#subscriptionStore && this.#shared.anyTo(kind, id)) this.#subscriptionStore.dropSource(kind, id);
  }

  /** Whether an application here or on another node takes the endpoint's events. */
  wantsEndpoint(technology: string, resource: string): boolean {
    for (const app of this.#candidates()) if (wantsEndpoint(app, technology, resource)) return true;
    return false;
  }

  /** This node's applications, then the stand-ins of those served elsewhere. */
  /** With no stand-ins (a single node) the applications' own iterator: no generator per event. */
  #candidates(): Iterable<Application> {
    return this.#remote.size === 0 ? this.#apps.values() : this.#withStandIns();
  }

  *#withStandIns(): Iterable<Application> {
    yield* this.#apps.values();
    yield* this.#remote.values();
  }

  /** What recipientsOf chooses from, made once rather than per event. */
  readonly #recipientCandidates: Candidates = {
    all: () => this.#candidates(),
    named: (name: string) => this.#apps.get(name) ?? this.#remote.get(name),
    served: () => this.list(),
  };

  #deliverSafely(sink: ApplicationSink, event: Parameters<ApplicationSink>[0]): void {
    try {
      sink(event);
    } catch (err) {
      this.#log.error({ err, eventType: event.type }, 'application event delivery failed');
    }
  }
}
