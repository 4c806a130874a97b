/**
 * ConfBridge(conference[,bridge_profile[,user_profile[,menu]]]), CONFBRIDGE(bridge|user|menu,option)
 * (a dynamic profile for the channel's next ConfBridge, confbridge-dynamic.ts) and CONFBRIDGE_INFO(parties|admins|marked|locked|muted,conference) in the dialplan.
 * The application asks for the user profile's PIN (conf-getpin, three tries), serves the menu's
 * DTMF sequences while the user is in, and sets CONFBRIDGE_RESULT when the user leaves.
 */
import type { Channel } from '../../../channels/channel.js';
import type { DialplanAppContext, DialplanApplication } from '../../dialplan-app.js';
import type { DialplanRunner } from '../../dialplan-runner.js';
import type { DialplanFunction } from '../../pbx-services.js';
import { playMedia } from '../ivr-apps.js';
import { ConfBridgeOptionError, type ConfBridgeConfig } from './confbridge-config.js';
import { type DynamicProfiles, requireProfile, setDynamicOption } from './confbridge-dynamic.js';
import { type ConfBridgeDeps, ConfBridgeService, type JoinProfiles } from './confbridge-service.js';
import type { Conference, ConferenceUser } from './conference.js';

const PIN_ATTEMPTS = 3;
const PIN_DIGIT_TIMEOUT_MS = 5000;
/** How long a name recorded on joining may be, and the silence that ends it. */
const NAME_SECONDS = 10;
const NAME_SILENCE_SECONDS = 2;
/** How long a menu waits for the next digit of a longer sequence. */
const MENU_SEQUENCE_TIMEOUT_MS = 2000;
/** A menu wait that ends only by a digit, the user leaving or a hangup. */
const UNTIL_LEFT_MS = 24 * 3600 * 1000;

export function installConfBridge(deps: ConfBridgeDeps & { runner: DialplanRunner }): ConfBridgeService {
  const service = new ConfBridgeService(deps);
  const dynamic = new Map<string, DynamicProfiles>();
  deps.bus.subscribe((event) => {
    if (event.type === 'ChannelDestroyed') dynamic.delete(event.channel.id);
  });

  const confBridge: DialplanApplication = async (ctx, [name = '', bridgeName = '', userName = '', menuName = '']) => {
    const { channel, log } = ctx;
    if (name.trim() === '') {
      log.warn('ConfBridge requires a conference name');
      channel.setVariable('CONFBRIDGE_RESULT', 'FAILED');
      return { kind: 'next' };
    }
    let profiles: JoinProfiles;
    try {
      profiles = resolveProfiles(deps.config(), dynamic.get(channel.id), bridgeName, userName, menuName);
    } catch (err) {
      if (!(err instanceof ConfBridgeOptionError)) throw err;
      log.warn({ conference: name, reason: err.message }, 'ConfBridge cannot start');
      channel.setVariable('CONFBRIDGE_RESULT', 'FAILED');
      return { kind: 'next' };
    }
    await channel.answer();
    if (profiles.user.pin !== '' && !(await askPin(ctx, profiles.user.pin))) {
      channel.setVariable('CONFBRIDGE_RESULT', 'FAILED');
      return channel.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
    }
    const stored = deps.recordings.stored;
    const nameRecording = await recordName(ctx, name.trim(), profiles, (n) => stored.exists(n, 'wav'));
    if (channel.isDestroyed) {
      if (nameRecording !== undefined) stored.delete(nameRecording);
      return { kind: 'stop' };
    }
    const result = await service.join(
      channel,
      name.trim(),
      profiles,
      (user, conference) => serveMenu(ctx, service, user, conference),
      nameRecording,
    );
    if (!channel.isDestroyed) channel.setVariable('CONFBRIDGE_RESULT', result);
    return channel.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
  };

  const confBridgeFunction: DialplanFunction = {
    write: (ctx, args, value) => {
      const [type = '', option = ''] = args.split(',').map((a) => a.trim());
      const profiles = dynamic.get(ctx.channel.id) ?? {};
      dynamic.set(ctx.channel.id, profiles);
      try {
        setDynamicOption(deps.config(), profiles, type, option, value);
      } catch (err) {
        if (!(err instanceof ConfBridgeOptionError)) throw err;
        ctx.log.warn({ type, option, value, reason: err.message }, 'CONFBRIDGE() value refused');
      }
    },
  };

  const confBridgeInfo: DialplanFunction = {
    read: (ctx, args) => {
      const [type = '', name = ''] = args.split(',').map((a) => a.trim());
      const conference = service.get(name);
      const users = conference === undefined ? [] : [...conference.users.values()].filter((u) => u.state !== 'left');
      switch (type.toLowerCase()) {
        case 'parties':
          return String(users.length);
        case 'admins':
          return String(users.filter((u) => u.profile.admin).length);
        case 'marked':
          return String(users.filter((u) => u.profile.marked).length);
        case 'muted':
          return String(users.filter((u) => u.muted).length);
        case 'locked':
          return conference?.locked ? '1' : '0';
        default:
          ctx.log.warn({ type }, 'CONFBRIDGE_INFO() type must be parties, admins, marked, locked or muted');
          return '';
      }
    },
  };

  deps.runner.registerApplication('ConfBridge', confBridge);
  deps.runner.registerFunction('CONFBRIDGE', confBridgeFunction);
  deps.runner.registerFunction('CONFBRIDGE_INFO', confBridgeInfo);
  return service;
}

function resolveProfiles(
  config: ConfBridgeConfig,
  dynamic: DynamicProfiles | undefined,
  bridgeName: string,
  userName: string,
  menuName: string,
): JoinProfiles {
  const bridge = dynamic?.bridge ?? requireProfile(config.bridges, bridgeName.trim() || 'default_bridge', 'bridge');
  const user = dynamic?.user ?? requireProfile(config.users, userName.trim() || 'default_user', 'user');
  const menu = dynamic?.menu ?? (menuName.trim() === '' ? undefined : requireProfile(config.menus, menuName.trim(), 'menu'));
  return { bridge, user, menu };
}

/**
 * announce_join_leave: the user says their name after the beep (up to NAME_SECONDS, # ends it),
 * kept as a stored recording until the conference has said it for the last time.
 */
async function recordName(
  ctx: DialplanAppContext,
  conference: string,
  profiles: JoinProfiles,
  recorded: (name: string) => boolean,
): Promise<string | undefined> {
  const media = ctx.pbx.media;
  if (!profiles.user.announceJoinLeave || profiles.user.quiet || media === undefined) return undefined;
  const name = `confbridge/names/${conference.replace(/[^A-Za-z0-9_-]/g, '_')}/${ctx.channel.id}`;
  await playMedia(ctx, ['sound:vm-rec-name'], false);
  if (ctx.channel.isDestroyed) return undefined;
  const outcome = await media.record(ctx.channel, {
    name,
    format: 'wav',
    maxSilenceSeconds: NAME_SILENCE_SECONDS,
    maxDurationSeconds: NAME_SECONDS,
    terminateOn: '#',
    beep: true,
  });
  return outcome.endedBy !== 'failed' && recorded(name) ? name : undefined;
}

/** conf-getpin, then digits up to # (or a pause); three tries with conf-invalidpin between. */
async function askPin(ctx: DialplanAppContext, pin: string): Promise<boolean> {
  const { channel, pbx } = ctx;
  for (let attempt = 0; attempt < PIN_ATTEMPTS && !channel.isDestroyed; attempt++) {
    const outcome = await playMedia(ctx, ['sound:conf-getpin'], true);
    let digit = outcome.kind === 'digit' ? outcome.digit : await pbx.dtmf.next(channel.id, PIN_DIGIT_TIMEOUT_MS, channel.hangupSignal);
    let entered = '';
    while (digit !== undefined && digit !== '#') {
      entered += digit;
      if (entered.length >= 32) break;
      digit = await pbx.dtmf.next(channel.id, PIN_DIGIT_TIMEOUT_MS, channel.hangupSignal);
    }
    if (entered === pin) return true;
    if (!channel.isDestroyed) await playMedia(ctx, ['sound:conf-invalidpin'], false);
  }
  return false;
}

/** Reads DTMF sequences while the user is in and runs the menu entry each one names. */
async function serveMenu(ctx: DialplanAppContext, service: ConfBridgeService, user: ConferenceUser, conference: Conference): Promise<void> {
  const menu = user.menu;
  if (menu === undefined || menu.entries.size === 0) return;
  const sequences = [...menu.entries.keys()];
  const channel: Channel = user.channel;
  ctx.pbx.dtmf.clear(channel.id);
  let typed = '';
  while (user.state === 'in' && !channel.isDestroyed) {
    const digit = await ctx.pbx.dtmf.next(channel.id, typed === '' ? UNTIL_LEFT_MS : MENU_SEQUENCE_TIMEOUT_MS, user.left);
    if (user.state !== 'in') return;
    if (digit !== undefined) typed += digit.toUpperCase();
    const longer = sequences.some((s) => s.length > typed.length && s.startsWith(typed));
    const exact = menu.entries.get(typed);
    if (digit !== undefined && longer) continue;
    if (exact) {
      for (const action of exact) {
        if (user.state !== 'in') return;
        await service.runAction(conference, user, action);
      }
    } else if (typed !== '') {
      await playMedia(ctx, ['sound:conf-errormenu'], false).catch(() => undefined);
    }
    typed = '';
  }
}
