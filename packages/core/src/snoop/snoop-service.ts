/**
 * Snoop channels (snoopChannel/snoopChannelWithId): a channel named `Snoop/<source id>-<8 hex>`
 * over a media-engine snoop leg that hears (`spy`) and/or speaks into (`whisper`) another
 * channel. It is up at once, placed in an application (AppStart), and hung up when the channel it
 * snoops on goes away.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import { invalidArgument } from '../errors.js';
import type { MediaEngine, SnoopDirection } from '../media/media-engine.js';
import { splitAppArgs } from '../originate/originate-service.js';
import { runInApplication } from '../pbx/application-session.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import type { Logger } from '../util/logger.js';
import { MediaLegTechnology } from '../drivers/media-leg-technology.js';

export const SNOOP_DIRECTIONS: readonly SnoopDirection[] = ['none', 'both', 'out', 'in'];

export interface SnoopRequest {
  spy?: SnoopDirection;
  whisper?: SnoopDirection;
  app: string | undefined;
  appArgs?: string;
  snoopId?: string;
}

export interface SnoopDeps {
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  dialplanRunner: DialplanRunner;
  media: MediaEngine;
  log: Logger;
  snapshotVariables(): readonly string[];
  track(work: Promise<void>): void;
}

export class SnoopService {
  readonly #deps: SnoopDeps;

  constructor(deps: SnoopDeps) {
    this.#deps = deps;
  }

  async snoop(source: Channel, request: SnoopRequest): Promise<Channel> {
    const spy = request.spy ?? 'none';
    const whisper = request.whisper ?? 'none';
    for (const direction of [spy, whisper]) {
      if (!SNOOP_DIRECTIONS.includes(direction)) throw invalidArgument(`Invalid snoop direction '${direction}'`);
    }
    if (spy === 'none' && whisper === 'none') throw invalidArgument('Snoop requires spy or whisper');
    if (!request.app) throw invalidArgument('app is required');
    ApplicationRegistry.validateName(request.app);
    const { channels, media } = this.#deps;
    if (request.snoopId !== undefined) channels.assertIdAvailable(request.snoopId);
    const sourceLegId = source.tech.mediaLegId;
    if (!sourceLegId) throw invalidArgument('Channel has no media to snoop on');
    const { legId } = await media.createSnoopLeg({ sourceLegId, spy, whisper });
    const tech = new MediaLegTechnology(legId, media);
    let snoop: Channel;
    try {
      // The source may have gone, or the id been taken, while the leg was made.
      if (source.isDestroyed) throw invalidArgument('Channel hung up');
      snoop = channels.create({
        id: request.snoopId,
        name: `Snoop/${source.id}-${randomBytes(4).toString('hex')}`,
        technology: 'Snoop',
        endpoint: source.id,
        direction: 'outbound',
        state: 'Up',
        caller: { name: '', number: '' },
        language: source.language,
        dialplan: { context: 'default', exten: 's', priority: 1 },
        tech,
        snapshotVariables: this.#deps.snapshotVariables(),
      });
    } catch (err) {
      await tech.hangup();
      throw err;
    }
    source.onHangup(() => void snoop.hangup(CAUSE_NORMAL_CLEARING));
    this.#deps.track(runInApplication(this.#deps, snoop, request.app, splitAppArgs(request.appArgs)));
    return snoop;
  }
}
