/**
 * The console commands as one registry with a plain text interface, so every surface runs the
 * same commands: the control socket (`switchboard -r` / `-rx`), and any other package that is
 * handed the object (the manager interface's `Action: Command`).
 *
 *   run(line)        → the text the original prints, never a rejection: an unknown command reads
 *                      "No such command '…'", a wrong argument list reads "Usage: …", a failure
 *                      reads its message.
 *   complete(partial) → the candidates for the last word of `partial` (full lines).
 *
 * A command is a fixed sequence of words (`pjsip show endpoints`) followed by arguments; the
 * longest registered word sequence that prefixes the line wins.
 */
export interface ConsoleCommand {
  /** The fixed words, lower case: `['core', 'show', 'channels']`. */
  readonly words: readonly string[];
  /** What follows the words in the usage line: `[concise|verbose]`. */
  readonly args?: string;
  /** One line for `core show help`. */
  readonly summary: string;
  /** Candidates for the argument at `index` (0 = first argument), given the arguments so far. */
  completeArg?(index: number, args: readonly string[]): readonly string[];
  /** The output text. Throw ConsoleUsageError for a wrong argument list. */
  run(args: readonly string[]): Promise<string> | string;
}

/** Thrown by a command whose arguments do not fit its usage. */
export class ConsoleUsageError extends Error {}

/** The interface other packages use; `ConsoleCommands` implements it. */
export interface ConsoleCommandRunner {
  run(line: string): Promise<string>;
  complete(partial: string): string[];
}

export class ConsoleCommands implements ConsoleCommandRunner {
  readonly #commands: ConsoleCommand[] = [];

  register(command: ConsoleCommand): void {
    const key = command.words.join(' ');
    if (this.#commands.some((c) => c.words.join(' ') === key)) throw new Error(`console command '${key}' registered twice`);
    this.#commands.push(command);
  }

  /** Every command, sorted by its words. */
  list(): ConsoleCommand[] {
    return [...this.#commands].sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')));
  }

  usage(command: ConsoleCommand): string {
    return [...command.words, ...(command.args ? [command.args] : [])].join(' ');
  }

  async run(line: string): Promise<string> {
    const words = splitWords(line);
    if (words.length === 0) return '';
    const found = this.#match(words);
    if (found === undefined) {
      return `No such command '${words.join(' ')}' (type 'core show help ${words.join(' ')}' for other possible commands)`;
    }
    try {
      return await found.command.run(found.args);
    } catch (err) {
      if (err instanceof ConsoleUsageError)
        return `${err.message ? `${err.message}\n` : ''}Usage: ${this.usage(found.command)}\n       ${found.command.summary}`;
      return `Command '${words.join(' ')}' failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  complete(partial: string): string[] {
    const words = splitWords(partial);
    // A trailing space means the last word is finished and the next one is being started.
    if (partial === '' || /\s$/.test(partial)) words.push('');
    const last = (words.pop() ?? '').toLowerCase();
    const before = words.map((w) => w.toLowerCase());
    const candidates = new Set<string>();
    for (const command of this.#commands) {
      const fixed = command.words;
      if (before.length < fixed.length) {
        if (before.every((w, i) => fixed[i] === w)) candidates.add(fixed[before.length] as string);
      } else if (fixed.every((w, i) => before[i] === w) && command.completeArg) {
        const args = words.slice(fixed.length);
        for (const option of command.completeArg(args.length, args)) candidates.add(option);
      }
    }
    const prefix = words.length > 0 ? `${words.join(' ')} ` : '';
    return [...candidates]
      .filter((c) => c.toLowerCase().startsWith(last))
      .sort()
      .map((c) => `${prefix}${c}`);
  }

  #match(words: readonly string[]): { command: ConsoleCommand; args: string[] } | undefined {
    const lower = words.map((w) => w.toLowerCase());
    let best: ConsoleCommand | undefined;
    for (const command of this.#commands) {
      if (command.words.length > lower.length) continue;
      if (!command.words.every((w, i) => lower[i] === w)) continue;
      if (best === undefined || command.words.length > best.words.length) best = command;
    }
    return best === undefined ? undefined : { command: best, args: words.slice(best.words.length) };
  }
}

/** Words separated by blanks; `"two words"` stays one argument, as in the original's CLI. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  for (let m = pattern.exec(line); m !== null; m = pattern.exec(line)) words.push(m[1] ?? m[2] ?? '');
  return words;
}
