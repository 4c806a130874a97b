import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { readAriConfig } from './ari-config.js';
import { parseIni } from './ini.js';

const read = (text: string) => readAriConfig(parseIni(text, 'ari.conf'), silentLogger);

describe('ari.conf type = outbound_websocket', () => {
  it('reads every option, with the defaults of the reference', () => {
    const config = read(
      [
        '[bots]',
        'type = outbound_websocket',
        'apps = bot1, bot2 ; two applications',
        'uri = wss://bots.example:8765/ari',
        'connection_type = per_call_config',
        'username = sb',
        'password = pw',
        'local_ari_user = switchboard',
        'subscribe_all = yes',
        'reconnect_interval = 250',
        'reconnect_attempts = 2',
        'ca_list_file = /etc/ca.pem',
        'verify_server_hostname = no',
        '[plain]',
        'type = outbound_websocket',
        'apps = a',
        'uri = ws://127.0.0.1:9/x',
      ].join('\n'),
    );
    const [bots, plain] = config.outboundWebsockets;
    assert.deepEqual(bots, {
      name: 'bots',
      apps: ['bot1', 'bot2'],
      uri: 'wss://bots.example:8765/ari',
      protocols: ['ari'],
      connectionType: 'per_call_config',
      username: 'sb',
      password: 'pw',
      localAriUser: 'switchboard',
      subscribeAll: true,
      connectionTimeoutMs: 500,
      reconnectIntervalMs: 250,
      reconnectAttempts: 2,
      tlsEnabled: true,
      caListFile: '/etc/ca.pem',
      verifyServerCert: true,
      verifyServerHostname: false,
    });
    assert.equal(plain?.connectionType, 'persistent');
    assert.equal(plain?.tlsEnabled, false);
  });

  it('refuses a connection without uri or apps, a bad uri or connection type, and a name used twice', () => {
    for (const text of [
      '[x]\ntype = outbound_websocket\napps = a\n',
      '[x]\ntype = outbound_websocket\nuri = ws://h/x\n',
      '[x]\ntype = outbound_websocket\napps = a\nuri = http://h/x\n',
      '[x]\ntype = outbound_websocket\napps = a\nuri = ws://h/x\nconnection_type = sometimes\n',
      '[x]\ntype = outbound_websocket\napps = a\nuri = ws://h/x\n[x]\ntype = outbound_websocket\napps = b\nuri = ws://h/y\n',
    ]) {
      assert.throws(() => read(text), ConfigError, text);
    }
  });

  it('reads the resume window options', () => {
    const config = read('[general]\nresume_window = 0\nresume_max_events = 50\n');
    assert.equal(config.resumeWindowSeconds, 0);
    assert.equal(config.resumeMaxEvents, 50);
    assert.throws(() => read('[general]\nresume_max_events = 0\n'), ConfigError);
  });
});
