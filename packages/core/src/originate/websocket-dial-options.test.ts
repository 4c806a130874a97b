import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readWebSocketChannelConfig } from '../config/websocket-channel-config.js';
import { parseIni } from '../config/ini.js';
import { ConfigError, CoreError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { parseWebSocketDialOptions } from './websocket-dial-options.js';

describe('WebSocket media dial options (externalMedia transport_data)', () => {
  it('reads f(), d() and v() in any order', () => {
    assert.deepEqual(parseWebSocketDialOptions('f(json)v(call=42,lang=en)d(in)'), {
      controlFormat: 'json',
      direction: 'in',
      uriParameters: [
        ['call', '42'],
        ['lang', 'en'],
      ],
    });
    assert.deepEqual(parseWebSocketDialOptions(undefined), { uriParameters: [] });
    assert.deepEqual(parseWebSocketDialOptions('d(out)f(plain-text)'), {
      controlFormat: 'plain-text',
      direction: 'out',
      uriParameters: [],
    });
  });

  it('refuses what it cannot honour with a 400 naming it', () => {
    for (const bad of ['f(xml)', 'f(json', 'd(up)', 'v(novalue)', 'n', 'c(ulaw)', 'p']) {
      assert.throws(
        () => parseWebSocketDialOptions(bad),
        (err: unknown) => err instanceof CoreError && err.code === 'invalid_argument',
        bad,
      );
    }
  });
});

describe('chan_websocket.conf', () => {
  const read = (text: string) => readWebSocketChannelConfig(parseIni(text, 'chan_websocket.conf'), silentLogger);

  it('control_message_format in [global]; plain-text by default', () => {
    assert.equal(readWebSocketChannelConfig(undefined, silentLogger).controlMessageFormat, 'plain-text');
    assert.equal(read('[global]\ncontrol_message_format = json\n').controlMessageFormat, 'json');
    assert.equal(read('[global]\ncontrol_message_format = plain-text\n').controlMessageFormat, 'plain-text');
  });

  it('an unknown format stops the file from loading', () => {
    assert.throws(() => read('[global]\ncontrol_message_format = yaml\n'), ConfigError);
  });
});
