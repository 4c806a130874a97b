/**
 * The `Dial(TECH/resource[&TECH/resource…][,timeout[,options]])` dialplan application, as
 * operators know it: every target rings at once, the first to answer is connected to the caller
 * and the others are hung up with cause 26 (a SIP callee then gets a CANCEL with
 * `Reason: SIP;cause=200;text="Call completed elsewhere"`).
 *
 * The caller is answered only when a callee answers; both then enter a Dial bridge (dial-bridges.ts:
 * a basic bridge of the system that the control API lists, with its events). A callee that sends early media (SDP in a 183 or 180) is heard before that: the
 * caller gets a 183 and the two legs share the bridge at once (early-media.ts; the first such callee
 * wins, as in Asterisk); otherwise a ringing callee makes the caller ring (180). DIALSTATUS is set
 * to ANSWER, BUSY, NOANSWER, CONGESTION, CHANUNAVAIL or CANCEL. After an answered call the caller
 * is hung up when the callee hangs up (with option `g` the dialplan goes on instead); after a
 * failed attempt the dialplan goes on at the next priority.
 * Dial domain events are published for each peer ('' at the start, RINGING, PROGRESS, ANSWER, the
 * final status), with the same shape originate uses.
 *
 *   ringing ──first answer──> bridged ──callee hangs up──> caller hung up (or next with `g`)
 *      │                         │  │
 *      │ all failed, timeout     │  │ REFER (blind transfer) from either side: the other party
 *      v                         │  v goes to the Refer-To extension in the transferer's context;
 *                                │    REFER with Replaces (attended): the other party is connected
 *                                │    to the far party of the transferer's other call (bridged-call.ts)
 *   next priority                │ caller hangs up: callee hung up
 *                                v
 *                               stop
 *
 * It depends on core only through the narrow `DialAppDeps` the server fills from SwitchboardCore.
 */
import {
  type Channel,
  type ChannelDriver,
  type ChannelRegistry,
  type ChannelTechnologyEvents,
  type Clock,
  CoreError,
  type DialplanApplication,
  type DialplanFlow,
  type DomainEvent,
  dialStatusForCause,
} from '@switchboard/core';
import type { DialBridges } from './dial-bridges.js';
import { type DialFeatureServices, watchDialFeatures } from './dial-features.js';
import { type DialOptions, parseDialOptions } from './dial-options.js';
import { EarlyMediaPath, hasEarlyMedia } from './early-media.js';
import { CAUSE_NORMAL_CLEARING } from './hangup-causes.js';
import { CAUSE_ANSWERED_ELSEWHERE, CAUSE_NO_ANSWER, CAUSE_SUBSCRIBER_ABSENT } from './outbound-call.js';
import { BridgedCall, type BridgedCallDeps, superviseBridgedCall } from './bridged-call.js';

export { TRANSFERER_HANGUP_MS } from './bridged-call.js';

export interface DialAppDeps {
  channels: Pick<ChannelRegistry, 'create'>;
  driverFor(technology: string): ChannelDriver | undefined;
  /** Where the parties are connected (core's bridges, made for Dial). */
  bridges: DialBridges;
  clock: Clock;
  /** Where Dial events go (core's bus); optional. */
  publish?(event: DomainEvent): void;
  /** Variable names shown in channel snapshots (ari.conf `channelvars`). */
  snapshotVariables?: readonly string[];
  /**
   * Starts the dialplan on a channel that has none (a callee the caller transfers away); without
   * it only the callee can transfer (the caller then continues in its own dialplan).
   */
  runDialplan?(channel: Channel, start: { context: string; exten: string; priority: number }): void;
  /** A callee put the call on hold or resumed it (core's channel media: ChannelHold/ChannelUnhold). */
  remoteHold?(channel: Channel, onHold: boolean): void;
  /** Copies the caller's inheritable (`_`/`__`) variables onto a callee. */
  inheritVariables?(caller: Channel, callee: Channel): void;
  /** What the options m, A, D, U, b and L use (core's channel media and dialplan). */
  extras?: DialExtras;
  /** What the in-call features (t, T, h, H, w, W, x, X, k, K) use; without it they are reported unsupported. */
  features?: DialFeatureServices;
}

/** Core services behind Dial's options (dial-options.ts). */
export interface DialExtras {
  startMoh(channel: Channel, mohClass: string): Promise<void>;
  stopMoh(channel: Channel): Promise<void>;
  /** Plays sounds to a channel; resolves when they end. */
  play(channel: Channel, sounds: string[]): Promise<void>;
  sendDtmf(channel: Channel, digits: string): Promise<void>;
  /** Runs `context,exten,priority(args)` on a channel until its Return; resolves with GOSUB_RESULT. */
  gosub(channel: Channel, target: string): Promise<string>;
}

export type DialStatus = 'ANSWER' | 'BUSY' | 'NOANSWER' | 'CONGESTION' | 'CHANUNAVAIL' | 'CANCEL';

interface Peer {
  channel: Channel;
  dialstring: string;
  status: DialStatus | undefined;
}

type Outcome = { kind: 'answered'; peer: Peer } | { kind: 'failed'; status: DialStatus } | { kind: 'caller-hungup' };

/** The status that stands for every failed target (Asterisk's order: busy, congestion, no answer). */
export function aggregateDialStatus(statuses: readonly DialStatus[]): DialStatus {
  for (const status of ['BUSY', 'CONGESTION', 'NOANSWER', 'CANCEL'] as const) if (statuses.includes(status)) return status;
  return 'CHANUNAVAIL';
}

export function createDialApplication(deps: DialAppDeps): DialplanApplication {
  return async (ctx, args): Promise<DialplanFlow> => {
    const [targetsArg = '', timeoutArg = '', optionsArg = ''] = args;
    const caller = ctx.channel;
    const options = parseDialOptions(optionsArg);
    if (deps.features === undefined && options.features.caller.size + options.features.callee.size > 0) {
      ctx.log.warn({ options: optionsArg }, 'Dial in-call features are not available here; ignored');
    }
    if (options.unsupported.length > 0) ctx.log.warn({ options: options.unsupported.join('') }, 'Dial options not supported yet; ignored');
    const dialedAt = Date.now();
    const timeoutSeconds = Number(timeoutArg);
    const timeoutMs = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds * 1000 : 0;
    const dialstrings = targetsArg
      .split('&')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (dialstrings.length === 0) {
      ctx.log.warn('Dial requires at least one target');
      caller.setVariable('DIALSTATUS', 'CHANUNAVAIL');
      return { kind: 'next' };
    }

    const publish = (peer: Peer, dialstatus: string) => {
      if (deps.publish === undefined) return;
      try {
        deps.publish({
          type: 'Dial',
          peer: peer.channel.snapshot(),
          caller: caller.snapshot(),
          dialstring: peer.dialstring,
          dialstatus,
        });
      } catch (err) {
        ctx.log.error({ err }, 'Dial event could not be published');
      }
    };

    const peers: Peer[] = [];
    // The first callee with early media is heard before the answer (early-media.ts).
    const early = new EarlyMediaPath(deps.bridges, ctx.log);
    const unavailable: DialStatus[] = [];
    let settle: (outcome: Outcome) => void = () => {};
    const outcome = new Promise<Outcome>((resolve) => {
      settle = resolve;
    });
    let winner: Peer | undefined;
    let settled = false;
    const finish = (result: Outcome) => {
      if (settled) return;
      settled = true;
      settle(result);
    };
    const checkAllFailed = () => {
      if (winner !== undefined || settled) return;
      if (peers.some((p) => p.status === undefined)) return;
      finish({ kind: 'failed', status: aggregateDialStatus([...unavailable, ...peers.map((p) => p.status ?? 'CHANUNAVAIL')]) });
    };

    for (const dialstring of dialstrings) {
      const slash = dialstring.indexOf('/');
      const technology = slash === -1 ? dialstring : dialstring.slice(0, slash);
      const resource = slash === -1 ? '' : dialstring.slice(slash + 1);
      const driver = deps.driverFor(technology);
      if (driver?.prepareOutbound === undefined || resource === '') {
        ctx.log.warn({ dialstring }, 'Dial target has no usable technology');
        unavailable.push('CHANUNAVAIL');
        continue;
      }
      let call: ReturnType<NonNullable<ChannelDriver['prepareOutbound']>>;
      try {
        call = driver.prepareOutbound({
          resource,
          caller: { ...caller.caller },
          variables: {},
          mediaNear: caller.tech.mediaLegId,
        });
      } catch (err) {
        if (!(err instanceof CoreError)) throw err;
        ctx.log.info({ dialstring, err: err.message }, 'Dial target refused');
        unavailable.push('CHANUNAVAIL');
        continue;
      }
      const channel = deps.channels.create({
        name: call.name,
        technology: driver.technology,
        endpoint: call.endpoint,
        direction: 'outbound',
        state: 'Down',
        caller: { ...caller.caller },
        language: caller.language,
        dialplan: { context: caller.dialplan.context, exten: caller.dialplan.exten, priority: 1 },
        tech: call.tech,
        snapshotVariables: deps.snapshotVariables ?? [],
      });
      deps.inheritVariables?.(caller, channel);
      if (options.predialGosub !== undefined && deps.extras !== undefined) {
        await deps.extras.gosub(channel, options.predialGosub).catch((err: unknown) => ctx.log.warn({ err }, 'Dial b() failed'));
      }
      const peer: Peer = { channel, dialstring, status: undefined };
      peers.push(peer);
      const events: ChannelTechnologyEvents = {
        held: (onHold) => deps.remoteHold?.(channel, onHold),
        ringing: () => {
          if (settled || channel.isDestroyed) return;
          channel.setState('Ringing');
          publish(peer, 'RINGING');
          // The caller hears ringback from its phone (Asterisk's Dial sends 180 as the callee rings),
          // unless it already hears a callee's early media.
          if (caller.state !== 'Up' && caller.state !== 'Ringing' && early.owner === undefined) {
            caller.indicateRinging().catch((err: unknown) => ctx.log.debug({ err }, 'ringing indication failed'));
          }
        },
        progress: () => {
          if (settled || channel.isDestroyed) return;
          publish(peer, 'PROGRESS');
          // 183 (or 180) with SDP: the caller hears this callee (an unanswered caller gets a 183
          // with our SDP first; one already answered hears it in its call).
          if (hasEarlyMedia(channel.tech) && early.open(caller, channel) && caller.state !== 'Up') {
            caller.indicateProgress().catch((err: unknown) => ctx.log.debug({ err }, 'progress indication failed'));
          }
        },
        answered: () => {
          if (channel.isDestroyed) return;
          if (settled) {
            // Answered after another target won, or after the caller gave up.
            void channel.hangup(CAUSE_ANSWERED_ELSEWHERE);
            return;
          }
          winner = peer;
          peer.status = 'ANSWER';
          channel.setState('Up');
          publish(peer, 'ANSWER');
          finish({ kind: 'answered', peer });
        },
        hungUp: (cause) => {
          if (peer.status === undefined) {
            peer.status = dialStatusForCause(cause);
            publish(peer, peer.status);
          }
          early.ownerGone(channel);
          channel.remoteHangup(cause);
          checkAllFailed();
        },
      };
      publish(peer, '');
      call.dial(events, { timeoutSeconds: 0 }).catch((err: unknown) => {
        ctx.log.warn({ err, dialstring }, 'Dial target could not be called');
        if (peer.status === undefined) {
          peer.status = 'CHANUNAVAIL';
          publish(peer, 'CHANUNAVAIL');
        }
        channel.remoteHangup(CAUSE_SUBSCRIBER_ABSENT);
        checkAllFailed();
      });
    }
    checkAllFailed();
    if (options.ringing && caller.state !== 'Up') {
      caller.indicateRinging().catch((err: unknown) => ctx.log.debug({ err }, 'ringing indication failed'));
    }
    let musicOn = false;
    if (options.music !== undefined && deps.extras !== undefined && !settled) {
      if (caller.state !== 'Up') await caller.indicateProgress().catch(() => undefined);
      musicOn = await deps.extras
        .startMoh(caller, options.music)
        .then(() => true)
        .catch(() => false);
    }

    const onCallerHangup = () => finish({ kind: 'caller-hungup' });
    const stopWatchingCaller = caller.whenHungUp(onCallerHangup);
    if (caller.isDestroyed) onCallerHangup();
    const timer = timeoutMs > 0 ? deps.clock.setTimeout(() => finish({ kind: 'failed', status: 'NOANSWER' }), timeoutMs) : undefined;

    const result = await outcome;
    if (timer !== undefined) deps.clock.clearTimeout(timer);
    if (musicOn && !caller.isDestroyed) await deps.extras?.stopMoh(caller).catch(() => undefined);

    // Everyone but the winner goes: answered elsewhere, no answer, or the caller gave up.
    const loserCause =
      result.kind === 'answered' ? CAUSE_ANSWERED_ELSEWHERE : result.kind === 'caller-hungup' ? CAUSE_NORMAL_CLEARING : CAUSE_NO_ANSWER;
    for (const peer of peers) {
      if (peer === winner || peer.channel.isDestroyed) continue;
      if (peer.status === undefined) {
        peer.status = result.kind === 'failed' ? result.status : 'CANCEL';
        publish(peer, peer.status);
      }
      void peer.channel.hangup(loserCause);
    }

    if (result.kind !== 'answered') await early.close();
    if (result.kind === 'caller-hungup') {
      stopWatchingCaller();
      if (!caller.isDestroyed) caller.setVariable('DIALSTATUS', 'CANCEL');
      return { kind: 'stop' };
    }
    if (result.kind === 'failed') {
      stopWatchingCaller();
      caller.setVariable('DIALSTATUS', result.status);
      caller.setVariable('DIALEDTIME', String(Math.round((Date.now() - dialedAt) / 1000)));
      caller.setVariable('ANSWEREDTIME', '0');
      return { kind: 'next' };
    }
    const answeredAt = Date.now();
    const prepared = await prepareCallee(ctx, deps, caller, result.peer.channel, options);
    if (!prepared) {
      stopWatchingCaller();
      await early.close();
      return caller.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
    }
    const limit = options.limitMs === undefined ? undefined : limitCall(deps, caller, result.peer.channel, options);
    try {
      return await connect(ctx, deps, caller, result.peer, options, stopWatchingCaller, early);
    } finally {
      limit?.();
      const now = Date.now();
      caller.setVariable('DIALEDTIME', String(Math.round((now - dialedAt) / 1000)));
      caller.setVariable('ANSWEREDTIME', String(Math.round((now - answeredAt) / 1000)));
      const cause = result.peer.channel.hangupCause;
      if (cause !== undefined) caller.setVariable('HANGUPCAUSE', String(cause));
    }
  };
}

/**
 * Options that run between the callee's answer and the bridge: A(file) to the callee, U(sub) on
 * the callee (GOSUB_RESULT ABORT ends both), D(called:calling) digits. False: the call ends here.
 */
async function prepareCallee(
  ctx: Parameters<DialplanApplication>[0],
  deps: DialAppDeps,
  caller: Channel,
  callee: Channel,
  options: DialOptions,
): Promise<boolean> {
  const extras = deps.extras;
  if (extras === undefined) return true;
  try {
    if (options.announcement !== undefined) await extras.play(callee, options.announcement.split('&'));
    if (options.calleeGosub !== undefined) {
      const result = await extras.gosub(callee, options.calleeGosub);
      if (result.toUpperCase() === 'ABORT' || result.toUpperCase() === 'CONGESTION' || result.toUpperCase() === 'BUSY') {
        void callee.hangup(CAUSE_NORMAL_CLEARING);
        return false;
      }
    }
    if (options.sendDigits?.called) await extras.sendDtmf(callee, options.sendDigits.called);
    if (options.sendDigits?.calling) await extras.sendDtmf(caller, options.sendDigits.calling);
  } catch (err) {
    ctx.log.info({ err }, 'Dial: a callee option failed');
    if (callee.isDestroyed || caller.isDestroyed) {
      if (!callee.isDestroyed) void callee.hangup(CAUSE_NORMAL_CLEARING);
      return false;
    }
  }
  return !callee.isDestroyed && !caller.isDestroyed;
}

/** L(x:y:z) and S(n): hangs both up after the limit; beeps to the caller before it. Returns the canceller. */
function limitCall(deps: DialAppDeps, caller: Channel, callee: Channel, options: DialOptions): () => void {
  const limitMs = options.limitMs ?? 0;
  const timers: ReturnType<typeof setTimeout>[] = [];
  timers.push(
    setTimeout(() => {
      void callee.hangup(CAUSE_NORMAL_CLEARING);
    }, limitMs),
  );
  const warning = options.warningMs;
  if (warning !== undefined && warning < limitMs && deps.extras !== undefined) {
    const extras = deps.extras;
    const beep = () => void extras.play(caller, ['beep']).catch(() => undefined);
    for (let at = limitMs - warning; at < limitMs; at += options.repeatWarningMs ?? limitMs) timers.push(setTimeout(beep, at));
  }
  return () => {
    for (const timer of timers) clearTimeout(timer);
  };
}

/** The callee answered: answer the caller, bridge the legs, and wait for either side to hang up. */
async function connect(
  ctx: Parameters<DialplanApplication>[0],
  deps: DialAppDeps,
  caller: Channel,
  peer: Peer,
  options: DialOptions,
  stopWatchingCaller: () => void,
  early: EarlyMediaPath,
): Promise<DialplanFlow> {
  stopWatchingCaller();
  const callee = peer.channel;
  caller.setVariable('DIALSTATUS', 'ANSWER');
  caller.setVariable('DIALEDPEERNAME', callee.name);
  caller.setVariable('DIALEDPEERNUMBER', peer.dialstring);
  // Connected line: each party is now connected to the other.
  caller.setConnected(callee.caller);
  callee.setConnected(caller.caller);
  try {
    await caller.answer();
  } catch (err) {
    ctx.log.info({ err }, 'caller could not be answered; ending the callee');
    void callee.hangup(CAUSE_NORMAL_CLEARING);
    await early.close();
    return { kind: 'stop' };
  }

  // With early media the legs already share a bridge: it carries the call from now on.
  const earlyBridge = await early.handOver(callee).catch(async (err: unknown) => {
    ctx.log.error({ err }, 'the early media bridge could not take the answered callee; a new bridge is made');
    await early.close();
    return undefined;
  });

  // Whoever hangs up first ends the other (Asterisk's Dial without options), unless one side
  // transfers the other away (REFER, blind or attended: bridged-call.ts).
  const bridgedDeps: BridgedCallDeps = {
    bridges: deps.bridges,
    clock: deps.clock,
    log: ctx.log,
    ...(deps.publish !== undefined ? { publish: deps.publish } : {}),
    ...(deps.runDialplan !== undefined ? { runDialplan: deps.runDialplan } : {}),
  };
  const call = new BridgedCall(bridgedDeps, caller, callee, earlyBridge);
  call.watchers.add(caller);
  await call.connect();
  const stopFeatures =
    deps.features === undefined
      ? () => undefined
      : watchDialFeatures(call, { caller, callee }, options.features, deps.features, { clock: deps.clock, log: ctx.log });
  try {
    return await superviseBridgedCall(call, caller, { deps: bridgedDeps, continueAfterPeer: options.continueAfterCallee });
  } finally {
    stopFeatures();
  }
}
