/**
 * Runs one action for a session: the checks every action shares (an Action header, login, write
 * classes), the handler, and the reply on the wire with the client's ActionID. Errors are mapped
 * to `Response: Error` here and nowhere else.
 */
import { CoreError, type Logger } from '@switchboard/core';
import { type ActionContext, type ActionDefinition, ActionError, type ManagerServices, type Reply } from './actions/types.js';
import { formatEventFields } from './fields.js';
import type { ManagerSession } from './session.js';
import { type Field, formatMessage, type ManagerMessage } from './wire.js';

export class ActionDispatcher {
  readonly #actions = new Map<string, ActionDefinition>();
  readonly #services: ManagerServices;
  readonly #log: Logger;

  constructor(definitions: readonly ActionDefinition[], services: ManagerServices, log: Logger) {
    for (const definition of definitions) this.#actions.set(definition.name.toLowerCase(), definition);
    this.#services = services;
    this.#log = log;
  }

  /** Whether `name` (any case) is an action this server has. */
  knows(name: string): boolean {
    return this.#actions.has(name.toLowerCase());
  }

  /** Every action, for ListCommands. */
  list(): ActionDefinition[] {
    return [...this.#actions.values()];
  }

  async handle(session: ManagerSession, message: ManagerMessage): Promise<{ text: string; close?: string }> {
    const actionId = message.get('ActionID');
    const reply = await this.#run(session, message);
    let text = format(reply, actionId);
    if (reply.kind === 'response') {
      for (const event of reply.followedBy ?? []) {
        if (session.eventMask.hasAny(event.classes)) {
          text += formatMessage(formatEventFields(event, { timestamp: this.#services.config().timestampEvents }));
        }
      }
    }
    return { text, ...(reply.kind === 'response' && reply.close ? { close: reply.close } : {}) };
  }

  async #run(session: ManagerSession, message: ManagerMessage): Promise<Reply> {
    const name = message.get('Action')?.trim();
    if (!name) return error('Missing action in request');
    const definition = this.#actions.get(name.toLowerCase());
    if (!session.authenticated && !definition?.beforeLogin) return error('Permission denied');
    if (!definition) return error(`Invalid/unknown command: ${name}. Use Action: ListCommands to show available commands.`);
    const user = session.user;
    if (definition.privilege.length > 0 && !user?.write.hasAny(definition.privilege)) return error('Permission denied');
    const ctx: ActionContext = { message, session, services: this.#services };
    try {
      return await definition.run(ctx);
    } catch (err) {
      if (err instanceof ActionError || err instanceof CoreError) return error(err.message);
      this.#log.error({ err, action: definition.name }, 'manager action failed');
      return error('Internal error');
    }
  }
}

export function error(text: string): Reply {
  return { kind: 'response', response: 'Error', fields: [['Message', text]] };
}

function withId(actionId: string | undefined): Field[] {
  return actionId === undefined ? [] : [['ActionID', actionId]];
}

export function format(reply: Reply, actionId: string | undefined): string {
  if (reply.kind === 'response') {
    return formatMessage([['Response', reply.response], ...withId(actionId), ...reply.fields]);
  }
  let text = formatMessage([['Response', 'Success'], ...withId(actionId), ['EventList', 'start'], ['Message', reply.message]]);
  for (const item of reply.items) text += formatMessage([['Event', item.name], ...withId(actionId), ...item.fields]);
  text += formatMessage([
    ['Event', reply.complete],
    ...withId(actionId),
    ['EventList', 'Complete'],
    ['ListItems', String(reply.items.length)],
    ...(reply.completeFields ?? []),
  ]);
  return text;
}
