/**
 * Asterisk-style INI reader. Pure over text plus an injected file source, so tests need no disk.
 *
 * What it understands, the way operators write Asterisk configuration:
 *   [name]                 a section; the same name may appear many times (pjsip.conf uses `[alice]`
 *                          as endpoint and as aor), each occurrence is its own section, in file order
 *   [name](!)              a template: parsed and inheritable, flagged `isTemplate`
 *   [name](tpl1,tpl2)      inherits: the templates' options are copied first, in order, then its own
 *   [name](!,tpl)          a template that itself inherits
 *   [name](+)              appends to the most recent earlier section of that name
 *   key = value            an option; repeated keys are kept in order (`allow`, `match`, `exten`)
 *   key => value           the arrow form, kept distinguishable (`exten =>`, `same =>`, `include =>`)
 *   ; comment              `\;` is a literal semicolon; `;-- … --;` is a block comment (may span lines)
 *   #include "file"        relative to the including file's directory; may name a `*` glob;
 *   #tryinclude file       the included lines continue the current section, as in Asterisk;
 *                          a missing #tryinclude target is fine
 * Every item carries the file and line it was written on; problems are ConfigError(file, line, reason).
 */
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';

export interface IniOption {
  /** Lower-cased for matching; Asterisk option names are case-insensitive. */
  key: string;
  /** The key as written (for messages). */
  rawKey: string;
  value: string;
  /** `key => value` rather than `key = value`. */
  arrow: boolean;
  file: string;
  line: number;
  /** Copied from this template rather than written in the section itself. */
  inheritedFrom?: string;
}

export interface IniSection {
  name: string;
  isTemplate: boolean;
  /** Templates named in the header, in order. */
  templates: string[];
  options: IniOption[];
  file: string;
  line: number;
}

export interface IniDocument {
  /** The top-level file (includes are folded in). */
  file: string;
  sections: IniSection[];
}

/** Where included files come from: the disk in production, a map in tests. */
export interface IniFileSource {
  /** Text of the file, or undefined when it does not exist. */
  readFile(path: string): string | undefined;
  /** File names (not paths) in a directory, or undefined when it does not exist; needed for globs. */
  listDir?(dir: string): string[] | undefined;
}

export interface ParseIniOptions {
  source?: IniFileSource;
  /** Nesting limit for #include; Asterisk's own limit is of the same order. */
  maxIncludeDepth?: number;
}

const DEFAULT_MAX_INCLUDE_DEPTH = 10;

/** All values of a key in a section, in order (for repeatable options such as `allow` or `match`). */
export function optionValues(section: IniSection, key: string): string[] {
  const lower = key.toLowerCase();
  return section.options.filter((o) => o.key === lower).map((o) => o.value);
}

/** The last value of a key (later assignments win, as in Asterisk for single-valued options). */
export function lastOption(section: IniSection, key: string): IniOption | undefined {
  const lower = key.toLowerCase();
  for (let i = section.options.length - 1; i >= 0; i--) {
    const option = section.options[i];
    if (option.key === lower) return option;
  }
  return undefined;
}

interface ParseState {
  sections: IniSection[];
  current: IniSection | undefined;
  /** Absolute paths of the files being read, outermost first, for cycle detection. */
  stack: string[];
  inBlockComment: boolean;
  source: IniFileSource | undefined;
  maxDepth: number;
}

/** Parses `text` as if read from `file`; `#include`s are read through `options.source`. */
export function parseIni(text: string, file: string, options: ParseIniOptions = {}): IniDocument {
  const state: ParseState = {
    sections: [],
    current: undefined,
    stack: [resolve(file)],
    inBlockComment: false,
    source: options.source,
    maxDepth: options.maxIncludeDepth ?? DEFAULT_MAX_INCLUDE_DEPTH,
  };
  parseText(state, text, file);
  return { file, sections: state.sections };
}

function parseText(state: ParseState, text: string, file: string): void {
  // Editors on some systems start UTF-8 files with a byte-order mark; it is not part of line 1.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const lineNo = index + 1;
    const stripped = stripComment(lines[index], state).trim();
    if (stripped === '') continue;
    if (stripped.startsWith('#')) {
      handleDirective(state, stripped, file, lineNo);
    } else if (stripped.startsWith('[')) {
      handleSectionHeader(state, stripped, file, lineNo);
    } else {
      handleOption(state, stripped, file, lineNo);
    }
  }
  // A block comment does not leak out of the file it was opened in.
  state.inBlockComment = false;
}

/**
 * Removes `;` comments and `;-- … --;` block comments, turning `\;` into a literal `;`. Other
 * backslashes are left alone: dialplan arguments use `\,` and the dialplan reads those itself.
 */
function stripComment(line: string, state: ParseState): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (state.inBlockComment) {
      const end = line.indexOf('--;', i);
      if (end < 0) return out;
      state.inBlockComment = false;
      i = end + 3;
      continue;
    }
    const ch = line[i];
    if (ch === '\\' && line[i + 1] === ';') {
      out += ';';
      i += 2;
      continue;
    }
    if (ch === ';') {
      if (line.startsWith(';--', i)) {
        state.inBlockComment = true;
        i += 3;
        continue;
      }
      return out;
    }
    out += ch;
    i++;
  }
  return out;
}

function handleSectionHeader(state: ParseState, text: string, file: string, line: number): void {
  const close = text.indexOf(']');
  if (close < 0) throw new ConfigError(file, line, `section header without closing ']': ${text}`);
  const name = text.slice(1, close).trim();
  if (name === '') throw new ConfigError(file, line, 'empty section name');

  const rest = text.slice(close + 1).trim();
  let flags: string[] = [];
  if (rest !== '') {
    if (!rest.startsWith('(') || !rest.endsWith(')')) {
      throw new ConfigError(file, line, `unexpected text after section header: ${rest}`);
    }
    flags = rest
      .slice(1, -1)
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '');
  }

  if (flags.includes('+')) {
    if (flags.length > 1) throw new ConfigError(file, line, `'+' cannot be combined with other flags in [${name}]`);
    const existing = findLast(state.sections, (s) => s.name === name);
    if (!existing) throw new ConfigError(file, line, `[${name}](+) appends to a section that does not exist yet`);
    state.current = existing;
    return;
  }

  const section: IniSection = { name, isTemplate: false, templates: [], options: [], file, line };
  for (const flag of flags) {
    if (flag === '!') {
      section.isTemplate = true;
      continue;
    }
    // Prefer a template of that name; fall back to any earlier section (Asterisk allows both).
    const template = findLast(state.sections, (s) => s.name === flag && s.isTemplate) ?? findLast(state.sections, (s) => s.name === flag);
    if (!template) throw new ConfigError(file, line, `[${name}] inherits from unknown template '${flag}'`);
    section.templates.push(flag);
    for (const option of template.options) {
      section.options.push({ ...option, inheritedFrom: option.inheritedFrom ?? flag });
    }
  }
  state.sections.push(section);
  state.current = section;
}

function handleOption(state: ParseState, text: string, file: string, line: number): void {
  const eq = text.indexOf('=');
  if (eq < 0) throw new ConfigError(file, line, `expected 'key = value', a [section] or a #directive: ${text}`);
  const rawKey = text.slice(0, eq).trim();
  if (rawKey === '') throw new ConfigError(file, line, `option without a name: ${text}`);
  const arrow = text[eq + 1] === '>';
  const value = text.slice(eq + (arrow ? 2 : 1)).trim();
  if (!state.current) throw new ConfigError(file, line, `option '${rawKey}' appears before any [section]`);
  state.current.options.push({ key: rawKey.toLowerCase(), rawKey, value, arrow, file, line });
}

function handleDirective(state: ParseState, text: string, file: string, line: number): void {
  const match = /^#(\w+)\s*(.*)$/.exec(text);
  const directive = match?.[1].toLowerCase();
  if (directive !== 'include' && directive !== 'tryinclude') {
    throw new ConfigError(file, line, `unsupported directive: ${text}`);
  }
  const target = unquote((match?.[2] ?? '').trim());
  if (target === '') throw new ConfigError(file, line, `#${directive} needs a file name`);
  const optional = directive === 'tryinclude';
  if (!state.source) {
    if (optional) return;
    throw new ConfigError(file, line, `cannot #include '${target}': no file source available`);
  }

  const path = isAbsolute(target) ? target : join(dirname(resolve(file)), target);
  const paths = hasGlob(basename(path)) ? expandGlob(state.source, path) : [path];
  if (paths.length === 0 && !optional) throw new ConfigError(file, line, `#include '${target}' matches no file`);

  for (const included of paths) {
    const absolute = resolve(included);
    if (state.stack.includes(absolute)) {
      throw new ConfigError(file, line, `#include cycle: ${[...state.stack, absolute].join(' -> ')}`);
    }
    if (state.stack.length > state.maxDepth) {
      throw new ConfigError(file, line, `#include nested deeper than ${state.maxDepth} levels`);
    }
    const text = state.source.readFile(absolute);
    if (text === undefined) {
      if (optional) continue;
      throw new ConfigError(file, line, `#include '${target}': file not found (${absolute})`);
    }
    state.stack.push(absolute);
    parseText(state, text, absolute);
    state.stack.pop();
  }
}

function unquote(text: string): string {
  if (text.length >= 2) {
    const first = text[0];
    const last = text[text.length - 1];
    if ((first === '"' && last === '"') || (first === '<' && last === '>')) return text.slice(1, -1).trim();
  }
  return text;
}

function hasGlob(name: string): boolean {
  return name.includes('*') || name.includes('?');
}

/** `conf.d/*.conf`: only the last path component may hold wildcards; matches come back sorted. */
function expandGlob(source: IniFileSource, path: string): string[] {
  const dir = dirname(path);
  const names = source.listDir?.(dir);
  if (!names) return [];
  const pattern = basename(path)
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${pattern}$`);
  return names
    .filter((n) => re.test(n))
    .sort()
    .map((n) => join(dir, n));
}

function findLast<T>(items: T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    if (predicate(items[i])) return items[i];
  }
  return undefined;
}
