/**
 * A throwaway PostgreSQL server for tests and `npm run cluster`: initdb into a temporary
 * directory, listening on 127.0.0.1 and a free port only, trusting local connections, stopped
 * and deleted by stop(). PostgreSQL refuses to run as root, so under root the directory is given
 * to the `postgres` system user (created by the Debian package) and the programs run as it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TemporaryPostgres {
  /** `postgres://switchboard@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** A connection URL for another database of this server. */
  urlFor(database: string): string;
  stop(): void;
}

const SUPERUSER = 'switchboard';

/** The directory of initdb and pg_ctl: on PATH, else Debian's versioned directory. */
export function findPostgresBin(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() !== '') return join(onPath.stdout.trim(), '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : join(root, versions[0], 'bin');
}

/** Why a throwaway server cannot start here, or undefined when it can. */
export function postgresUnavailableReason(): string | undefined {
  if (!findPostgresBin()) return 'PostgreSQL is not installed (Debian package postgresql)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return 'running as root and there is no postgres user to run the server as';
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startTemporaryPostgres(): Promise<TemporaryPostgres> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const root = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (program: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, program);
    const fullArgs = asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : args;
    execFileSync(command, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const port = await freePort();
  try {
    run('initdb', ['-D', dataDir, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    // fsync off: a test server loses nothing that matters in a crash, and disks here are slow.
    const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    run('pg_ctl', ['-D', dataDir, '-l', join(root, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const urlFor = (database: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    url: urlFor('postgres'),
    port,
    dataDir,
    urlFor,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
