/**
 * Turns extensions.conf (already read as INI) into a DialplanConfig.
 *
 *   [general]                    ignored (Asterisk's static/writeprotect/autofallthrough switches)
 *   [globals]                    NAME = value → global variables
 *   [context]                    a context; the same name may appear more than once and is merged
 *     exten => 100,1,Answer()             extension, priority, application
 *     exten => 100,n(label),Playback(x)   `n` = previous priority of this extension + 1; `(label)` names it
 *     same => n,Hangup()                  continues the extension of the last `exten` line
 *     exten => 100,hint,SIP/alice&App:x   device-state hint: the devices busy lamps of 100 follow (hints.ts)
 *     include => other                    search `other` after this context's own extensions
 *   Application text is `App(args)` or the older `App,args`; the argument text is kept raw
 *   (`${...}` is expanded when the priority runs).
 *
 * Errors carry the line: `n` with no previous priority, `same` with no previous `exten`, a priority
 * number or label used twice in one extension, a malformed pattern or priority.
 */
import { parseTimeCondition, TimeConditionError } from '../pbx/time-condition.js';
import { ConfigError } from '../errors.js';
import type { DialplanConfig, DialplanContext, DialplanExtension, DialplanPriority } from '../config/types.js';
import type { IniDocument, IniOption, IniSection } from '../config/ini.js';
import { warnUnsupported } from '../config/option-table.js';
import type { Logger } from '../util/logger.js';
import { parseHintDevices } from './hints.js';
import { compilePattern, PatternSyntaxError } from './pattern.js';

/** Sections of extensions.conf that are not contexts. */
const GENERAL_SECTION = 'general';
const GLOBALS_SECTION = 'globals';

export function parseDialplan(doc: IniDocument | undefined, log: Logger): DialplanConfig {
  const config: DialplanConfig = { contexts: [], globals: {} };
  if (!doc) return config;
  const contexts = new Map<string, DialplanContext>();

  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name === GENERAL_SECTION) {
      log.debug({ file: section.file, line: section.line }, '[general] of extensions.conf is not used');
    } else if (section.name === GLOBALS_SECTION) {
      for (const option of section.options) config.globals[option.rawKey] = option.value;
    } else {
      let context = contexts.get(section.name);
      if (!context) {
        context = { name: section.name, extensions: [], includes: [] };
        contexts.set(section.name, context);
        config.contexts.push(context);
      }
      readContextSection(section, context, log);
    }
  }

  for (const context of config.contexts) {
    // An extension written only as a hint has no steps to run.
    context.extensions = context.extensions.filter((e) => e.priorities.length > 0);
    for (const extension of context.extensions) extension.priorities.sort((a, b) => a.priority - b.priority);
    for (const include of context.includes) {
      if (!contexts.has(include))
        log.warn({ context: context.name, include }, `context '${context.name}' includes unknown context '${include}'`);
    }
  }
  return config;
}

/** Per-section state: `same =>` continues the extension of the last `exten =>` in this section. */
interface SectionState {
  /** undefined before any exten; null after an exten that was skipped (its `same` lines are skipped too). */
  lastExtension: DialplanExtension | null | undefined;
}

function readContextSection(section: IniSection, context: DialplanContext, log: Logger): void {
  const state: SectionState = { lastExtension: undefined };
  for (const option of section.options) {
    switch (option.key) {
      case 'exten':
        readExten(option, context, state, log);
        break;
      case 'same':
        readSame(option, state, log);
        break;
      case 'include':
        readInclude(option, context, log);
        break;
      default:
        warnUnsupported(log, option, section.name);
    }
  }
}

function readExten(option: IniOption, context: DialplanContext, state: SectionState, log: Logger): void {
  const [extenText, rest] = splitOnce(option.value, option, true);
  const [priorityText, appText] = splitOnce(rest, option, false);
  const pattern = extenText.trim();
  if (pattern === '') throw configError(option, 'missing extension');
  if (pattern.includes('/')) {
    log.warn({ file: option.file, line: option.line }, `caller-ID matching ('${pattern}') is not supported yet; extension skipped`);
    state.lastExtension = null;
    return;
  }
  try {
    compilePattern(pattern);
  } catch (err) {
    if (err instanceof PatternSyntaxError) throw configError(option, err.message);
    throw err;
  }
  let extension = context.extensions.find((e) => e.pattern === pattern);
  if (!extension) {
    extension = { pattern, priorities: [] };
    context.extensions.push(extension);
  }
  state.lastExtension = extension;
  if (priorityText.trim().toLowerCase() === 'hint') {
    addHint(context, pattern, appText, option, log);
    return;
  }
  addPriority(extension, priorityText, appText, option, log);
}

/** A hint names the devices of a literal extension; pattern hints are not supported. */
function addHint(context: DialplanContext, pattern: string, devicesText: string, option: IniOption, log: Logger): void {
  if (pattern.startsWith('_')) {
    log.warn({ file: option.file, line: option.line, exten: pattern }, 'hints on extension patterns are not supported; skipped');
    return;
  }
  const devices = parseHintDevices(devicesText);
  if (devices.length === 0) throw configError(option, `hint for '${pattern}' names no device`);
  context.hints ??= {};
  if (context.hints[pattern] !== undefined) throw configError(option, `extension '${pattern}' already has a hint`);
  context.hints[pattern] = devices;
}

function readSame(option: IniOption, state: SectionState, log: Logger): void {
  if (state.lastExtension === undefined) throw configError(option, "'same =>' without a previous 'exten =>' in this context");
  if (state.lastExtension === null) return;
  const [priorityText, appText] = splitOnce(option.value, option, false);
  addPriority(state.lastExtension, priorityText, appText, option, log);
}

function readInclude(option: IniOption, context: DialplanContext, _log: Logger): void {
  const [name, timing] = splitFirst(option.value, ',');
  const target = name.trim();
  if (target === '') throw configError(option, 'include needs a context name');
  if (timing !== undefined) {
    // `include => ctx,9:00-17:00,mon-fri,*,*`: searched only while the condition holds.
    try {
      parseTimeCondition(timing);
    } catch (err) {
      if (err instanceof TimeConditionError) throw configError(option, err.message);
      throw err;
    }
    context.includeConditions = { ...context.includeConditions, [target]: timing.trim() };
  }
  if (!context.includes.includes(target)) context.includes.push(target);
}

function addPriority(extension: DialplanExtension, priorityText: string, appText: string, option: IniOption, log: Logger): void {
  const parsed = /^\s*([^()\s]+)\s*(?:\(([^()]*)\))?\s*$/.exec(priorityText);
  if (!parsed) throw configError(option, `invalid priority '${priorityText.trim()}'`);
  const base = parsed[1].toLowerCase();
  const label = parsed[2]?.trim();

  if (base === 'hint') {
    // `same => hint,...` carries no extension name of its own; hints are written with `exten =>`.
    log.warn(
      { file: option.file, line: option.line, exten: extension.pattern },
      "a hint must be written as 'exten => EXTEN,hint,DEVICES'; skipped",
    );
    return;
  }

  let priority: number;
  if (base === 'n' || base === 'next') {
    const last = extension.priorities[extension.priorities.length - 1];
    if (!last) throw configError(option, `priority 'n' with no previous priority for extension '${extension.pattern}'`);
    priority = last.priority + 1;
  } else if (/^\d+$/.test(base) && Number(base) >= 1) {
    priority = Number(base);
  } else {
    throw configError(option, `invalid priority '${parsed[1]}' (expected a number, n or hint)`);
  }

  if (extension.priorities.some((p) => p.priority === priority)) {
    throw configError(option, `extension '${extension.pattern}' already has priority ${priority}`);
  }
  if (label !== undefined) {
    if (label === '') throw configError(option, 'empty priority label');
    if (extension.priorities.some((p) => p.label === label)) {
      throw configError(option, `extension '${extension.pattern}' already has a priority labelled '${label}'`);
    }
  }

  const { app, appData } = parseApplication(appText, option, log);
  const step: DialplanPriority = { priority, app, appData, file: option.file, line: option.line };
  if (label !== undefined) step.label = label;
  // Kept in written order here; sorted by number once the whole file is read.
  extension.priorities.push(step);
}

/** `App(args)` (args up to the last `)`), `App,args`, or a bare `App`. */
export function parseApplication(text: string, option: IniOption, log: Logger): { app: string; appData: string } {
  const trimmed = text.trim();
  const paren = trimmed.indexOf('(');
  const comma = trimmed.indexOf(',');
  let app: string;
  let appData: string;
  if (paren >= 0 && (comma < 0 || paren < comma)) {
    app = trimmed.slice(0, paren);
    const close = trimmed.lastIndexOf(')');
    if (close < paren) {
      log.warn({ file: option.file, line: option.line }, `no closing parenthesis in '${trimmed}'; using the rest of the line`);
      appData = trimmed.slice(paren + 1);
    } else {
      appData = trimmed.slice(paren + 1, close);
    }
  } else if (comma >= 0) {
    app = trimmed.slice(0, comma);
    appData = trimmed.slice(comma + 1);
  } else {
    app = trimmed;
    appData = '';
  }
  app = app.trim();
  if (app === '') throw configError(option, 'missing application');
  if (!/^[A-Za-z0-9_]+$/.test(app)) throw configError(option, `invalid application name '${app}'`);
  return { app, appData };
}

/**
 * Splits at the first comma. For the extension field, commas inside `[...]` belong to the pattern.
 * A missing comma means the line has too few fields.
 */
function splitOnce(text: string, option: IniOption, bracketAware: boolean): [string, string] {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (bracketAware && ch === '[') depth++;
    else if (bracketAware && ch === ']' && depth > 0) depth--;
    else if (ch === ',' && depth === 0) return [text.slice(0, i), text.slice(i + 1)];
  }
  if (depth > 0) throw configError(option, "'[' without ']' in the extension");
  throw configError(option, `expected '${option.key} => ${option.key === 'same' ? '' : 'EXTEN,'}PRIORITY,App(args)'`);
}

function splitFirst(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function configError(option: IniOption, reason: string): ConfigError {
  return new ConfigError(option.file, option.line, reason);
}
