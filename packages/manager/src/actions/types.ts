/**
 * What an action is: a name, the write classes that may run it (none: any logged-in user), and a
 * handler that returns a reply. Expected failures are ActionErrors (or core's CoreErrors), which
 * the dispatcher turns into `Response: Error` with the message; anything else is a bug, logged.
 */
import type { Store, SwitchboardCore } from '@switchboard/core';
import type { ManagerConfig } from '../config.js';
import type { ManagerEvent } from '../fields.js';
import type { PermissionClass } from '../permissions.js';
import type { ManagerSession } from '../session.js';
import type { Field, ManagerMessage } from '../wire.js';

/** Runs an operator console command line and returns its output (the `Command` action). */
export interface CommandRunner {
  run(line: string): Promise<string>;
}

export type Reply =
  | {
      kind: 'response';
      response: 'Success' | 'Error' | 'Goodbye';
      fields: Field[];
      /** Close the connection after the reply, for this reason. */
      close?: string;
      /** Events for this session only, right after the reply (FullyBooted after Login). */
      followedBy?: ManagerEvent[];
    }
  /** `EventList: start`, one event per item, then the complete event with `ListItems`. */
  | { kind: 'list'; message: string; items: { name: string; fields: Field[] }[]; complete: string; completeFields?: Field[] };

export class ActionError extends Error {}

/** What actions reach besides the session: the object model and the manager itself. */
export interface ManagerServices {
  core: SwitchboardCore;
  /** AstDB and registrations; absent in a core without a store (the DB and contact actions then fail). */
  store: Pick<Store, 'astdb' | 'contacts'> | undefined;
  commands: CommandRunner | undefined;
  config(): ManagerConfig;
  /** Sends an event to every session that may read it. */
  broadcast(event: ManagerEvent): void;
  /** The id of the first channel of the call a channel belongs to (`Linkedid`). */
  linkedId(channelId: string): string;
  /** Re-reads manager.conf (Reload of the manager module). */
  reloadConfig(): void;
  /** Keeps work that outlives an action (async Originate) so shutdown can wait for it. */
  track(work: Promise<void>): void;
}

export interface ActionContext {
  message: ManagerMessage;
  session: ManagerSession;
  services: ManagerServices;
}

export interface ActionDefinition {
  name: string;
  /** Write classes of which the user needs one; empty: any logged-in user. */
  privilege: readonly PermissionClass[];
  /** Runs before login too (Login, Challenge, Logoff). */
  beforeLogin?: boolean;
  run(ctx: ActionContext): Promise<Reply> | Reply;
}

export function success(fields: Field[] = []): Reply {
  return { kind: 'response', response: 'Success', fields };
}

export function message(text: string, fields: Field[] = []): Reply {
  return success([['Message', text], ...fields]);
}

/** A header the action cannot do without; `Response: Error` with `error` when missing or empty. */
export function required(msg: ManagerMessage, name: string, error = `${name} not specified`): string {
  const value = msg.get(name)?.trim();
  if (value === undefined || value === '') throw new ActionError(error);
  return value;
}

/** The original's yes/true/1/on. */
export function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['yes', 'true', 'y', 't', '1', 'on'].includes(value.trim().toLowerCase());
}
