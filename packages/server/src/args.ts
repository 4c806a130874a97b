/** Command line of the `switchboard` command. */
export interface CommandLine {
  confDir: string;
  dataDir: string;
  help: boolean;
}

export const USAGE = `usage: switchboard [--conf DIR] [--data DIR]

  --conf DIR   configuration directory (default ./conf)
  --data DIR   data directory for the SQLite store (default ./var)
  --help       show this text`;

export function parseArgs(argv: readonly string[]): CommandLine {
  const line: CommandLine = { confDir: 'conf', dataDir: 'var', help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new Error(`${arg} needs a directory`);
      i += 1;
      return next;
    };
    if (arg === '--conf') line.confDir = value();
    else if (arg === '--data') line.dataDir = value();
    else if (arg === '--help' || arg === '-h') line.help = true;
    else if (arg.startsWith('--conf=')) line.confDir = arg.slice('--conf='.length);
    else if (arg.startsWith('--data=')) line.dataDir = arg.slice('--data='.length);
    else throw new Error(`unknown argument '${arg}'`);
  }
  return line;
}
