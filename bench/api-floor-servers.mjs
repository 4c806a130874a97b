#!/usr/bin/env node
// The two bare servers of api-floor.mjs, each in a process of its own as the measured server is:
// `node api-floor-servers.mjs http` (node:http alone) or `… fastify` (fastify with one route). Both
// answer GET /ari/asterisk/ping with a ping body of the same shape and tell the parent their port.
import http from 'node:http';
import Fastify from 'fastify';

const pingBody = () => ({ asterisk_id: '02:00:5e:00:53:01', ping: 'pong', timestamp: new Date().toISOString() });

async function listenBare() {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/ari/asterisk/ping') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.stringify(pingBody());
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

async function listenFastify() {
  const app = Fastify({ logger: false });
  app.get('/ari/asterisk/ping', async () => pingBody());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app.server.address().port;
}

const kind = process.argv[2];
if (kind !== 'http' && kind !== 'fastify') {
  console.error('usage: api-floor-servers.mjs http|fastify');
  process.exit(2);
}
const port = kind === 'http' ? await listenBare() : await listenFastify();
process.send?.({ port });
