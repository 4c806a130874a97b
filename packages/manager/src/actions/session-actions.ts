/**
 * The protocol's own actions: Login (plain secret, or MD5 over a Challenge), Challenge, Logoff,
 * Ping, Events, Filter and ListCommands. A failed login is answered and the connection closed,
 * with a security event for the readers of class `security`.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { SWITCHBOARD_VERSION } from '@switchboard/core';
import { aclAllows } from '../acl.js';
import type { ManagerUser } from '../config.js';
import type { ManagerEvent } from '../fields.js';
import { PERMISSION_CLASSES, Permissions } from '../permissions.js';
import { securityEvent } from '../security-events.js';
import { type ActionContext, type ActionDefinition, ActionError, type Reply, message, success } from './types.js';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `on`, `off`, or a list of read classes (limited to the user's). */
export function eventMaskFor(text: string | undefined, user: ManagerUser): Permissions {
  const value = text?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'on' || value === 'yes') return user.read;
  if (value === 'off' || value === 'no') return Permissions.none;
  return Permissions.parse(value).permissions.intersect(user.read);
}

function fullyBooted(services: ActionContext['services']): ManagerEvent {
  const status = services.core.system;
  const seconds = (date: Date) => String(Math.floor((Date.now() - date.getTime()) / 1000));
  return {
    name: 'FullyBooted',
    classes: ['system'],
    fields: [
      ['Status', 'Fully Booted'],
      ['Uptime', seconds(status.startedAt)],
      ['LastReload', seconds(status.lastReloadAt)],
    ],
  };
}

function refuse(ctx: ActionContext, event: ManagerEvent): Reply {
  ctx.services.broadcast(event);
  return { kind: 'response', response: 'Error', fields: [['Message', 'Authentication failed']], close: 'authentication failed' };
}

function login(ctx: ActionContext): Reply {
  const { session, message: msg, services } = ctx;
  if (session.authenticated) return success([['Message', 'Already authenticated']]);
  const username = msg.get('Username')?.trim() ?? '';
  const user = services.config().users.get(username.toLowerCase());
  if (!user) return refuse(ctx, securityEvent('InvalidAccountID', session, username));
  if (!aclAllows(user.acl, session.remoteAddress)) {
    return refuse(ctx, securityEvent('FailedACL', session, username, [['ACLName', 'manager.conf deny/permit']]));
  }
  const authType = msg.get('AuthType')?.trim().toLowerCase();
  if (authType === 'md5') {
    const key = msg.get('Key')?.trim().toLowerCase() ?? '';
    const challenge = session.challenge ?? '';
    const expected = createHash('md5').update(`${challenge}${user.secret}`).digest('hex');
    if (challenge === '' || !sameText(key, expected)) {
      return refuse(
        ctx,
        securityEvent('ChallengeResponseFailed', session, username, [
          ['Challenge', challenge],
          ['Response', key],
          ['ExpectedResponse', ''],
        ]),
      );
    }
  } else if (authType !== undefined && authType !== '' && authType !== 'plain') {
    throw new ActionError(`Unknown AuthType ${authType}`);
  } else if (!sameText(msg.get('Secret') ?? '', user.secret)) {
    return refuse(
      ctx,
      securityEvent('InvalidPassword', session, username, [
        ['Challenge', ''],
        ['ReceivedChallenge', ''],
        ['ReceivedHash', ''],
      ]),
    );
  }
  // The npm client sends `Event:`, the original documents `Events:`: both are read.
  session.login(user, eventMaskFor(msg.get('Events') ?? msg.get('Event'), user));
  services.broadcast(securityEvent('SuccessfulAuth', session, username, [['UsingPassword', '1']]));
  return { kind: 'response', response: 'Success', fields: [['Message', 'Authentication accepted']], followedBy: [fullyBooted(services)] };
}

export function sessionActions(listCommands: () => readonly ActionDefinition[]): ActionDefinition[] {
  return [
    { name: 'Login', privilege: [], beforeLogin: true, run: login },
    {
      name: 'Challenge',
      privilege: [],
      beforeLogin: true,
      run: ({ session, message: msg }) => {
        if (msg.get('AuthType')?.trim().toLowerCase() !== 'md5') throw new ActionError('Must specify AuthType');
        session.challenge = String(randomInt(100_000_000, 1_000_000_000));
        return success([['Challenge', session.challenge]]);
      },
    },
    {
      name: 'Logoff',
      privilege: [],
      beforeLogin: true,
      run: () => ({ kind: 'response', response: 'Goodbye', fields: [['Message', 'Thanks for all the fish.']], close: 'logoff' }),
    },
    {
      name: 'Ping',
      privilege: [],
      run: () =>
        success([
          ['Ping', 'Pong'],
          ['Timestamp', (Date.now() / 1000).toFixed(6)],
        ]),
    },
    {
      name: 'Events',
      privilege: [],
      run: ({ session, message: msg }) => {
        const user = session.user;
        if (!user) throw new ActionError('Permission denied');
        session.eventMask = eventMaskFor(msg.get('EventMask') ?? 'on', user);
        return success([['Events', session.eventMask.hasAny(PERMISSION_CLASSES) ? 'On' : 'Off']]);
      },
    },
    {
      name: 'Filter',
      privilege: ['system'],
      run: ({ session, message: msg }) => {
        const operation = msg.get('Operation')?.trim().toLowerCase() ?? 'add';
        if (operation !== 'add') throw new ActionError('Unknown operation');
        const filter = msg.get('Filter');
        if (!filter) throw new ActionError('Filter Not Added');
        try {
          session.filters.add(filter);
        } catch {
          throw new ActionError('Filter Not Added');
        }
        return message('Filter Added Successfully');
      },
    },
    {
      name: 'ListCommands',
      privilege: [],
      run: () =>
        success(
          listCommands().map(
            (a) => [a.name, `(Priv: ${a.privilege.length === 0 ? '<none>' : [...a.privilege, 'all'].join(',')})`] as const,
          ),
        ),
    },
    {
      name: 'CoreSettings',
      privilege: ['system', 'reporting'],
      run: ({ services }) => {
        const config = services.core.config;
        return success([
          ['AMIversion', '5.0.0'],
          ['AsteriskVersion', SWITCHBOARD_VERSION],
          ['SystemName', config.general.systemName ?? ''],
          ['CoreMaxCalls', '0'],
          ['CoreMaxLoadAvg', '0.000000'],
          ['CoreRunUser', ''],
          ['CoreRunGroup', ''],
          ['CoreMaxFilehandles', '0'],
          ['CoreRealTimeEnabled', 'No'],
          ['CoreCDRenabled', 'No'],
          ['CoreHTTPenabled', config.http.enabled ? 'Yes' : 'No'],
        ]);
      },
    },
  ];
}
