import { registerAdminCommands } from './admin-commands.js';
import { registerCoreCommands } from './core-commands.js';
import { registerPjsipCommands } from './pjsip-commands.js';
import { ConsoleCommands } from './registry.js';
import type { ConsoleServices } from './services.js';

export { ConsoleCommands, ConsoleUsageError, splitWords, type ConsoleCommand, type ConsoleCommandRunner } from './registry.js';
export type { ConsoleServices, SipConsoleView, SipTraceControl, VerbosityControl } from './services.js';

/**
 * Every console command of this server. Features that add their own (queues, conference
 * bridges, voicemail) register on the returned object; until then those names answer
 * "No such command", as the original does without the module loaded.
 */
export function createConsoleCommands(services: ConsoleServices): ConsoleCommands {
  const commands = new ConsoleCommands();
  registerCoreCommands(commands, services);
  registerPjsipCommands(commands, services);
  registerAdminCommands(commands, services);
  return commands;
}
