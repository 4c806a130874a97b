/**
 * The container files, checked without Docker: the Dockerfile's instructions (every path it copies
 * exists and is not excluded by .dockerignore, stages referenced exist, a non-root user, ffmpeg in
 * the runtime image, a HEALTHCHECK on /healthz at the port http.conf binds, the volumes) and
 * docker-compose.yml validated as `docker compose config` would (known keys, each service has an
 * image or a build context with a Dockerfile, named volumes declared, bind sources present,
 * depends_on naming real services), plus the Prometheus configuration it mounts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from './harness.js';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  let startLine = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending === '') startLine = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = `${pending}${line}`.trim();
    pending = '';
    const space = whole.search(/\s/);
    instructions.push({ keyword: whole.slice(0, space).toUpperCase(), args: whole.slice(space + 1).trim(), line: startLine });
  });
  assert.equal(pending, '', 'the Dockerfile ends inside a continuation');
  return instructions;
}

/** .dockerignore as Docker reads it, for the patterns this repository uses (names, `**\/name`). */
function ignoredByDocker(path: string): boolean {
  const patterns = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const parts = path.split('/');
  return patterns.some((pattern) => {
    if (pattern.startsWith('**/')) return parts.includes(pattern.slice(3));
    return path === pattern || path.startsWith(`${pattern}/`);
  });
}

const KNOWN_INSTRUCTIONS = new Set([
  'FROM',
  'RUN',
  'CMD',
  'LABEL',
  'EXPOSE',
  'ENV',
  'ADD',
  'COPY',
  'ENTRYPOINT',
  'VOLUME',
  'USER',
  'WORKDIR',
  'ARG',
  'ONBUILD',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'SHELL',
]);

function httpPort(text = readFileSync(join(REPO_ROOT, 'conf', 'http.conf'), 'utf8')): number {
  return Number(/^\s*bindport\s*=\s*(\d+)/m.exec(text)?.[1] ?? 8088);
}

describe('Dockerfile', () => {
  const instructions = parseDockerfile(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  const stages: Instruction[][] = [];
  const stageNames = new Set<string>();
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      stages.push([]);
      const name = /\sAS\s+(\S+)$/i.exec(instruction.args)?.[1];
      if (name) stageNames.add(name);
    }
    stages.at(-1)?.push(instruction);
  }
  const runtime = stages.at(-1) ?? [];

  it('uses only known instructions and starts with FROM', () => {
    assert.equal(instructions[0]?.keyword, 'FROM');
    for (const i of instructions) assert.ok(KNOWN_INSTRUCTIONS.has(i.keyword), `line ${i.line}: unknown instruction ${i.keyword}`);
    assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
  });

  it('copies only paths that exist and reach the build context', () => {
    for (const i of instructions.filter((x) => x.keyword === 'COPY' || x.keyword === 'ADD')) {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='));
      const sources = words.filter((w) => !w.startsWith('--')).slice(0, -1);
      assert.ok(sources.length > 0, `line ${i.line}: nothing to copy`);
      if (from) {
        assert.ok(stageNames.has(from.slice('--from='.length)), `line ${i.line}: unknown stage ${from}`);
        continue;
      }
      for (const source of sources) {
        assert.ok(existsSync(join(REPO_ROOT, source)), `line ${i.line}: ${source} does not exist`);
        assert.ok(!ignoredByDocker(source), `line ${i.line}: ${source} is excluded by .dockerignore`);
      }
    }
  });

  it('runs as a non-root user with ffmpeg, a health check on /healthz and volumes for conf, data and recordings', () => {
    const user = runtime.filter((i) => i.keyword === 'USER').at(-1)?.args;
    assert.ok(user !== undefined && user !== 'root' && user !== '0', 'the runtime stage sets a non-root USER');
    assert.ok(
      runtime.some((i) => i.keyword === 'RUN' && /apt-get install\b.*\bffmpeg\b/.test(i.args)),
      'ffmpeg is installed in the runtime image',
    );
    const health = runtime.find((i) => i.keyword === 'HEALTHCHECK');
    assert.ok(health, 'HEALTHCHECK');
    const healthUrl = runtime.find((i) => i.keyword === 'ENV' && i.args.startsWith('SWITCHBOARD_HEALTH_URL='))?.args ?? health.args;
    assert.match(healthUrl, new RegExp(`127\\.0\\.0\\.1:${httpPort()}/healthz`));
    const volumes = JSON.parse(runtime.find((i) => i.keyword === 'VOLUME')?.args ?? '[]') as string[];
    for (const path of ['/app/conf', '/app/var', '/app/recordings']) assert.ok(volumes.includes(path), `VOLUME ${path}`);
    const entrypoint = JSON.parse(runtime.find((i) => i.keyword === 'ENTRYPOINT')?.args ?? '[]') as string[];
    assert.equal(entrypoint[0], 'node');
    assert.ok(existsSync(join(REPO_ROOT, entrypoint[1] ?? 'missing')), `entrypoint ${entrypoint[1]} exists`);
  });
});

/** Where the `cluster` profile finds what `npm run cluster -- conf` generates. */
const CLUSTER_CONF = './deploy/cluster';

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as Record<string, unknown>;
  const services = compose.services as Record<string, Record<string, unknown>>;
  const declaredVolumes = new Set(Object.keys((compose.volumes as Record<string, unknown>) ?? {}));

  it('has only the top-level keys compose knows, and services with an image or a build context', () => {
    for (const key of Object.keys(compose)) assert.ok(['name', 'services', 'volumes', 'networks', 'configs', 'secrets'].includes(key), key);
    assert.ok(services && Object.keys(services).length > 0);
    for (const [name, service] of Object.entries(services)) {
      assert.ok(service.image !== undefined || service.build !== undefined, `${name}: image or build`);
      if (service.build !== undefined) {
        const context = typeof service.build === 'string' ? service.build : String((service.build as { context?: string }).context ?? '.');
        assert.ok(statSync(join(REPO_ROOT, context)).isDirectory(), `${name}: build context`);
        assert.ok(existsSync(join(REPO_ROOT, context, 'Dockerfile')), `${name}: Dockerfile in the build context`);
      }
    }
  });

  it('runs switchboard with host networking, and a Prometheus that waits for it to be healthy', () => {
    assert.equal(services.switchboard?.network_mode, 'host');
    assert.ok(services.prometheus, 'a prometheus service');
    const depends = services.prometheus?.depends_on as Record<string, { condition: string }>;
    assert.equal(depends.switchboard?.condition, 'service_healthy');
    for (const service of Object.values(services)) {
      for (const dependency of Object.keys((service.depends_on as Record<string, unknown>) ?? {}))
        assert.ok(services[dependency], dependency);
    }
  });

  it('mounts only declared volumes and bind sources that exist', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const mount of (service.volumes as string[]) ?? []) {
        const [source, target] = mount.split(':');
        assert.ok(source && target?.startsWith('/'), `${name}: ${mount}`);
        if (source.startsWith(CLUSTER_CONF)) continue; // generated; checked below
        if (source.startsWith('.') || source.startsWith('/')) assert.ok(existsSync(join(REPO_ROOT, source)), `${name}: ${source} exists`);
        else assert.ok(declaredVolumes.has(source), `${name}: volume ${source} is declared`);
      }
    }
  });

  it('cluster profile: mounts what `npm run cluster -- conf` writes, each node checked at its own address', () => {
    const root = mkdtempSync(join(tmpdir(), 'switchboard-compose-cluster-'));
    try {
      const dir = join(root, 'cluster');
      const url = 'postgres://switchboard:switchboard@127.0.0.1:5432/switchboard';
      const conf = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'scripts', 'cluster.mjs'), 'conf', '--nodes', '3', '--dir', dir, '--postgres', url],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(conf.status, 0, conf.stderr);
      const cluster = Object.entries(services).filter(([, s]) => (s.profiles as string[] | undefined)?.includes('cluster'));
      const nodes = cluster.filter(([name]) => name.startsWith('cluster-node'));
      assert.equal(nodes.length, 3);
      for (const [name, service] of cluster) {
        assert.equal(service.network_mode, 'host', `${name}: host networking, as the loopback addresses need`);
        for (const mount of (service.volumes as string[]) ?? []) {
          const source = mount.split(':')[0] ?? '';
          if (source.startsWith(CLUSTER_CONF))
            assert.ok(existsSync(join(dir, source.slice(CLUSTER_CONF.length))), `${name}: ${source} is generated`);
        }
      }
      for (const [name, service] of nodes) {
        const confMount = ((service.volumes as string[]) ?? []).find((v) => v.endsWith(':/app/conf:ro')) ?? '';
        const confDir = join(dir, confMount.split(':')[0]?.slice(CLUSTER_CONF.length) ?? '');
        const http = readFileSync(join(confDir, 'http.conf'), 'utf8');
        const address = /^\s*bindaddr\s*=\s*(\S+)/m.exec(http)?.[1];
        const health = (service.environment as Record<string, string>).SWITCHBOARD_HEALTH_URL;
        assert.equal(health, `http://${address}:${httpPort(http)}/healthz`, `${name}: health check at its http.conf address`);
        assert.match(
          readFileSync(join(confDir, 'switchboard.conf'), 'utf8'),
          new RegExp(`url = ${url}`),
          `${name}: the compose PostgreSQL`,
        );
        const dispatcher = readFileSync(join(dir, 'dispatcher.list'), 'utf8');
        assert.ok(dispatcher.includes(`sip:${address}:5060`), `${name}: behind the edge`);
      }
      const pg = services['cluster-postgres']?.environment as Record<string, string>;
      assert.equal(`postgres://${pg.POSTGRES_USER}:${pg.POSTGRES_PASSWORD}@127.0.0.1:5432/${pg.POSTGRES_DB}`, url);
      assert.match(readFileSync(join(dir, 'kamailio.cfg'), 'utf8'), /list_file", "\/etc\/kamailio-cluster\/dispatcher.list"/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('points Prometheus at /metrics on the API address of http.conf', () => {
    const mount = ((services.prometheus?.volumes as string[]) ?? []).find((v) => v.includes('prometheus.yml'));
    assert.ok(mount);
    const config = parse(readFileSync(join(REPO_ROOT, mount.split(':')[0] as string), 'utf8')) as {
      scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
    };
    const job = config.scrape_configs.find((c) => c.job_name === 'switchboard');
    assert.ok(job);
    assert.equal(job.metrics_path, '/metrics');
    assert.deepEqual(job.static_configs[0]?.targets, [`127.0.0.1:${httpPort()}`]);
  });
});

describe('example Grafana dashboard', () => {
  it('queries only metrics the README documents', () => {
    const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'conf', 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    assert.ok(dashboard.panels.length > 10);
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        for (const [name] of target.expr.matchAll(/\b(?:switchboard|nodejs)_[a-z0-9_]+/g)) {
          const base = name.replace(/_(bucket|sum|count)$/, '');
          assert.ok(
            readme.includes(`\`${base}\``) || base.startsWith('nodejs_eventloop_lag_'),
            `${panel.title}: ${name} is not a documented metric`,
          );
        }
      }
    }
  });
});
