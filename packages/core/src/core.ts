import { ApplicationRegistry } from './apps/application-registry.js';
import type { Channel } from './channels/channel.js';
import { ChannelRegistry } from './channels/channel-registry.js';
import { CAUSE_NORMAL_CLEARING } from './channels/hangup-causes.js';
import type { SwitchboardConfig } from './config/types.js';
import { Dialplan } from './dialplan/dialplan.js';
import { expand } from './dialplan/expand.js';
import { splitArgs } from './dialplan/split-args.js';
import type { ChannelDriver, ChannelDriverHost, ChannelTechnologyEvents, InboundCall } from './drivers/channel-technology.js';
import { EventBus } from './events/event-bus.js';
import type { MediaEngine } from './media/media-engine.js';
import { DialplanRunner } from './pbx/dialplan-runner.js';
import { PlaybackManager } from './playback/playback-manager.js';
import { SoundIndex } from './sounds/sound-index.js';
import { SystemStatus } from './system.js';
import { type Logger, silentLogger } from './util/logger.js';
import { type Clock, systemClock } from './util/time.js';

/** Q.850 "unallocated number": the dialled extension does not exist. */
const CAUSE_UNALLOCATED = 1;

export interface CoreOptions {
  config: SwitchboardConfig;
  media: MediaEngine;
  logger?: Logger;
  clock?: Clock;
}

/**
 * The object model in one place: what the api package calls and what channel drivers report to.
 * It constructs no driver and no engine; the server hands those in.
 */
export class SwitchboardCore implements ChannelDriverHost {
  readonly config: SwitchboardConfig;
  readonly bus: EventBus;
  readonly channels: ChannelRegistry;
  readonly applications: ApplicationRegistry;
  readonly playbacks: PlaybackManager;
  readonly sounds: SoundIndex;
  readonly system: SystemStatus;
  readonly dialplanRunner: DialplanRunner;
  readonly globals: Map<string, string>;
  readonly media: MediaEngine;
  readonly #drivers = new Map<string, ChannelDriver>();
  readonly #log: Logger;
  #dialplan: Dialplan;
  readonly #running = new Set<Promise<void>>();

  constructor(options: CoreOptions) {
    const log = options.logger ?? silentLogger;
    this.#log = log;
    this.config = options.config;
    this.media = options.media;
    this.bus = new EventBus(log.child({ module: 'switchboard:core:bus' }));
    this.channels = new ChannelRegistry(this.bus, log.child({ module: 'switchboard:core:channel' }));
    this.applications = new ApplicationRegistry(this.bus, log.child({ module: 'switchboard:core:applications' }));
    this.sounds = new SoundIndex(
      options.config.general.soundDirs,
      options.config.general.defaultLanguage,
      log.child({ module: 'switchboard:core:sounds' }),
    );
    this.playbacks = new PlaybackManager({
      bus: this.bus,
      media: options.media,
      sounds: this.sounds,
      log: log.child({ module: 'switchboard:core:playback' }),
      clock: options.clock ?? systemClock,
    });
    this.system = new SystemStatus(() => this.config);
    this.globals = new Map(Object.entries(options.config.dialplan.globals));
    this.#dialplan = new Dialplan(options.config.dialplan);
    this.dialplanRunner = new DialplanRunner({
      dialplan: () => this.#dialplan,
      text: { expand, splitArgs },
      applications: this.applications,
      playbacks: this.playbacks,
      globals: this.globals,
      log: log.child({ module: 'switchboard:core:dialplan' }),
    });
  }

  registerDriver(driver: ChannelDriver): void {
    for (const name of [driver.technology, ...driver.aliases]) this.#drivers.set(name.toUpperCase(), driver);
  }

  driverFor(technology: string): ChannelDriver | undefined {
    return this.#drivers.get(technology.toUpperCase());
  }

  acceptInbound(call: InboundCall): ChannelTechnologyEvents {
    const channel = this.channels.create({
      name: call.name,
      technology: call.technology,
      endpoint: call.endpoint,
      direction: 'inbound',
      state: 'Ring',
      caller: call.caller,
      language: call.language ?? this.config.general.defaultLanguage,
      dialplan: { context: call.context, exten: call.exten, priority: 1 },
      tech: call.tech,
      snapshotVariables: this.config.ari.channelVars,
    });
    this.#startDialplan(channel, call.context, call.exten);
    return {
      answered: () => channel.setState('Up'),
      ringing: () => channel.setState('Ringing'),
      hungUp: (cause) => channel.remoteHangup(cause),
    };
  }

  #startDialplan(channel: Channel, context: string, exten: string): void {
    if (!this.#dialplan.findPriority(context, exten, 1)) {
      this.#log.info({ channel: channel.name, context, exten }, 'no such extension');
      void channel.hangup(CAUSE_UNALLOCATED);
      return;
    }
    const run = this.dialplanRunner.run(channel, { context, exten, priority: 1 });
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
  }

  /** Hangs up every channel and waits for their dialplans to end. */
  async shutdown(): Promise<void> {
    await Promise.allSettled(this.channels.list().map((c) => c.hangup(CAUSE_NORMAL_CLEARING)));
    await Promise.allSettled([...this.#running]);
  }
}
