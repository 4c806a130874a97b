/**
 * Who receives an event (SPEC §6.3): the application it names, or those subscribed to a channel,
 * bridge or endpoint in it, here and (as stand-ins) on the nodes that serve them.
 */
import type { TimedDomainEvent } from '../events/domain-events.js';
import type { OfficeEvent } from '../events/office-events.js';
import type { BridgeSnapshot, ChannelSnapshot } from '../model/snapshots.js';
import type { Application, EventSourceKind } from './application.js';

/** The applications an event may go to. */
export interface Candidates {
  /** This node's applications, then the stand-ins of those served elsewhere. */
  all(): Iterable<Application>;
  named(name: string): Application | undefined;
  /** This node's own applications only. */
  served(): Application[];
}

/** The applications an event concerns (SPEC §6.3): named ones, or those subscribed to a source in it. */
export function recipientsOf(event: Exclude<TimedDomainEvent, { type: OfficeEvent['type'] }>, apps: Candidates): Application[] {
  // Module functions taking `apps`, not closures: every event passes here, and closures made per
  // call were a measurable share of the main thread's garbage.
  switch (event.type) {
    case 'AppStart':
    case 'AppEnd':
    case 'CallBroadcast':
    case 'CallClaimed':
    case 'ApplicationMoveFailed': {
      const app = apps.named(event.application);
      return app ? [app] : [];
    }
    case 'ChannelUserevent': {
      // The named application, and every application subscribed to one of the event's sources (SPEC §4.2).
      const named = apps.named(event.application);
      const endpoint = event.endpoint;
      const subscribers = matchingApps(
        apps,
        (app) =>
          (event.channel !== undefined && wantsChannel(app, event.channel)) ||
          (event.bridge !== undefined && app.isSubscribed('bridge', event.bridge.id)) ||
          (endpoint !== undefined && wantsEndpoint(app, endpoint.technology, endpoint.resource)),
      );
      return [...new Set([...(named ? [named] : []), ...subscribers])];
    }
    case 'PlaybackStarted':
    case 'PlaybackContinuing':
    case 'PlaybackFinished':
      return subscribedToTargetUri(apps, event.playback.target_uri);
    case 'RecordingStarted':
    case 'RecordingFinished':
    case 'RecordingFailed':
      return subscribedToTargetUri(apps, event.recording.target_uri);
    case 'ChannelVarset':
      return event.channel ? subscribedToChannel(apps, event.channel) : apps.served().filter((a) => a.subscribeAll);
    case 'BridgeCreated':
    case 'BridgeDestroyed':
    case 'BridgeVideoSourceChanged':
      return matchingApps(apps, (app) => app.isSubscribed('bridge', event.bridge.id));
    case 'BridgeMerged':
      return matchingApps(apps, (app) => app.isSubscribed('bridge', event.bridge.id) || app.isSubscribed('bridge', event.bridge_from.id));
    case 'ChannelEnteredBridge':
    case 'ChannelLeftBridge':
      return matchingApps(apps, (app) => app.isSubscribed('bridge', event.bridge.id) || wantsChannel(app, event.channel));
    case 'BridgeBlindTransfer':
      return involvingAny(apps, [event.channel, event.replace_channel, event.transferee], [event.bridge]);
    case 'BridgeAttendedTransfer':
      return involvingAny(
        apps,
        [
          event.transferer_first_leg,
          event.transferer_second_leg,
          event.replace_channel,
          event.transferee,
          event.transfer_target,
          event.destination_link_first_leg,
          event.destination_link_second_leg,
          event.destination_threeway_channel,
        ],
        [event.transferer_first_leg_bridge, event.transferer_second_leg_bridge, event.destination_threeway_bridge],
      );
    case 'Dial':
      return involvingAny(apps, [event.peer, event.caller, event.forwarded], []);
    case 'ChannelTransfer':
      return involvingAny(
        apps,
        [
          event.referred_by.source_channel,
          event.referred_by.connected_channel,
          event.refer_to.destination_channel,
          event.refer_to.connected_channel,
        ],
        [event.referred_by.bridge, event.refer_to.bridge],
      );
    case 'DeviceStateChanged':
      // Every node of a cluster raises it (device states are cluster-wide): the serving node's own is enough.
      return apps.served().filter((app) => app.isSubscribed('deviceState', event.device_state.name));
    case 'EndpointStateChange':
    case 'ContactStatusChange':
    case 'PeerStatusChange':
      return matchingApps(apps, (app) => wantsEndpoint(app, event.endpoint.technology, event.endpoint.resource));
    case 'TextMessageReceived':
      return event.endpoint
        ? matchingApps(apps, (app) => wantsEndpoint(app, event.endpoint?.technology ?? '', event.endpoint?.resource ?? ''))
        : [];
    default:
      return subscribedToChannel(apps, event.channel);
  }
}

function matchingApps(apps: Candidates, predicate: (app: Application) => boolean): Application[] {
  const found: Application[] = [];
  for (const app of apps.all()) if (predicate(app)) found.push(app);
  return found;
}

function subscribedToTargetUri(apps: Candidates, targetUri: string): Application[] {
  const [kind, id] = splitTarget(targetUri);
  return kind ? matchingApps(apps, (app) => app.isSubscribed(kind, id)) : [];
}

/** The path of most events (a channel's): a plain loop, no predicate. */
function subscribedToChannel(apps: Candidates, channel: ChannelSnapshot): Application[] {
  const found: Application[] = [];
  for (const app of apps.all()) if (wantsChannel(app, channel)) found.push(app);
  return found;
}

function involvingAny(apps: Candidates, channels: (ChannelSnapshot | undefined)[], bridges: (BridgeSnapshot | undefined)[]): Application[] {
  return matchingApps(
    apps,
    (app) =>
      channels.some((c) => c !== undefined && wantsChannel(app, c)) ||
      bridges.some((b) => b !== undefined && app.isSubscribed('bridge', b.id)),
  );
}

/** A channel's events reach subscribers of the channel and of its endpoint or technology (SPEC §6.3 rule 2). */
function wantsChannel(app: Application, channel: ChannelSnapshot): boolean {
  if (app.isSubscribed('channel', channel.id)) return true;
  const endpoint = endpointOfChannelName(channel.name);
  return endpoint !== undefined && wantsEndpoint(app, endpoint.technology, endpoint.resource);
}

/** Endpoint subscriptions are `tech/resource`, or `tech` alone for the technology endpoint. */
export function wantsEndpoint(app: Application, technology: string, resource: string): boolean {
  return app.isSubscribed('endpoint', `${technology}/${resource}`) || app.hasExactSubscription('endpoint', technology);
}

/** `SIP/alice-0000000a` → SIP, alice: channel names carry their endpoint. */
export function endpointOfChannelName(name: string): { technology: string; resource: string } | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0) return undefined;
  const rest = name.slice(slash + 1);
  const dash = rest.lastIndexOf('-');
  return { technology: name.slice(0, slash), resource: dash > 0 ? rest.slice(0, dash) : rest };
}

function splitTarget(targetUri: string): [EventSourceKind | undefined, string] {
  const colon = targetUri.indexOf(':');
  const kind = targetUri.slice(0, colon);
  const id = targetUri.slice(colon + 1);
  return kind === 'channel' || kind === 'bridge' ? [kind, id] : [undefined, id];
}
