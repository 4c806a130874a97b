/**
 * Dialplan applications that decide where the call goes or what it remembers (the original's
 * names and argument syntax):
 *
 *   Set(name=value[,…])            also FUNC(args)=value; `_name`/`__name` are inherited by the
 *                                  channels Dial() creates (one level / every level)
 *   GotoIf(cond?[iftrue][:iffalse])       targets are [[context,]exten,]priority-or-label
 *   GotoIfTime(times,weekdays,mdays,months[,tz]?[iftrue][:iffalse])
 *   ExecIf(cond?app1(args)[:app2(args)])
 *   Gosub([[context,]exten,]priority[(arg1[,…])])   GosubIf(cond?target1[:target2])
 *   Return([value])                sets GOSUB_RETVAL
 *   Log(level,message)             Verbose([level,]message)
 */
import { parseGoto } from '../builtin-apps.js';
import type { DialplanAppContext, DialplanApplication, DialplanFlow } from '../dialplan-app.js';
import { parseTimeCondition, TimeConditionError, timeConditionMatches } from '../time-condition.js';
import { markInheritable } from '../variable-inheritance.js';

const next: DialplanFlow = { kind: 'next' };

function isTrue(value: string): boolean {
  const trimmed = value.trim();
  return trimmed !== '' && !(/^[+-]?\d+$/.test(trimmed) && Number(trimmed) === 0);
}

/** `cond?a:b` with the condition before the first `?` and the branches split at the first top-level `:`. */
function splitCondition(text: string): { condition: string; whenTrue: string; whenFalse: string } | undefined {
  const question = text.indexOf('?');
  if (question < 0) return undefined;
  const branches = text.slice(question + 1);
  const colon = topLevelIndex(branches, ':');
  return {
    condition: text.slice(0, question),
    whenTrue: colon < 0 ? branches : branches.slice(0, colon),
    whenFalse: colon < 0 ? '' : branches.slice(colon + 1),
  };
}

function topLevelIndex(text: string, ch: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && depth > 0) depth--;
    else if (text[i] === ch && depth === 0) return i;
  }
  return -1;
}

/** A Goto target written as one comma list (`ctx,100,1` or `label`). */
function gotoTarget(target: string): DialplanFlow {
  return parseGoto(target.split(',').map((part) => part.trim()));
}

/** Set(name=value[,…]): variables, `FUNC(args)=value`, `_`/`__` inheritance. */
export const set: DialplanApplication = async (ctx, args) => {
  for (const assignment of args) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) {
      ctx.log.warn({ assignment }, 'Set needs name=value');
      continue;
    }
    assign(ctx, assignment.slice(0, eq).trim(), assignment.slice(eq + 1));
  }
  return next;
};

export function assign(ctx: DialplanAppContext, name: string, value: string): void {
  const call = /^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/s.exec(name);
  if (call) {
    const fn = ctx.pbx.functions.get(call[1].toUpperCase());
    if (!fn?.write) {
      ctx.log.warn({ function: call[1] }, `${call[1]}() cannot be written`);
      return;
    }
    fn.write({ channel: ctx.channel, location: ctx.location, globals: ctx.globals, pbx: ctx.pbx, log: ctx.log }, call[2], value);
    return;
  }
  const inherit = name.startsWith('__') ? 'always' : name.startsWith('_') ? 'once' : undefined;
  const bare = name.replace(/^_{1,2}/, '');
  if (bare === '') return;
  if (inherit !== undefined) markInheritable(ctx.channel, bare, inherit);
  ctx.channel.setVariable(bare, value);
}

/** GotoIf(condition?[labeliftrue][:labeliffalse]) */
export const gotoIf: DialplanApplication = async (ctx, args) => {
  const parts = splitCondition(args.join(','));
  if (!parts) {
    ctx.log.warn('GotoIf needs condition?iftrue[:iffalse]');
    return next;
  }
  const target = isTrue(parts.condition) ? parts.whenTrue : parts.whenFalse;
  return target.trim() === '' ? next : gotoTarget(target);
};

/** GotoIfTime(times,weekdays,mdays,months[,timezone]?[iftrue][:iffalse]) */
export const gotoIfTime: DialplanApplication = async (ctx, args) => {
  const parts = splitCondition(args.join(','));
  if (!parts) {
    ctx.log.warn('GotoIfTime needs times,weekdays,mdays,months[,tz]?iftrue[:iffalse]');
    return next;
  }
  try {
    const matches = timeConditionMatches(parseTimeCondition(parts.condition), ctx.pbx.now());
    const target = matches ? parts.whenTrue : parts.whenFalse;
    return target.trim() === '' ? next : gotoTarget(target);
  } catch (err) {
    if (!(err instanceof TimeConditionError)) throw err;
    ctx.log.warn(err.message);
    return next;
  }
};

/** `App(args)` → [App, args]. */
function parseAppCall(text: string): [string, string] | undefined {
  const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$/s.exec(text);
  return match ? [match[1], match[2] ?? ''] : undefined;
}

/** ExecIf(expression?appiftrue(args)[:appiffalse(args)]) */
export const execIf: DialplanApplication = async (ctx, args) => {
  const parts = splitCondition(args.join(','));
  if (!parts) {
    ctx.log.warn('ExecIf needs condition?app(args)[:app(args)]');
    return next;
  }
  const call = isTrue(parts.condition) ? parts.whenTrue : parts.whenFalse;
  if (call.trim() === '') return next;
  const parsed = parseAppCall(call);
  if (!parsed) {
    ctx.log.warn({ call }, 'ExecIf: not an application call');
    return next;
  }
  return await ctx.pbx.runApplication(ctx, parsed[0], parsed[1]);
};

/** Splits `[[context,]exten,]priority(args)` into the target parts and the argument list. */
export function parseGosubTarget(text: string): { target: string[]; args: string[] } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const head = open >= 0 && close > open ? text.slice(0, open) : text;
  const argText = open >= 0 && close > open ? text.slice(open + 1, close) : undefined;
  return {
    target: head.split(',').map((part) => part.trim()),
    args: argText === undefined ? [] : splitTopLevel(argText),
  };
}

function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out;
}

/** Gosub([[context,]exten,]priority[(arg1[,...][,argN])]) */
export const gosub: DialplanApplication = async (ctx, args) => callSubroutine(ctx, args.join(','));

export async function callSubroutine(ctx: DialplanAppContext, text: string): Promise<DialplanFlow> {
  const { target, args } = parseGosubTarget(text);
  const flow = parseGoto(target);
  if (flow.kind !== 'goto') {
    ctx.log.warn({ target: text }, 'Gosub needs a priority or label');
    return next;
  }
  const context = flow.context ?? ctx.location.context;
  const exten = flow.exten ?? ctx.location.exten;
  const exists =
    flow.label !== undefined
      ? ctx.pbx.findLabel?.(context, exten, flow.label) !== undefined
      : ctx.pbx.exists(context, exten, flow.priority);
  if (!exists) {
    ctx.log.warn({ context, exten, priority: flow.priority, label: flow.label }, 'Gosub target does not exist');
    return next;
  }
  if (!ctx.pbx.gosub.push(ctx.channel, { ...ctx.location, priority: ctx.location.priority + 1 }, args)) {
    ctx.log.warn('Gosub stack is full; hanging up');
    return { kind: 'stop' };
  }
  return { ...flow, context, exten };
}

/** GosubIf(condition?labeliftrue[(args)][:labeliffalse[(args)]]) */
export const gosubIf: DialplanApplication = async (ctx, args) => {
  const parts = splitCondition(args.join(','));
  if (!parts) return next;
  const target = isTrue(parts.condition) ? parts.whenTrue : parts.whenFalse;
  return target.trim() === '' ? next : callSubroutine(ctx, target);
};

/** Return([value]): back to the step after the Gosub; GOSUB_RETVAL holds the value. */
export const returnApp: DialplanApplication = async (ctx, args) => {
  const returnTo = ctx.pbx.gosub.pop(ctx.channel);
  ctx.channel.setVariable('GOSUB_RETVAL', args.join(','));
  if (returnTo === undefined) {
    ctx.log.warn('Return without Gosub');
    return { kind: 'stop' };
  }
  return { kind: 'goto', ...returnTo };
};

const LOG_LEVELS = new Set(['error', 'warning', 'notice', 'debug', 'verbose', 'dtmf']);

/** Log(level,message): ERROR, WARNING, NOTICE, DEBUG, VERBOSE, DTMF. */
export const log: DialplanApplication = async (ctx, [level = '', ...message]) => {
  const text = message.join(',');
  const where = { context: ctx.location.context, exten: ctx.location.exten, priority: ctx.location.priority, dialplan: true };
  switch (LOG_LEVELS.has(level.trim().toLowerCase()) ? level.trim().toLowerCase() : 'notice') {
    case 'error':
      ctx.log.error(where, text);
      break;
    case 'warning':
      ctx.log.warn(where, text);
      break;
    case 'debug':
      ctx.log.debug(where, text);
      break;
    default:
      ctx.log.info(where, text);
  }
  return next;
};

/** Verbose([level,]message) */
export const verbose: DialplanApplication = async (ctx, args) => {
  const [first, ...rest] = args;
  const message = rest.length > 0 && /^\s*\d+\s*$/.test(first ?? '') ? rest.join(',') : args.join(',');
  ctx.log.info({ context: ctx.location.context, exten: ctx.location.exten, priority: ctx.location.priority, verbose: true }, message);
  return next;
};

/** Applications of this file by lower-case name. */
export const FLOW_APPLICATIONS: Record<string, DialplanApplication> = {
  set,
  gotoif: gotoIf,
  gotoiftime: gotoIfTime,
  execif: execIf,
  gosub,
  gosubif: gosubIf,
  return: returnApp,
  log,
  verbose,
};
