/**
 * Checks an outgoing event against its published model before it is sent (SPEC §6.1: events that
 * fail validation are not delivered). Required fields, primitive types, list element types, nested
 * models and LIST values are checked, so a client that trusts our api-docs never meets a surprise.
 */
import { ALL_MODELS } from '../swagger/models/index.js';
import { EventModel, MessageModel } from '../swagger/models/events.js';
import type { ModelDecl } from '../swagger/types.js';
import type { WireEvent } from './envelope.js';

/** Returns what is wrong with the event, or undefined when it matches its model. */
export function eventProblem(event: WireEvent): string | undefined {
  const model = ALL_MODELS.get(event.type);
  if (!model || !EventModel.subTypes?.includes(event.type)) return `event type ${event.type} is not declared`;
  return (
    objectProblem(event, MessageModel, event.type) ??
    objectProblem(event, EventModel, event.type) ??
    objectProblem(event, model, event.type)
  );
}

function objectProblem(value: { readonly [key: string]: unknown }, model: ModelDecl, path: string): string | undefined {
  for (const [name, prop] of Object.entries(model.properties)) {
    const field = value[name];
    const where = `${path}.${name}`;
    if (field === undefined) {
      if (prop.required) return `${where} is missing`;
      continue;
    }
    const problem = typeProblem(field, prop.type, where);
    if (problem) return problem;
    const allowed = prop.allowableValues;
    if (allowed?.valueType === 'LIST' && !allowed.values.includes(String(field)))
      return `${where} has the undeclared value '${String(field)}'`;
  }
  return undefined;
}

function typeProblem(value: unknown, type: string, where: string): string | undefined {
  const list = /^List\[(.+)\]$/.exec(type);
  if (list) {
    if (!Array.isArray(value)) return `${where} is not a list`;
    for (const [i, item] of value.entries()) {
      const problem = typeProblem(item, list[1] as string, `${where}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  switch (type) {
    case 'string':
    case 'Date':
      return typeof value === 'string' ? undefined : `${where} is not a string`;
    case 'int':
    case 'long':
      return Number.isInteger(value) ? undefined : `${where} is not an integer`;
    case 'double':
      return typeof value === 'number' ? undefined : `${where} is not a number`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${where} is not a boolean`;
    case 'object':
      return isObject(value) ? undefined : `${where} is not an object`;
  }
  const model = ALL_MODELS.get(type);
  if (!model) return undefined;
  return isObject(value) ? objectProblem(value, model, where) : `${where} is not a ${type}`;
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
