/**
 * Builds the services behind the channel operations of the API (SPEC §4.4) from the parts of
 * the core they need, so that the core facade only holds them.
 */
import type { MediaStreamGateway } from '../media/media-stream-gateway.js';
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { SwitchboardConfig } from '../config/types.js';
import type { ChannelDriver, TransferDecision, TransferRequestInfo } from '../drivers/channel-technology.js';
import type { Channel } from './channel.js';
import type { EventBus } from '../events/event-bus.js';
import type { MediaEngine } from '../media/media-engine.js';
import { ExternalMediaService } from '../originate/external-media.js';
import { OriginateService } from '../originate/originate-service.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import { channelToneZone } from '../playback/channel-tone-zone.js';
import { ToneResolver } from '../playback/tone-resolver.js';
import { SnoopService } from '../snoop/snoop-service.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { ChannelFlowControl } from './channel-flow.js';
import { ChannelMediaControl } from './channel-media-control.js';
import type { ChannelRegistry } from './channel-registry.js';
import { configuredMohResolver } from './moh-classes.js';
import { ChannelVariableAccess } from './variable-access.js';

export interface ChannelServices {
  /** Mute, hold, music on hold, silence, ringback and DTMF; media notifications → channel events. */
  channelMedia: ChannelMediaControl;
  channelVariables: ChannelVariableAccess;
  /** continue, move, redirect. */
  channelFlow: ChannelFlowControl;
  /** originate, create, dial. */
  originator: OriginateService;
  snoops: SnoopService;
  /** externalMedia (RTP to an external host). */
  externalMedia: ExternalMediaService;
}

export function createChannelServices(deps: {
  config: () => SwitchboardConfig;
  bus: EventBus;
  media: MediaEngine;
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  dialplanRunner: DialplanRunner;
  globals: Map<string, string>;
  clock: Clock;
  log: Logger;
  driverFor(technology: string): ChannelDriver | undefined;
  /** Keeps work that outlives a request so that shutdown can wait for it. */
  track(work: Promise<void>): void;
  /** A far end's transfer request on an originated channel (channel-transfer.ts). */
  offerTransfer?(channel: Channel, request: TransferRequestInfo): TransferDecision;
  /** Runs externalMedia's WebSocket and AudioSocket streams. */
  mediaStreams?: MediaStreamGateway;
}): ChannelServices {
  const { bus, media, channels, applications, dialplanRunner, clock, log, track, driverFor } = deps;
  const snapshotVariables = () => deps.config().ari.channelVars;
  const channelMedia = new ChannelMediaControl({
    bus,
    media,
    clock,
    log: log.child({ module: 'switchboard:core:channel-media' }),
    mohClasses: configuredMohResolver(
      () => deps.config().musicOnHold,
      () => deps.config().confDir,
    ),
    ringback: (channel) => {
      const config = deps.config();
      const tone = new ToneResolver(config.indications).resolve('ring', channelToneZone(channel, config.sip.endpoints));
      return tone.ok ? tone.segments : undefined;
    },
    channelOfLeg: (legId) => channels.findByMediaLeg(legId),
  });
  const channelVariables = new ChannelVariableAccess({ globals: deps.globals, media });
  return {
    channelMedia,
    channelVariables,
    channelFlow: new ChannelFlowControl({ applications, dialplanRunner, driverFor }),
    originator: new OriginateService({
      channels,
      applications,
      dialplanRunner,
      variables: channelVariables,
      channelMedia,
      bus,
      clock,
      log: log.child({ module: 'switchboard:core:originate' }),
      driverFor,
      defaultLanguage: () => deps.config().general.defaultLanguage,
      snapshotVariables,
      track,
      ...(deps.offerTransfer !== undefined ? { offerTransfer: deps.offerTransfer } : {}),
    }),
    externalMedia: new ExternalMediaService({
      channels,
      applications,
      dialplanRunner,
      variables: channelVariables,
      media,
      log: log.child({ module: 'switchboard:core:external-media' }),
      snapshotVariables,
      defaultLanguage: () => deps.config().general.defaultLanguage,
      track,
      ...(deps.mediaStreams !== undefined ? { mediaStreams: deps.mediaStreams } : {}),
      websocketControlFormat: () => deps.config().websocketChannel?.controlMessageFormat ?? 'plain-text',
      // AudioSocket digits carry no duration.
      remoteDtmf: (channel, digit) => channelMedia.remoteDtmf(channel, digit, 0),
    }),
    snoops: new SnoopService({
      channels,
      applications,
      dialplanRunner,
      media,
      log: log.child({ module: 'switchboard:core:snoop' }),
      snapshotVariables,
      track,
    }),
  };
}
