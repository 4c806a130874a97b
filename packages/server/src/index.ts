export { startServer, defaultMediaWorkers, type RunningServer, type ListeningAddress } from './server.js';
export { parseArgs, USAGE, type CommandLine, type RunMode } from './args.js';
export {
  ConsoleCommands,
  ConsoleUsageError,
  createConsoleCommands,
  splitWords,
  type ConsoleCommand,
  type ConsoleCommandRunner,
  type ConsoleServices,
} from './console/index.js';
export { CONTROL_SOCKET_NAME } from './console/control-protocol.js';
