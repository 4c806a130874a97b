/**
 * Finds what the dialplan uses but this server lacks — an application or a function — so the
 * operator hears about it with file and line when extensions.conf loads or reloads, not when a
 * call reaches the step.
 */
import type { DialplanPriority } from '../config/types.js';
import { callBuiltinFunction } from '../dialplan/functions.js';

export interface DialplanProblem {
  file: string;
  line: number;
  context: string;
  exten: string;
  message: string;
}

/** Functions the expander or channelVariable() answers without the function table. */
const ANSWERED_ELSEWHERE = new Set(['CALLERID', 'CHANNEL']);

/** Applications whose arguments name functions on the left of `=` (`Set(CDR(userfield)=x)`). */
const ASSIGNING_APPS = new Set(['set', 'msgset', 'execif']);

export function findDialplanProblems(
  steps: Iterable<{ context: string; exten: string; priority: DialplanPriority }>,
  known: { hasApplication(name: string): boolean; hasFunction(name: string): boolean },
): DialplanProblem[] {
  const problems: DialplanProblem[] = [];
  const isFunction = (name: string) =>
    known.hasFunction(name) || ANSWERED_ELSEWHERE.has(name.toUpperCase()) || callBuiltinFunction(name, '') !== undefined;
  for (const { context, exten, priority } of steps) {
    const where = { file: priority.file, line: priority.line, context, exten };
    if (!known.hasApplication(priority.app)) {
      problems.push({ ...where, message: `unknown dialplan application '${priority.app}'` });
    }
    const names = new Set<string>();
    for (const match of priority.appData.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\(/g)) names.add(match[1]);
    if (ASSIGNING_APPS.has(priority.app.toLowerCase())) {
      for (const match of priority.appData.matchAll(/(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)\([^)]*\)\s*=/g)) names.add(match[1]);
    }
    for (const name of names) {
      if (!isFunction(name)) problems.push({ ...where, message: `unknown dialplan function '${name}()'` });
    }
  }
  return problems;
}
