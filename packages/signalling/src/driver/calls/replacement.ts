/**
 * An inbound INVITE whose Replaces names one of our confirmed calls (RFC 3891 §3), once it is
 * identified and its media is ready: the new call is answered and takes the replaced call's
 * place — in its Dial() connection (bridged-call.ts), or in its application and bridge through
 * core (`acceptReplacement`) — and the replaced dialog ends with a BYE once the new one is
 * acknowledged, so that a phone moving its own call sees the 200 before the BYE. A replaced call in
 * neither (it runs other dialplan applications) cannot be taken over: the new call gets 503.
 */
import type {
  ChannelDriverHost,
  ChannelTechnology,
  ChannelTechnologyEvents,
  InboundCall as InboundCallPresentation,
  Logger,
  ReplacementCall,
} from '@switchboard/core';
import { BridgedCall } from './bridged-call.js';
import { CAUSE_NORMAL_CLEARING, CAUSE_TEMPORARY_FAILURE } from './hangup-causes.js';

export interface Replacement {
  host: ChannelDriverHost;
  /** The new call as it would be presented to core. */
  presented: InboundCallPresentation;
  /** The call it replaces. */
  replaced: ChannelTechnology;
  log: Logger;
  /** Answers the new INVITE with an error (it was not taken). */
  refuse(status: number, reason?: string): void;
  /** The new call reports to core through these from now on. */
  adopt(events: ChannelTechnologyEvents): void;
  /** Resolves when the new call's 2xx was acknowledged (or the call ended). */
  acknowledged: Promise<void>;
}

export async function presentReplacement(replacement: Replacement): Promise<void> {
  const { host, presented, replaced, log } = replacement;
  if (host.acceptReplacement === undefined) {
    replacement.refuse(501, 'Replaces Not Supported');
    return;
  }
  const bridged = BridgedCall.isBridged(replaced);
  let result: ReplacementCall;
  try {
    result = host.acceptReplacement(presented, replaced);
  } catch (err) {
    log.error({ err }, 'core refused the replacing call');
    replacement.refuse(500);
    return;
  }
  replacement.adopt(result.events);
  const channel = result.channel;
  if (!bridged && result.application === undefined) {
    log.info('the replaced call is in nothing a new call can take over');
    await channel.hangup(CAUSE_TEMPORARY_FAILURE);
    return;
  }
  try {
    await channel.answer();
  } catch (err) {
    log.info({ err }, 'replacing call ended before it was answered');
    return;
  }
  if (bridged && !(await BridgedCall.replaceParty(replaced, channel))) {
    await channel.hangup(CAUSE_TEMPORARY_FAILURE);
    return;
  }
  log.info({ replaced: replaced.protocolId }, 'call replaced by INVITE with Replaces');
  await replacement.acknowledged;
  if (result.replaced !== undefined) await result.replaced.hangup(CAUSE_NORMAL_CLEARING);
  else await replaced.hangup(CAUSE_NORMAL_CLEARING);
}
