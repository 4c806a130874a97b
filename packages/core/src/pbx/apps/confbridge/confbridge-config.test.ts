import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../errors.js';
import { silentLogger } from '../../../util/logger.js';
import { ConfBridgeOptionError, defaultUserProfile, parseMenuActions, readConfBridgeConfig, setUserOption } from './confbridge-config.js';

function withConf(text: string, check: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'confbridge-conf-'));
  try {
    writeFileSync(join(dir, 'confbridge.conf'), text);
    check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('confbridge.conf', () => {
  it('reads bridge, user and menu profiles beside the defaults', () => {
    withConf(
      `[big]\ntype = bridge\nmax_members = 20\nrecord_conference = yes\nrecord_file = conf/big.wav\n\n[boss]\ntype = user\nadmin = yes\nmarked = yes\npin = 1234\nmusic_on_hold_when_empty = yes\n\n[menu1]\ntype = menu\n1 = toggle_mute\n*9 = leave_conference\n2 = playback(beep&hello-world),no_op\n`,
      (dir) => {
        const config = readConfBridgeConfig(dir, silentLogger);
        assert.ok(config.bridges.has('default_bridge'));
        assert.ok(config.users.has('default_user'));
        assert.deepEqual(
          { max: config.bridges.get('big')?.maxMembers, record: config.bridges.get('big')?.recordConference },
          { max: 20, record: true },
        );
        const boss = config.users.get('boss');
        assert.deepEqual([boss?.admin, boss?.marked, boss?.pin, boss?.musicOnHoldWhenEmpty], [true, true, '1234', true]);
        const menu = config.menus.get('menu1');
        assert.deepEqual(menu?.entries.get('1'), [{ kind: 'toggle_mute' }]);
        assert.deepEqual(menu?.entries.get('*9'), [{ kind: 'leave_conference' }]);
        assert.deepEqual(menu?.entries.get('2'), [{ kind: 'playback', file: 'beep&hello-world' }, { kind: 'no_op' }]);
      },
    );
  });

  it('stops at an invalid value of an option it implements, with the file and line', () => {
    withConf('[u]\ntype = user\nmarked = perhaps\n', (dir) => {
      assert.throws(() => readConfBridgeConfig(dir, silentLogger), ConfigError);
    });
    withConf('[m]\ntype = menu\n1 = explode\n', (dir) => {
      assert.throws(() => readConfBridgeConfig(dir, silentLogger), ConfigError);
    });
  });

  it('sets user options dynamically (CONFBRIDGE()) with the same checks', () => {
    const profile = defaultUserProfile();
    assert.equal(setUserOption(profile, 'startmuted', 'yes'), true);
    assert.equal(profile.startMuted, true);
    assert.equal(setUserOption(profile, 'no_such_option', 'yes'), false);
    assert.throws(() => setUserOption(profile, 'pin', '12ab'), ConfBridgeOptionError);
    assert.throws(() => parseMenuActions('dance'), ConfBridgeOptionError);
  });
});
