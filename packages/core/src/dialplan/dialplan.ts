/**
 * The dialplan, ready for lookups. A channel's position is (context, exten, priority); each step is
 * looked up afresh, as in Asterisk, so `include =>` and pattern order apply at every priority.
 *
 * Search order for (context, exten): the context's own extensions that match, most specific first;
 * then each `include =>` in the order written, recursively (each context visited once per search,
 * so include cycles are harmless, and never deeper than `maxIncludeDepth`).
 */
import type { DialplanConfig, DialplanExtension, DialplanPriority } from '../config/types.js';
import { findHint } from './hints.js';
import { parseTimeCondition, type TimeCondition, timeConditionMatches } from '../pbx/time-condition.js';
import { type CompiledPattern, canExtend, comparePatterns, compilePattern, matchesPattern } from './pattern.js';

export interface ExtensionMatch {
  /** The context the extension was found in (the searched one or one it includes). */
  context: string;
  extension: DialplanExtension;
}

export interface PriorityMatch extends ExtensionMatch {
  priority: DialplanPriority;
}

interface CompiledExtension {
  pattern: CompiledPattern;
  extension: DialplanExtension;
}

interface CompiledContext {
  name: string;
  /** Most specific first. */
  extensions: CompiledExtension[];
  includes: string[];
  /** Time conditions of timed includes, by included context. */
  conditions: Map<string, TimeCondition>;
}

export interface DialplanOptions {
  /** Nesting limit for includes; Asterisk stops at a similar depth. */
  maxIncludeDepth?: number;
  /** The clock timed includes are checked against (default: the system clock). */
  now?: () => Date;
}

const DEFAULT_MAX_INCLUDE_DEPTH = 64;

export class Dialplan {
  readonly globals: Readonly<Record<string, string>>;
  readonly #contexts = new Map<string, CompiledContext>();
  readonly #maxIncludeDepth: number;
  readonly #config: DialplanConfig;
  readonly #now: () => Date;

  constructor(config: DialplanConfig, options: DialplanOptions = {}) {
    this.#config = config;
    this.globals = { ...config.globals };
    this.#maxIncludeDepth = options.maxIncludeDepth ?? DEFAULT_MAX_INCLUDE_DEPTH;
    this.#now = options.now ?? (() => new Date());
    for (const context of config.contexts) {
      const existing = this.#contexts.get(context.name);
      const conditions = new Map(
        Object.entries(context.includeConditions ?? {}).map(([name, text]) => [name, parseTimeCondition(text)] as const),
      );
      const extensions = context.extensions.map((extension) => ({ pattern: compilePattern(extension.pattern), extension }));
      if (existing) {
        existing.extensions.push(...extensions);
        existing.extensions.sort((a, b) => comparePatterns(a.pattern, b.pattern));
        existing.includes = [...existing.includes, ...context.includes];
        for (const [name, condition] of conditions) existing.conditions.set(name, condition);
      } else {
        extensions.sort((a, b) => comparePatterns(a.pattern, b.pattern));
        this.#contexts.set(context.name, { name: context.name, extensions, includes: [...context.includes], conditions });
      }
    }
  }

  hasContext(name: string): boolean {
    return this.#contexts.has(name);
  }

  contextNames(): string[] {
    return [...this.#contexts.keys()];
  }

  /** The extension that `exten` dials in `context`, or undefined when nothing matches. */
  findExtension(context: string, exten: string): ExtensionMatch | undefined {
    for (const match of this.#matches(context, exten)) return match;
    return undefined;
  }

  /**
   * The step at `priority`, with the context it was found in. When the best match lacks that
   * priority, less specific matches are tried, as Asterisk does (a `_X.` catch-all can carry steps
   * a literal extension does not).
   */
  findPriority(context: string, exten: string, priority: number): PriorityMatch | undefined {
    for (const match of this.#matches(context, exten)) {
      const step = match.extension.priorities.find((p) => p.priority === priority);
      if (step) return { ...match, priority: step };
    }
    return undefined;
  }

  /** The step labelled `label` (for Goto or originate by label), with the context it was found in. */
  findLabel(context: string, exten: string, label: string): PriorityMatch | undefined {
    for (const match of this.#matches(context, exten)) {
      const step = match.extension.priorities.find((p) => p.label === label);
      if (step) return { ...match, priority: step };
    }
    return undefined;
  }

  /**
   * The step after `priority`: exactly `priority + 1`, as in Asterisk. A gap in the numbering ends
   * the call (autofallthrough), so there is no skipping ahead to the next higher number.
   */
  findNextPriority(context: string, exten: string, priority: number): PriorityMatch | undefined {
    return this.findPriority(context, exten, priority + 1);
  }

  /** Every extension pattern of a context (its own, not its includes'), for checks and listings. */
  patterns(context: string): string[] {
    return this.#contexts.get(context)?.extensions.map((e) => e.extension.pattern) ?? [];
  }

  /** The priorities of every extension of every context, with the context they belong to. */
  *steps(): Generator<{ context: string; exten: string; priority: DialplanPriority }> {
    for (const context of this.#contexts.values()) {
      for (const { extension } of context.extensions) {
        for (const priority of extension.priorities) yield { context: context.name, exten: extension.pattern, priority };
      }
    }
  }

  /**
   * Whether some extension reachable from `context` starts with `prefix` and is longer (the
   * caller may still be dialling), for WaitExten's digit collection.
   */
  canMatchMore(context: string, prefix: string): boolean {
    const visited = new Set<string>();
    const search = (name: string, depth: number): boolean => {
      if (depth > this.#maxIncludeDepth || visited.has(name)) return false;
      visited.add(name);
      const found = this.#contexts.get(name);
      if (!found) return false;
      if (found.extensions.some(({ pattern }) => canExtend(pattern, prefix))) return true;
      return found.includes.some((include) => search(include, depth + 1));
    };
    return search(context, 0);
  }

  /** The devices of the hint for `exten` seen from `context` (through includes), if there is one. */
  hintDevices(context: string, exten: string): readonly string[] | undefined {
    return findHint(this.#config, context, exten);
  }

  *#matches(context: string, exten: string): Generator<ExtensionMatch> {
    const visited = new Set<string>();
    yield* this.#search(context, exten, visited, 0);
  }

  *#search(name: string, exten: string, visited: Set<string>, depth: number): Generator<ExtensionMatch> {
    if (depth > this.#maxIncludeDepth || visited.has(name)) return;
    visited.add(name);
    const context = this.#contexts.get(name);
    if (!context) return;
    for (const { pattern, extension } of context.extensions) {
      if (matchesPattern(pattern, exten)) yield { context: name, extension };
    }
    for (const include of context.includes) {
      const condition = context.conditions.get(include);
      if (condition !== undefined && !timeConditionMatches(condition, this.#now())) continue;
      yield* this.#search(include, exten, visited, depth + 1);
    }
  }
}
