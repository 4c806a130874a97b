/**
 * An outbound WebSocket over TLS (wss://): the application's certificate is self-signed (made by
 * openssl, which scripts/ensure-tools.mjs installs) and trusted through ca_list_file; with
 * verify_server_hostname = no a name mismatch is accepted, and without the CA the connection fails.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { OutboundWebsocketConfig } from '@switchboard/core';
import { WebSocketServer } from 'ws';
import { type Harness, startHarness } from '../testing/harness.js';
import { waitFor } from '../testing/ws-inbox.js';

describe('outbound WebSocket over TLS', { timeout: 30_000 }, () => {
  let dir: string;
  let https: Server;
  let wss: WebSocketServer;
  let h: Harness;
  const received: { type: string; application?: string }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outbound-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=bots.example',
      ],
      { stdio: 'ignore' },
    );
    https = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) });
    wss = new WebSocketServer({ server: https, handleProtocols: () => 'ari' });
    wss.on('connection', (ws) => ws.on('message', (data) => received.push(JSON.parse(String(data)))));
    https.listen(0, '127.0.0.1');
    await once(https, 'listening');
    const port = (https.address() as { port: number }).port;
    const base: OutboundWebsocketConfig = {
      name: 'tls',
      apps: ['tls-app'],
      uri: `wss://127.0.0.1:${port}/ari`,
      protocols: ['ari'],
      connectionType: 'persistent',
      localAriUser: 'alice',
      subscribeAll: false,
      connectionTimeoutMs: 2000,
      reconnectIntervalMs: 200,
      reconnectAttempts: 1,
      tlsEnabled: true,
      caListFile: join(dir, 'cert.pem'),
      verifyServerCert: true,
      verifyServerHostname: false,
    };
    h = await startHarness({
      outboundWebsockets: [
        base,
        // Same server, certificate checked but its CA not given: never connects.
        { ...base, name: 'untrusted', apps: ['untrusted-app'], caListFile: undefined },
      ],
    });
    await h.server.listen('127.0.0.1', 0);
  });

  after(async () => {
    await h.close();
    for (const client of wss.clients) client.terminate();
    wss.close();
    https.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('connects with the configured CA and registers its application; an untrusted certificate is refused', async () => {
    await waitFor(() => received.some((e) => e.type === 'ApplicationRegistered' && e.application === 'tls-app'), 5000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(
      received.some((e) => e.application === 'untrusted-app'),
      false,
    );
    assert.equal(h.core.applications.get('untrusted-app'), undefined);
  });
});
