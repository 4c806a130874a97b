/**
 * Command line of the `switchboard` command. Like the original server, one program is both the
 * daemon (foreground, the default here) and its remote console: `-r` attaches to the running
 * server through the control socket in the data directory, `-rx "<command>"` runs one command.
 */
export type RunMode = 'serve' | 'remote' | 'execute' | 'help' | 'version';

export interface CommandLine {
  mode: RunMode;
  confDir: string;
  dataDir: string;
  /** JSON log lines on stdout even when it is a terminal. */
  json: boolean;
  /** `-v` given N times (or `-vvv`): the initial `core set verbose` level. */
  verbose: number;
  /** The command of `-rx`. */
  command?: string;
  /** `-p`: realtime priority, as switchboard.conf `highpriority = yes`. */
  highPriority: boolean;
}

export const USAGE = `usage: switchboard [options]            run the server (in the foreground)
       switchboard -r [--data DIR]       remote console of the running server
       switchboard -rx "<command>"       run one console command and print its output

  --conf DIR       configuration directory (default ./conf)
  --data DIR       data directory: SQLite store, logs, control socket (default ./var)
  -f, --foreground stay in the foreground (the default; the server never daemonizes itself)
  -v               more verbose console (repeat: -vvv); same as 'core set verbose <n>'
  -p, --high-priority
                   run the server's threads at realtime priority (switchboard.conf highpriority = yes)
  --json           JSON log lines on stdout even on a terminal (the default when not a terminal)
  -r, --remote     connect to the running server's control socket (<data>/switchboard.ctl)
  -x "<command>"   with -r: run the command, print its output and exit
  -V, --version    print the version and exit
  -h, --help       show this text

Examples: switchboard -rx "core show channels"    switchboard -rx "pjsip show endpoints"`;

export function parseArgs(argv: readonly string[]): CommandLine {
  const line: CommandLine = { mode: 'serve', confDir: 'conf', dataDir: 'var', json: false, verbose: 0, highPriority: false };
  let remote = false;
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (what: string) => {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && what === 'a directory')) throw new Error(`${arg} needs ${what}`);
      i += 1;
      return next;
    };
    if (arg === '--conf') line.confDir = value('a directory');
    else if (arg === '--data') line.dataDir = value('a directory');
    else if (arg.startsWith('--conf=')) line.confDir = arg.slice('--conf='.length);
    else if (arg.startsWith('--data=')) line.dataDir = arg.slice('--data='.length);
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version' || arg === '-V') version = true;
    else if (arg === '--json') line.json = true;
    else if (arg === '--foreground' || arg === '-f') continue;
    else if (arg === '--remote') remote = true;
    else if (arg === '--high-priority') line.highPriority = true;
    else if (/^-[rxvfp]+$/.test(arg)) {
      // Short flags combine as in the original (`-rx`, `-rvvv`); `x` takes the next argument.
      for (const flag of arg.slice(1)) {
        if (flag === 'r') remote = true;
        else if (flag === 'v') line.verbose += 1;
        else if (flag === 'x') line.command = value('a command');
        else if (flag === 'p') line.highPriority = true;
      }
    } else throw new Error(`unknown argument '${arg}'`);
  }
  if (line.command !== undefined && line.command.trim() === '') throw new Error('-x needs a command');
  if (help) line.mode = 'help';
  else if (version) line.mode = 'version';
  else if (line.command !== undefined) line.mode = 'execute';
  else if (remote) line.mode = 'remote';
  return line;
}
