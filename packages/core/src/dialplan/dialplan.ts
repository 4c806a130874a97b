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
import { type CompiledPattern, comparePatterns, compilePattern, matchesPattern } from './pattern.js';

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
}

export interface DialplanOptions {
  /** Nesting limit for includes; Asterisk stops at a similar depth. */
  maxIncludeDepth?: number;
}

const DEFAULT_MAX_INCLUDE_DEPTH = 64;

export class Dialplan {
  readonly globals: Readonly<Record<string, string>>;
  readonly #contexts = new Map<string, CompiledContext>();
  readonly #maxIncludeDepth: number;
  readonly #config: DialplanConfig;

  constructor(config: DialplanConfig, options: DialplanOptions = {}) {
    this.#config = config;
    this.globals = { ...config.globals };
    this.#maxIncludeDepth = options.maxIncludeDepth ?? DEFAULT_MAX_INCLUDE_DEPTH;
    for (const context of config.contexts) {
      const existing = this.#contexts.get(context.name);
      const extensions = context.extensions.map((extension) => ({ pattern: compilePattern(extension.pattern), extension }));
      if (existing) {
        existing.extensions.push(...extensions);
        existing.extensions.sort((a, b) => comparePatterns(a.pattern, b.pattern));
        existing.includes = [...existing.includes, ...context.includes];
      } else {
        extensions.sort((a, b) => comparePatterns(a.pattern, b.pattern));
        this.#contexts.set(context.name, { name: context.name, extensions, includes: [...context.includes] });
      }
    }
  }

  /** The configuration it was built from (what `dialplan show` prints). */
  get config(): DialplanConfig {
    return this.#config;
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
    for (const include of context.includes) yield* this.#search(include, exten, visited, depth + 1);
  }
}
