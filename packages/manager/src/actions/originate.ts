/**
 * Originate: a call to `Channel` that, once answered, runs the dialplan at Context/Exten/Priority
 * or one dialplan Application with Data. Synchronous by default (the reply waits for the answer
 * or the failure); with `Async: true` the reply comes at once and OriginateResponse follows.
 */
import type { Channel, DomainEvent, OriginateRequest, SwitchboardCore } from '@switchboard/core';
import type { ManagerEvent } from '../fields.js';
import type { Field } from '../wire.js';
import { type ActionContext, type ActionDefinition, ActionError, type Reply, isTrue, message, required } from './types.js';

/** Reason codes of OriginateResponse (the original's control frame numbers). */
const REASONS: Record<string, number> = {
  ANSWER: 4,
  NOANSWER: 3,
  BUSY: 5,
  CONGESTION: 8,
  CANCEL: 1,
  CHANUNAVAIL: 0,
};

const PROGRESS = new Set(['', 'RINGING', 'PROGRESS', 'PROCEEDING']);
const DEFAULT_TIMEOUT_MS = 30_000;

/** Resolves with the final dial status of `channelId` (ANSWER, BUSY, …). */
function dialOutcome(core: SwitchboardCore, channelId: string): { outcome: Promise<string>; cancel(): void } {
  let unsubscribe: () => void = () => undefined;
  const outcome = new Promise<string>((resolve) => {
    unsubscribe = core.bus.subscribe((event: DomainEvent) => {
      if (event.type === 'Dial' && event.peer.id === channelId && !PROGRESS.has(event.dialstatus)) {
        unsubscribe();
        resolve(event.dialstatus);
      } else if (event.type === 'ChannelDestroyed' && event.channel.id === channelId) {
        unsubscribe();
        resolve('CANCEL');
      }
    });
  });
  return { outcome, cancel: () => unsubscribe() };
}

/** `Variable: A=1,B=2` (several headers allowed) → settings. */
function variables(ctx: ActionContext): { name: string; value: string; reportEvents: boolean }[] {
  const settings: { name: string; value: string; reportEvents: boolean }[] = [];
  for (const header of ctx.message.getAll('Variable')) {
    for (const part of header.split(',')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      settings.push({ name: part.slice(0, eq).trim(), value: part.slice(eq + 1), reportEvents: false });
    }
  }
  return settings;
}

function originateResponse(fields: {
  ok: boolean;
  channel: string;
  context: string;
  exten: string;
  application: string;
  data: string;
  reason: number;
  uniqueid: string;
  caller: { name: string; number: string };
}): ManagerEvent {
  const out: Field[] = [
    ['Response', fields.ok ? 'Success' : 'Failure'],
    ['Channel', fields.channel],
    ['Context', fields.context],
    ['Exten', fields.exten],
    ['Application', fields.application],
    ['Data', fields.data],
    ['Reason', String(fields.reason)],
    ['Uniqueid', fields.uniqueid],
    ['CallerIDNum', fields.caller.number || '<unknown>'],
    ['CallerIDName', fields.caller.name || '<unknown>'],
  ];
  return { name: 'OriginateResponse', classes: ['call'], fields: out };
}

async function originate(ctx: ActionContext): Promise<Reply> {
  const { message: msg, services } = ctx;
  const core = services.core;
  const endpoint = required(msg, 'Channel', 'Channel not specified');
  const exten = msg.get('Exten')?.trim() ?? '';
  const context = msg.get('Context')?.trim() || 'default';
  const application = msg.get('Application')?.trim() ?? '';
  const data = msg.get('Data') ?? '';
  if (exten === '' && application === '') throw new ActionError('Exten or Application not specified');
  const priorityText = msg.get('Priority')?.trim() ?? '';
  const timeoutText = msg.get('Timeout')?.trim();
  const timeoutMs = timeoutText === undefined || timeoutText === '' ? DEFAULT_TIMEOUT_MS : Number(timeoutText);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new ActionError('Invalid timeout');
  const channelId = msg.get('ChannelId')?.trim() || core.channels.nextId();
  const otherChannelId = msg.get('OtherChannelId')?.trim();
  const codecs = msg.get('Codecs')?.trim();
  const request: OriginateRequest = {
    endpoint,
    channelId,
    ...(otherChannelId ? { otherChannelId } : {}),
    ...(codecs ? { formats: codecs.split(',').map((c) => c.trim()) } : {}),
    variables: variables(ctx),
    callerId: msg.get('CallerID')?.trim() ?? '',
    timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
  };
  if (application !== '') {
    if (['app', 'stasis'].includes(application.toLowerCase())) {
      const [app = '', ...args] = data.split(',');
      request.app = app.trim();
      request.appArgs = args.join(',');
    } else request.dialplanApp = { name: application, data };
  } else {
    request.extension = exten;
    request.context = context;
    if (priorityText === '' || /^\d+$/.test(priorityText)) request.priority = priorityText === '' ? 1 : Number(priorityText);
    else request.label = priorityText;
  }
  const waiter = dialOutcome(core, channelId);
  let channel: Channel;
  try {
    channel = await core.originator.originate(request);
  } catch (err) {
    waiter.cancel();
    throw err;
  }
  const account = msg.get('Account')?.trim();
  if (account) channel.accountcode = account;
  const report = waiter.outcome.then((status) =>
    originateResponse({
      ok: status === 'ANSWER',
      channel: channel.name,
      context: request.context ?? '',
      exten: request.extension ?? '',
      application,
      data,
      reason: REASONS[status] ?? 0,
      uniqueid: channel.id,
      caller: channel.caller,
    }),
  );
  if (isTrue(msg.get('Async'))) {
    services.track(report.then((event) => services.broadcast(withActionId(event, msg.get('ActionID')))));
    return message('Originate successfully queued');
  }
  const event = await report;
  if (event.fields[0]?.[1] !== 'Success') throw new ActionError('Originate failed');
  return message('Originate successfully queued');
}

/** OriginateResponse carries the ActionID of the Originate it answers. */
function withActionId(event: ManagerEvent, actionId: string | undefined): ManagerEvent {
  return actionId === undefined ? event : { ...event, fields: [['ActionID', actionId], ...event.fields] };
}

export const originateAction: ActionDefinition = { name: 'Originate', privilege: ['originate'], run: originate };
