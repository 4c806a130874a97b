/**
 * The in-call features Dial() enables with its option letters (dial-options.ts), typed as DTMF
 * during the connected call with the codes of features.conf `[featuremap]`:
 *
 *   disconnect  the party that typed it hangs up (the other goes on as after any hangup: with
 *               `g` the caller's dialplan continues when the callee typed it)
 *   automixmon  starts a MixMonitor of the typing party's channel (both directions: the whole
 *               call), or stops the one it started; both parties hear a beep
 *   blindxfer   the typing party then dials an extension (ended by `#` or `transferdigittimeout`
 *               without a digit) while the other party hears music on hold; when it exists in the party's TRANSFER_CONTEXT (else its context)
 *               the other party goes there and the typing party is hung up; otherwise the call
 *               goes on and the party hears a beep
 *   atxfer, parkcall  not built: the code is recognised and refused with a warning
 *
 * Digits are not absorbed: the other party hears them too, as with the phone's own DTMF.
 *
 *   listening ──code──> (blindxfer) collecting ──'#' / timeout──> transfer or back to listening
 *       └──────call ends──> stopped
 */
import type { Channel, Clock, FeatureName, FeaturesConfig, Logger } from '@switchboard/core';
import type { BridgedCall } from './bridged-call.js';
import type { DialOptions } from './dial-options.js';
import { FeatureCodeMatcher } from './feature-codes.js';
import { CAUSE_NORMAL_CLEARING } from './hangup-causes.js';

/** What the features need from core (the server fills them in). */
export interface DialFeatureServices {
  features: FeaturesConfig;
  /** Calls `listener` for each DTMF digit the channel's phone sends; returns the unsubscription. */
  onDtmf(channel: Channel, listener: (digit: string) => void): () => void;
  /** Starts the one-touch recording of `channel`'s call, or stops it; resolves with what happened. */
  toggleRecording(channel: Channel, peer: Channel): Promise<'started' | 'stopped'>;
  extensionExists(context: string, exten: string): boolean;
  play(channel: Channel, sounds: string[]): Promise<void>;
  /** Music on hold for the party waiting while the other dials a transfer (default class). */
  startMoh(channel: Channel): Promise<void>;
  stopMoh(channel: Channel): Promise<void>;
}

interface PartyState {
  matcher: FeatureCodeMatcher;
  /** Extension digits of a blind transfer being dialled. */
  transfer: string | undefined;
  timer: unknown;
}

/** Watches both parties of a Dial() call for their feature codes; returns the stopper. */
export function watchDialFeatures(
  call: BridgedCall,
  roles: { caller: Channel; callee: Channel },
  enabled: DialOptions['features'],
  services: DialFeatureServices,
  deps: { clock: Clock; log: Logger },
): () => void {
  const stops: Array<() => void> = [];
  for (const [party, features] of [
    [roles.caller, enabled.caller],
    [roles.callee, enabled.callee],
  ] as const) {
    const codes = [...features].map((feature) => [feature, services.features.featureMap[feature]] as const);
    const matcher = new FeatureCodeMatcher(codes);
    if (!matcher.enabled) continue;
    const state: PartyState = { matcher, transfer: undefined, timer: undefined };
    const disarm = () => {
      if (state.timer !== undefined) deps.clock.clearTimeout(state.timer);
      state.timer = undefined;
    };
    const fire = (feature: FeatureName) => {
      deps.log.info({ channel: party.name, feature }, 'feature code typed');
      void runFeature(feature, party, call, services, deps.log, (digits) => {
        state.transfer = digits;
        disarm();
        state.timer = deps.clock.setTimeout(finishTransfer, services.features.transferDigitTimeoutMs);
      });
    };
    const finishTransfer = () => {
      disarm();
      const exten = state.transfer ?? '';
      state.transfer = undefined;
      void blindTransfer(party, exten, call, services, deps.log);
    };
    const onDigit = (digit: string) => {
      if (state.transfer !== undefined) {
        if (digit === '#') finishTransfer();
        else {
          state.transfer += digit;
          disarm();
          state.timer = deps.clock.setTimeout(finishTransfer, services.features.transferDigitTimeoutMs);
        }
        return;
      }
      disarm();
      const match = state.matcher.push(digit);
      if (match.kind === 'fired') fire(match.feature);
      else if (match.kind === 'waiting') {
        state.timer = deps.clock.setTimeout(() => {
          state.timer = undefined;
          const feature = state.matcher.timeout();
          if (feature !== undefined) fire(feature);
        }, services.features.featureDigitTimeoutMs);
      }
    };
    const unsubscribe = services.onDtmf(party, onDigit);
    stops.push(() => {
      unsubscribe();
      disarm();
    });
  }
  return () => {
    for (const stop of stops.splice(0)) stop();
  };
}

async function runFeature(
  feature: FeatureName,
  party: Channel,
  call: BridgedCall,
  services: DialFeatureServices,
  log: Logger,
  startTransfer: (digits: string) => void,
): Promise<void> {
  const other = call.other(party);
  switch (feature) {
    case 'disconnect':
      await party.hangup(CAUSE_NORMAL_CLEARING);
      return;
    case 'automixmon':
      try {
        const result = await services.toggleRecording(party, other);
        log.info({ channel: party.name, result }, 'one-touch recording');
        await Promise.all([party, other].map((c) => services.play(c, ['beep']).catch(() => undefined)));
      } catch (err) {
        log.warn({ channel: party.name, err }, 'one-touch recording could not be changed');
      }
      return;
    case 'blindxfer':
      startTransfer('');
      await services.startMoh(other).catch((err: unknown) => log.debug({ err }, 'no music for the transferee'));
      return;
    case 'atxfer':
      log.warn({ channel: party.name }, 'attended transfer by DTMF (atxfer) is not built; the phone can transfer with REFER');
      return;
    case 'parkcall':
      log.warn({ channel: party.name }, 'call parking (parkcall) is not built; the code does nothing');
      return;
  }
}

async function blindTransfer(party: Channel, exten: string, call: BridgedCall, services: DialFeatureServices, log: Logger): Promise<void> {
  // The transferee's music ends before it goes anywhere (or back to the call).
  await services.stopMoh(call.other(party)).catch(() => undefined);
  if (party.isDestroyed) return;
  const transferContext = party.getVariable('TRANSFER_CONTEXT');
  const context = transferContext !== undefined && transferContext !== '' ? transferContext : party.dialplan.context;
  if (exten === '' || !services.extensionExists(context, exten)) {
    log.info({ channel: party.name, context, exten }, 'blind transfer by DTMF: no such extension; the call goes on');
    void services.play(party, ['beep']).catch(() => undefined);
    return;
  }
  if (!call.transferByFeature(party, { context, exten })) {
    log.info({ channel: party.name, context, exten }, 'blind transfer by DTMF refused: the call cannot be transferred now');
  }
}
