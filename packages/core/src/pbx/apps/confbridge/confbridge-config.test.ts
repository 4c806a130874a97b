import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../errors.js';
import { silentLogger } from '../../../util/logger.js';
import { ConfBridgeOptionError, defaultUserProfile, parseMenuActions, readConfBridgeConfig, setUserOption } from './confbridge-config.js';
import { type DynamicProfiles, setDynamicOption } from './confbridge-dynamic.js';

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

  it('reads the announcement options and the lock and count menu actions', () => {
    const profile = defaultUserProfile();
    setUserOption(profile, 'announce_user_count', 'yes');
    setUserOption(profile, 'announce_user_count_all', '3');
    assert.deepEqual([profile.announceUserCount, profile.announceUserCountAll], [true, 3]);
    setUserOption(profile, 'announce_user_count_all', 'yes');
    assert.equal(profile.announceUserCountAll, 0);
    setUserOption(profile, 'announce_user_count_all', 'no');
    assert.equal(profile.announceUserCountAll, undefined);
    assert.deepEqual(parseMenuActions('admin_toggle_conference_lock,participant_count'), [
      { kind: 'admin_toggle_conference_lock' },
      { kind: 'participant_count' },
    ]);
  });

  it('builds dynamic bridge, user and menu profiles (CONFBRIDGE())', () => {
    withConf('[m1]\ntype = menu\n1 = toggle_mute\n\n[chief]\ntype = user\nadmin = yes\n', (dir) => {
      const config = readConfBridgeConfig(dir, silentLogger);
      const profiles: DynamicProfiles = {};
      setDynamicOption(config, profiles, 'menu', 'template', 'm1');
      setDynamicOption(config, profiles, 'menu', '*5', 'leave_conference');
      assert.deepEqual([...(profiles.menu?.entries.keys() ?? [])], ['1', '*5']);
      assert.equal(config.menus.get('m1')?.entries.has('*5'), false, 'the file’s menu is not changed');
      setDynamicOption(config, profiles, 'user', 'template', 'chief');
      setDynamicOption(config, profiles, 'user', 'announce_join_leave', 'yes');
      assert.deepEqual([profiles.user?.admin, profiles.user?.announceJoinLeave], [true, true]);
      setDynamicOption(config, profiles, 'bridge', 'max_members', '5');
      assert.equal(profiles.bridge?.maxMembers, 5);
      setDynamicOption(config, profiles, 'menu', 'clear', '');
      assert.equal(profiles.menu, undefined);
      const fresh: DynamicProfiles = {};
      setDynamicOption(config, fresh, 'menu', '9', 'participant_count');
      assert.deepEqual(fresh.menu?.entries.get('9'), [{ kind: 'participant_count' }]);
      assert.throws(() => setDynamicOption(config, fresh, 'menu', '9x', 'no_op'), ConfBridgeOptionError);
      assert.throws(() => setDynamicOption(config, fresh, 'menu', '1', 'dance'), ConfBridgeOptionError);
      assert.throws(() => setDynamicOption(config, fresh, 'menu', 'template', 'nope'), ConfBridgeOptionError);
      assert.throws(() => setDynamicOption(config, fresh, 'user', 'no_such_option', '1'), ConfBridgeOptionError);
      assert.throws(() => setDynamicOption(config, fresh, 'room', 'x', '1'), ConfBridgeOptionError);
    });
  });
});
