/**
 * Checks an outgoing event against its published model before it is sent (SPEC §6.1: events that
 * fail validation are not delivered). Required fields, primitive types, list element types, nested
 * models and LIST values are checked, so a client that trusts our api-docs never meets a surprise.
 *
 * Every event delivered to an application is checked, so the check must not make garbage: each
 * model is compiled once into a list of field checks (no `Object.entries`, no `List[…]` pattern
 * matching, no paths built per field), and the answer is a boolean. Only an event that fails is
 * walked again by the describing check, which names the field and what is wrong with it.
 */
import { ALL_MODELS } from '../swagger/models/index.js';
import { EventModel, MessageModel } from '../swagger/models/events.js';
import type { ModelDecl } from '../swagger/types.js';
import type { WireEvent } from './envelope.js';

/** Returns what is wrong with the event, or undefined when it matches its model. */
export function eventProblem(event: WireEvent): string | undefined {
  const model = ALL_MODELS.get(event.type);
  if (!model || !EventModel.subTypes?.includes(event.type)) return `event type ${event.type} is not declared`;
  if (matchesModel(event, MessageModel) && matchesModel(event, EventModel) && matchesModel(event, model)) return undefined;
  return (
    objectProblem(event, MessageModel, event.type) ??
    objectProblem(event, EventModel, event.type) ??
    objectProblem(event, model, event.type) ??
    // The two checks disagree: a mistake here, not in the event; the event is held back all the same.
    `${event.type} does not match its model`
  );
}

// ---- the fast check: compiled once per model, no allocation per event ----

type CompiledType =
  | { readonly kind: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'any' }
  | { readonly kind: 'list'; readonly item: CompiledType }
  | { readonly kind: 'model'; readonly model: ModelDecl };

interface CompiledField {
  readonly name: string;
  readonly required: boolean;
  readonly type: CompiledType;
  /** The declared LIST values, when the field has them. */
  readonly allowed: ReadonlySet<string> | undefined;
}

const compiledModels = new Map<ModelDecl, readonly CompiledField[]>();

function compiledFields(model: ModelDecl): readonly CompiledField[] {
  let fields = compiledModels.get(model);
  if (fields === undefined) {
    fields = Object.entries(model.properties).map(([name, prop]) => ({
      name,
      required: prop.required === true,
      type: compileType(prop.type),
      allowed: prop.allowableValues?.valueType === 'LIST' ? new Set(prop.allowableValues.values) : undefined,
    }));
    compiledModels.set(model, fields);
  }
  return fields;
}

function compileType(type: string): CompiledType {
  const list = LIST_TYPE.exec(type);
  if (list) return { kind: 'list', item: compileType(list[1] as string) };
  switch (type) {
    case 'string':
    case 'Date':
      return { kind: 'string' };
    case 'int':
    case 'long':
      return { kind: 'integer' };
    case 'double':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'object':
      return { kind: 'object' };
  }
  const model = ALL_MODELS.get(type);
  // A type the declarations do not define is not checked (as objectProblem does).
  return model === undefined ? { kind: 'any' } : { kind: 'model', model };
}

function matchesModel(value: { readonly [key: string]: unknown }, model: ModelDecl): boolean {
  const fields = compiledFields(model);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as CompiledField;
    const fieldValue = value[field.name];
    if (fieldValue === undefined) {
      if (field.required) return false;
      continue;
    }
    if (!matchesType(fieldValue, field.type)) return false;
    if (field.allowed !== undefined && !field.allowed.has(typeof fieldValue === 'string' ? fieldValue : String(fieldValue))) return false;
  }
  return true;
}

function matchesType(value: unknown, type: CompiledType): boolean {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'any':
      return true;
    case 'model':
      return isObject(value) && matchesModel(value, type.model);
    case 'list': {
      if (!Array.isArray(value)) return false;
      for (let i = 0; i < value.length; i++) if (!matchesType(value[i], type.item)) return false;
      return true;
    }
  }
}

// ---- the describing check: run only for an event that failed ----

const LIST_TYPE = /^List\[(.+)\]$/;

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
  const list = LIST_TYPE.exec(type);
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
