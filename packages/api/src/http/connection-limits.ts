/**
 * The HTTP server's defences against connection exhaustion (http.conf, see core's http-config.ts):
 * a cap on connections in all and per source address, deadlines for a request's headers and for
 * the whole request, an idle limit between keep-alive requests and a socket inactivity limit.
 * The inactivity limit is lifted when a connection becomes an events WebSocket, which keeps
 * itself alive with pings.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_HTTP_LIMITS, type HttpLimits, type Logger, normaliseSocketAddress, SampledLog, systemClock } from '@switchboard/core';

/** How often Node checks the header and request deadlines; the deadlines are this precise. */
const DEADLINE_CHECK_INTERVAL_MS = 1000;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A fastify `serverFactory` that builds the http.Server with the limits applied. */
export function limitedServerFactory(limits: HttpLimits = DEFAULT_HTTP_LIMITS, log: Logger): (handler: Handler) => Server {
  return (handler) => {
    const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
    const server = createServer(
      {
        headersTimeout,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.min(DEADLINE_CHECK_INTERVAL_MS, headersTimeout),
      },
      handler,
    );
    server.maxConnections = limits.maxConnections;
    server.timeout = limits.inactivityTimeoutMs;
    capConnectionsPerAddress(server, limits.maxConnectionsPerAddress, log);
    server.on('upgrade', (_request: IncomingMessage, socket: Socket) => socket.setTimeout(0));
    return server;
  };
}

function capConnectionsPerAddress(server: Server, max: number, log: Logger): void {
  const open = new Map<string, number>();
  const sampled = new SampledLog(log, systemClock);
  server.on('connection', (socket: Socket) => {
    const address = normaliseSocketAddress(socket.remoteAddress ?? '');
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      sampled.write(
        'warn',
        'http_per_address_cap',
        { securityEvent: 'connection_refused', address, limit: max },
        'too many HTTP connections from one address; refused',
      );
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
