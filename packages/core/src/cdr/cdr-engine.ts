/**
 * Call detail records with the original's fields, built from the events of the object model:
 *
 *   ChannelCreated     start, src, clid, dst/dcontext (where the dialplan begins), accountcode
 *   Dial               the dialled channel becomes dstchannel (its own record is dropped: it is
 *                      party B of the caller's record), peeraccount
 *   ChannelDialplan    lastapp, lastdata
 *   ChannelStateChange answer (the first Up)
 *   ChannelDestroyed   end; the record is finished once the channel's `h` extension has run,
 *                      so `Set(CDR(userfield)=…)` there still counts
 *
 * disposition: ANSWERED when answered, else from DIALSTATUS (BUSY, NOANSWER/CANCEL → NO ANSWER,
 * CONGESTION, CHANUNAVAIL → FAILED), else from the hangup cause (17 BUSY, 34/42 CONGESTION,
 * 16/18/19 NO ANSWER). With `unanswered = no` (the default) an unanswered record that rang no
 * one (no dstchannel) is not kept, as in the original.
 *
 * Dialplan side: CDR(field) reads any field and writes userfield, accountcode, amaflags and
 * custom variables; NoCDR() drops the channel's record; ResetCDR() starts it again from now.
 */
import type { ChannelSnapshot } from '../model/snapshots.js';
import type { CdrDisposition, CdrRecord } from '../store/types.js';
import type { EventBus } from '../events/event-bus.js';
import type { DialplanApplication } from '../pbx/dialplan-app.js';
import type { DialplanFunction } from '../pbx/pbx-services.js';
import type { CdrConfig } from './cdr-config.js';
import { csvTime } from './master-csv.js';

interface LiveCdr {
  channel: string;
  start: Date;
  answer?: Date;
  src: string;
  clid: string;
  dst: string;
  dcontext: string;
  lastapp: string;
  lastdata: string;
  dstchannel: string;
  peeraccount: string;
  accountcode: string;
  amaflags: string;
  userfield: string;
  uniqueid: string;
  linkedid: string;
  dialstatus?: string;
  disabled: boolean;
  variables: Map<string, string>;
}

export interface CdrEngineDeps {
  bus: EventBus;
  config: CdrConfig;
  /** The accountcode of an endpoint (pjsip.conf `accountcode`). */
  accountCodeOf(technology: string, endpoint: string): string;
  /** Resolves once the channel's dialplan, `h` extension included, has ended. */
  dialplanDone(channelId: string): Promise<void>;
  write(record: CdrRecord): void;
  now?: () => Date;
}

const DIALSTATUS_DISPOSITION: Record<string, CdrDisposition> = {
  BUSY: 'BUSY',
  NOANSWER: 'NO ANSWER',
  CANCEL: 'NO ANSWER',
  CONGESTION: 'CONGESTION',
  CHANUNAVAIL: 'FAILED',
};

function dispositionFor(live: LiveCdr, cause: number): CdrDisposition {
  if (live.answer !== undefined) return 'ANSWERED';
  const fromDial = live.dialstatus === undefined ? undefined : DIALSTATUS_DISPOSITION[live.dialstatus];
  if (fromDial !== undefined) return fromDial;
  if (cause === 17) return 'BUSY';
  if (cause === 34 || cause === 42) return 'CONGESTION';
  if (cause === 16 || cause === 18 || cause === 19) return 'NO ANSWER';
  return 'FAILED';
}

/** The original's `"name" <number>` (just the one that exists when the other is empty). */
function callerIdText(name: string, number: string): string {
  if (name && number) return `"${name}" <${number}>`;
  return name || number;
}

export class CdrEngine {
  readonly #live = new Map<string, LiveCdr>();
  readonly #deps: CdrEngineDeps;
  readonly #now: () => Date;
  /** Records waiting for their channel's `h` extension. */
  readonly #finishing = new Set<Promise<void>>();
  #sequence = 0;

  constructor(deps: CdrEngineDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    if (!deps.config.enabled) return;
    deps.bus.subscribe((event) => {
      switch (event.type) {
        case 'ChannelCreated':
          this.#created(event.channel);
          break;
        case 'Dial':
          if (event.caller !== undefined) this.#dialled(event.caller.id, event.peer, event.dialstatus);
          break;
        case 'ChannelDialplan': {
          const live = this.#live.get(event.channel.id);
          if (live && event.dialplan_app !== '') {
            live.lastapp = event.dialplan_app;
            live.lastdata = event.dialplan_app_data;
          }
          break;
        }
        case 'ChannelStateChange': {
          const live = this.#live.get(event.channel.id);
          if (live && live.answer === undefined && event.channel.state === 'Up') live.answer = this.#now();
          break;
        }
        case 'ChannelVarset':
          if (event.channel !== undefined && event.variable === 'DIALSTATUS') {
            const live = this.#live.get(event.channel.id);
            if (live) live.dialstatus = event.value;
          }
          break;
        case 'ChannelDestroyed':
          this.#destroyed(event.channel.id, event.cause);
          break;
      }
    });
  }

  #created(channel: ChannelSnapshot): void {
    this.#live.set(channel.id, {
      channel: channel.name,
      start: this.#now(),
      src: channel.caller.number,
      clid: callerIdText(channel.caller.name, channel.caller.number),
      dst: channel.dialplan.exten,
      dcontext: channel.dialplan.context,
      lastapp: '',
      lastdata: '',
      dstchannel: '',
      peeraccount: '',
      accountcode: this.#deps.accountCodeOf(channel.name.split('/')[0] ?? '', channelEndpoint(channel)),
      amaflags: 'DOCUMENTATION',
      userfield: '',
      uniqueid: channel.id,
      linkedid: channel.id,
      disabled: false,
      variables: new Map(),
    });
  }

  #dialled(callerId: string, peer: ChannelSnapshot, dialstatus: string): void {
    const peerLive = this.#live.get(peer.id);
    // The dialled channel is party B of the caller's record, not a record of its own.
    if (peerLive !== undefined) {
      peerLive.disabled = true;
      peerLive.linkedid = callerId;
    }
    const live = this.#live.get(callerId);
    if (live === undefined) return;
    // The first callee names dstchannel until one answers; the one that answers keeps it.
    if (live.dstchannel === '' || dialstatus === 'ANSWER') {
      live.dstchannel = peer.name;
      live.peeraccount = peerLive?.accountcode ?? '';
    }
  }

  #destroyed(channelId: string, cause: number): void {
    const live = this.#live.get(channelId);
    if (live === undefined) return;
    const end = this.#now();
    const finishing = this.#deps.dialplanDone(channelId).then(() => {
      this.#live.delete(channelId);
      if (live.disabled) return;
      const disposition = dispositionFor(live, cause);
      if (!this.#deps.config.unanswered && disposition !== 'ANSWERED' && live.dstchannel === '') return;
      this.#sequence += 1;
      this.#deps.write({
        start: live.start,
        ...(live.answer ? { answer: live.answer } : {}),
        end,
        duration: Math.max(0, Math.round((end.getTime() - live.start.getTime()) / 1000)),
        billsec: live.answer ? Math.max(0, Math.round((end.getTime() - live.answer.getTime()) / 1000)) : 0,
        src: live.src,
        dst: live.dst,
        dcontext: live.dcontext,
        clid: live.clid,
        channel: live.channel,
        dstchannel: live.dstchannel,
        lastapp: live.lastapp,
        lastdata: live.lastdata,
        disposition,
        amaflags: live.amaflags,
        accountcode: live.accountcode,
        uniqueid: live.uniqueid,
        linkedid: live.linkedid,
        userfield: live.userfield,
        peeraccount: live.peeraccount,
        sequence: this.#sequence,
      });
    });
    this.#finishing.add(finishing);
    void finishing.finally(() => this.#finishing.delete(finishing));
  }

  /** Resolves when every ended channel's record has been handed to the writer. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#finishing]);
  }

  /** CDR(field): the original's field names, then custom variables. */
  readonly cdrFunction: DialplanFunction = {
    read: (ctx, args) => {
      const live = this.#live.get(ctx.channel.id);
      if (live === undefined) return '';
      const name = args.split(',')[0].trim();
      const now = this.#now();
      switch (name.toLowerCase()) {
        case 'start':
          return csvTime(live.start, false);
        case 'answer':
          return csvTime(live.answer, false);
        case 'duration':
          return String(Math.round((now.getTime() - live.start.getTime()) / 1000));
        case 'billsec':
          return live.answer ? String(Math.round((now.getTime() - live.answer.getTime()) / 1000)) : '0';
        case 'disposition':
          return live.answer ? 'ANSWERED' : 'NO ANSWER';
        case 'src':
        case 'dst':
        case 'dcontext':
        case 'clid':
        case 'channel':
        case 'dstchannel':
        case 'lastapp':
        case 'lastdata':
        case 'amaflags':
        case 'accountcode':
        case 'peeraccount':
        case 'userfield':
        case 'uniqueid':
        case 'linkedid':
          return live[name.toLowerCase() as keyof LiveCdr] as string;
        case 'sequence':
          return String(this.#sequence + 1);
        default:
          return live.variables.get(name) ?? '';
      }
    },
    write: (ctx, args, value) => {
      const live = this.#live.get(ctx.channel.id);
      if (live === undefined) return;
      const name = args.split(',')[0].trim();
      switch (name.toLowerCase()) {
        case 'userfield':
          live.userfield = value;
          return;
        case 'accountcode':
          live.accountcode = value;
          return;
        case 'amaflags':
          live.amaflags = value.toUpperCase();
          return;
        case 'start':
        case 'answer':
        case 'end':
        case 'duration':
        case 'billsec':
        case 'disposition':
        case 'src':
        case 'dst':
        case 'channel':
        case 'dstchannel':
        case 'uniqueid':
        case 'linkedid':
        case 'sequence':
          ctx.log.warn({ field: name }, `CDR(${name}) is read-only`);
          return;
        default:
          live.variables.set(name, value);
      }
    },
  };

  /** NoCDR(): this channel's call leaves no record. */
  readonly noCdr: DialplanApplication = async (ctx) => {
    const live = this.#live.get(ctx.channel.id);
    if (live) live.disabled = true;
    return { kind: 'next' };
  };

  /** ResetCDR([options]): the record starts again now (answer too, when the channel is up); `v` keeps the variables. */
  readonly resetCdr: DialplanApplication = async (ctx, [options = '']) => {
    const live = this.#live.get(ctx.channel.id);
    if (live) {
      const now = this.#now();
      live.start = now;
      live.answer = ctx.channel.state === 'Up' ? now : undefined;
      live.disabled = false;
      if (!options.includes('v')) live.variables.clear();
    }
    return { kind: 'next' };
  };
}

/** The endpoint part of `SIP/alice-0000002a`. */
function channelEndpoint(channel: ChannelSnapshot): string {
  const slash = channel.name.indexOf('/');
  const rest = slash < 0 ? channel.name : channel.name.slice(slash + 1);
  const dash = rest.lastIndexOf('-');
  return dash < 0 ? rest : rest.slice(0, dash);
}
