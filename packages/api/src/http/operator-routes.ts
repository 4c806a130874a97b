/**
 * What operators and their tools use besides the control API, on the same HTTP server:
 *
 *   GET <prefix>/healthz            200 while the process serves requests (no credentials: probes)
 *   GET <prefix>/readyz             200 when every readiness check passes, else 503, with the checks
 *   GET <prefix>/metrics            Prometheus text format; behind its own user when one is configured
 *   GET <prefix>/console/…          the browser console's static page (holds no data itself)
 *   GET <prefix>/console/api/whoami the API user behind the credentials, and whether it may act
 *   GET <prefix>/console/api/cdr    the last call detail records (?limit=1..200)
 *   GET <prefix>/console/api/contacts  the registered contacts
 *   GET <prefix>/console/api/codecs    channel id → audio codec of the live channels
 *
 * The console's data and actions all go through the control API with the API's users, so a
 * read-only user sees everything and cannot act (403), exactly as over REST.
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AriUser, SwitchboardCore } from '@switchboard/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';
import { authenticate, credentialsFrom } from './auth.js';
import { toHttpError } from './error-handler.js';

export interface ReadinessReport {
  ready: boolean;
  /** Check name → passed (`transports`, `store`, `media_workers`, …). */
  checks: Record<string, boolean>;
}

export interface OperatorSurface {
  /** Readiness checks; /readyz answers 503 until every one passes. */
  readiness(): ReadinessReport | Promise<ReadinessReport>;
  /** Absent: no /metrics route. */
  metrics?: {
    /** The path under the prefix (prometheus.conf `uri`, default `metrics`). */
    path: string;
    render(): Promise<{ contentType: string; body: string }>;
    /** A user of its own (prometheus.conf auth_username/auth_password); absent: no credentials asked. */
    user?: { name: string; password: string };
  };
  /** The console's last CDRs; absent: the console shows none. */
  recentCdrs?(limit: number): Promise<unknown[]>;
  /** The registered contacts (registration state in the console); absent: none shown. */
  contacts?(): Promise<unknown[]>;
  /** The audio codec of a channel's media, when it has one. */
  channelCodec?(channelId: string): string | undefined;
}

/** The console's static files: packages/api/console (beside dist/). */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL('../../console/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const MAX_CONSOLE_CDRS = 200;

export function registerOperatorRoutes(
  app: FastifyInstance,
  options: { core: SwitchboardCore; prefix: string; surface: OperatorSurface; consoleDirectory?: string },
): void {
  const { core, prefix, surface } = options;
  const consoleDirectory = options.consoleDirectory ?? CONSOLE_DIRECTORY;
  /**
   * The console signs in with a form, not the browser's Basic prompt: its 401 carries no
   * WWW-Authenticate, which would make a browser hold the request and ask on its own.
   */
  const apiUser = (request: FastifyRequest) => {
    try {
      return authenticate(
        core.config.ari.users,
        credentialsFrom(request.headers.authorization, (request.query as Record<string, string>).api_key),
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw new ApiError(401, err.message);
      throw err;
    }
  };

  app.setErrorHandler((error, _request, reply) => {
    const answer = toHttpError(error);
    reply.code(answer.status).headers(answer.headers).send({ message: answer.message });
  });

  app.get(`${prefix}/healthz`, async () => ({ status: 'ok', uptime_seconds: Math.round(process.uptime()) }));

  app.get(`${prefix}/readyz`, async (_request, reply) => {
    const report = await surface.readiness();
    reply.code(report.ready ? 200 : 503);
    return { status: report.ready ? 'ready' : 'not ready', checks: report.checks };
  });

  const metrics = surface.metrics;
  if (metrics) {
    const users: AriUser[] = metrics.user
      ? [{ name: metrics.user.name, password: metrics.user.password, passwordFormat: 'plain', readOnly: true, dialect: 'switchboard' }]
      : [];
    app.get(`${prefix}/${metrics.path.replace(/^\/+/, '')}`, async (request, reply) => {
      if (metrics.user) authenticate(users, credentialsFrom(request.headers.authorization, undefined));
      const { contentType, body } = await metrics.render();
      reply.header('content-type', contentType);
      return body;
    });
  }

  app.get(`${prefix}/console/api/whoami`, async (request) => {
    const user = apiUser(request);
    return { name: user.name, read_only: user.readOnly, api_root: `${prefix}/ari` };
  });

  app.get(`${prefix}/console/api/cdr`, async (request) => {
    apiUser(request);
    const raw = (request.query as Record<string, string | undefined>).limit;
    const limit = raw === undefined ? 20 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONSOLE_CDRS) throw new ApiError(400, `limit must be 1..${MAX_CONSOLE_CDRS}`);
    return surface.recentCdrs ? await surface.recentCdrs(limit) : [];
  });

  app.get(`${prefix}/console/api/contacts`, async (request) => {
    apiUser(request);
    return surface.contacts ? await surface.contacts() : [];
  });

  app.get(`${prefix}/console/api/codecs`, async (request) => {
    apiUser(request);
    const codecs: Record<string, string> = {};
    for (const channel of core.channels.list()) {
      const codec = surface.channelCodec?.(channel.id);
      if (codec !== undefined) codecs[channel.id] = codec;
    }
    return codecs;
  });

  const serveStatic = async (file: string, reply: FastifyReply) => {
    // Only plain names inside the console directory: no `..`, no separators smuggled in.
    const path = normalize(join(consoleDirectory, file));
    if (!path.startsWith(consoleDirectory.endsWith(sep) ? consoleDirectory : `${consoleDirectory}${sep}`) || !/^[\w.-]+$/.test(file)) {
      throw new ApiError(404, 'Resource not found');
    }
    const type = CONTENT_TYPES[extname(file)];
    if (type === undefined) throw new ApiError(404, 'Resource not found');
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch {
      throw new ApiError(404, 'Resource not found');
    }
    reply.header('content-type', type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    // The page talks to this server only.
    reply.header('content-security-policy', "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:");
    return body;
  };
  app.get(`${prefix}/console`, async (_request, reply) => reply.redirect(`${prefix}/console/`));
  app.get(`${prefix}/console/`, async (_request, reply) => serveStatic('index.html', reply));
  app.get(`${prefix}/console/:file`, async (request, reply) => serveStatic((request.params as { file: string }).file, reply));
}
