export { startServer, defaultMediaWorkers, type RunningServer, type ListeningAddress } from './server.js';
export { parseArgs, USAGE, type CommandLine } from './args.js';
