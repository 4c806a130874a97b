/**
 * Per-call verbose lines as operators know them from the original's console, written at
 * `core set verbose` 3 and above (level `verbose` for logger.conf):
 *
 *     -- Executing [200@from-internal:1] Answer("SIP/alice-00000001", "") in new stack
 *     -- Called SIP/bob
 *     -- SIP/bob-00000002 is ringing
 *     -- SIP/bob-00000002 answered SIP/alice-00000001
 *     -- Channel SIP/bob-00000002 joined 'simple_bridge' basic-bridge <id>
 *     -- SIP/alice-00000001 hung up: Normal Clearing (16)
 *
 * It watches core's event bus only, so it needs nothing from the channel drivers.
 */
import type { DomainEvent, EventBus, Logger } from '@switchboard/core';
import type { VerbosityControl } from '../console/services.js';

/** The original's level for dialplan steps and call progress. */
export const CALL_VERBOSITY = 3;

export class Verbosity implements VerbosityControl {
  level: number;

  constructor(initial: number) {
    this.level = initial;
  }
}

function lineFor(event: DomainEvent): string | undefined {
  switch (event.type) {
    case 'ChannelDialplan': {
      const d = event.channel.dialplan;
      const args = event.dialplan_app_data === '' ? '' : `, "${event.dialplan_app_data}"`;
      return `Executing [${d.exten}@${d.context}:${d.priority}] ${event.dialplan_app}("${event.channel.name}"${args}) in new stack`;
    }
    case 'Dial':
      if (event.dialstring !== undefined && event.dialstatus === '') return `Called ${event.dialstring}`;
      if (event.dialstatus === 'RINGING') return `${event.peer.name} is ringing`;
      if (event.dialstatus === 'ANSWER') return `${event.peer.name} answered${event.caller ? ` ${event.caller.name}` : ''}`;
      if (event.dialstatus === 'PROGRESS') return `${event.peer.name} is making progress`;
      if (event.dialstatus !== '') return `${event.peer.name} ended the dial: ${event.dialstatus}`;
      return undefined;
    case 'ChannelStateChange':
      if (event.channel.state === 'Ringing') return `${event.channel.name} is ringing`;
      if (event.channel.state === 'Up') return `${event.channel.name} answered`;
      return undefined;
    case 'ChannelEnteredBridge':
      return `Channel ${event.channel.name} joined '${event.bridge.technology}' ${event.bridge.bridge_class}-bridge <${event.bridge.id}>`;
    case 'ChannelLeftBridge':
      return `Channel ${event.channel.name} left '${event.bridge.technology}' ${event.bridge.bridge_class}-bridge <${event.bridge.id}>`;
    case 'ChannelDestroyed':
      return `${event.channel.name} hung up: ${event.cause_txt} (${event.cause})`;
    case 'AppStart':
      return `${event.channel.name} entered application '${event.application}'`;
    default:
      return undefined;
  }
}

/** Subscribes; returns the unsubscription. */
export function logCallProgress(bus: EventBus, verbosity: VerbosityControl, log: Logger): () => void {
  return bus.subscribe((event) => {
    if (verbosity.level < CALL_VERBOSITY) return;
    const line = lineFor(event);
    if (line !== undefined) log.info({ verbose: CALL_VERBOSITY }, line);
  });
}
