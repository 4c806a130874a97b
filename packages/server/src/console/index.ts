import { registerAdminCommands } from './admin-commands.js';
import { registerCoreCommands } from './core-commands.js';
import { registerOfficeCommands } from './office-commands.js';
import { registerPjsipCommands } from './pjsip-commands.js';
import { ConsoleCommands } from './registry.js';
import type { ConsoleServices } from './services.js';

export { ConsoleCommands, ConsoleUsageError, splitWords, type ConsoleCommand, type ConsoleCommandRunner } from './registry.js';
export type { ConsoleServices, SipConsoleView, SipTraceControl, VerbosityControl } from './services.js';

/** Every console command of this server; a feature adds its own with `register()`. */
export function createConsoleCommands(services: ConsoleServices): ConsoleCommands {
  const commands = new ConsoleCommands();
  registerCoreCommands(commands, services);
  registerPjsipCommands(commands, services);
  registerAdminCommands(commands, services);
  registerOfficeCommands(commands, services);
  return commands;
}
