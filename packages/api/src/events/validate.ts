/**
 * Checks an outgoing event against its published model before it is sent (SPEC §6.1: events that
 * fail validation are not delivered). Required fields, primitive types, list element types, nested
 * models and LIST values are checked, so a client that trusts our api-docs never meets a surprise.
 *
 * Every event delivered to an application is checked, so a matching event must not make garbage:
 * each model is compiled once into a list of field checks (no `Object.entries`, no `List[…]`
 * pattern matching per event), and the place of a mismatch is put together only when there is one,
 * on the way back up.
 */
import { ALL_MODELS } from '../swagger/models/index.js';
import { EventModel, MessageModel } from '../swagger/models/events.js';
import type { ModelDecl } from '../swagger/types.js';
import type { WireEvent } from './envelope.js';

/** Returns what is wrong with the event, or undefined when it matches its model. */
export function eventProblem(event: WireEvent): string | undefined {
  const model = ALL_MODELS.get(event.type);
  if (!model || !EventModel.subTypes?.includes(event.type)) return `event type ${event.type} is not declared`;
  const mismatch = modelMismatch(event, MessageModel) ?? modelMismatch(event, EventModel) ?? modelMismatch(event, model);
  if (mismatch === null) return undefined;
  return `${event.type}${mismatch.path.reverse().join('')} ${mismatch.what}`;
}

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

/** What is wrong and where: the path's segments from the mismatch up (`.field`, `[index]`). */
interface Mismatch {
  readonly path: string[];
  readonly what: string;
}

const LIST_TYPE = /^List\[(.+)\]$/;

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
  // A type the declarations do not define is not checked.
  return model === undefined ? { kind: 'any' } : { kind: 'model', model };
}

function modelMismatch(value: { readonly [key: string]: unknown }, model: ModelDecl): Mismatch | null {
  const fields = compiledFields(model);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as CompiledField;
    const fieldValue = value[field.name];
    if (fieldValue === undefined) {
      if (field.required) return { path: [`.${field.name}`], what: 'is missing' };
      continue;
    }
    const mismatch = typeMismatch(fieldValue, field.type);
    if (mismatch !== null) {
      mismatch.path.push(`.${field.name}`);
      return mismatch;
    }
    if (field.allowed !== undefined) {
      const text = typeof fieldValue === 'string' ? fieldValue : String(fieldValue);
      if (!field.allowed.has(text)) return { path: [`.${field.name}`], what: `has the undeclared value '${text}'` };
    }
  }
  return null;
}

function typeMismatch(value: unknown, type: CompiledType): Mismatch | null {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? null : { path: [], what: 'is not a string' };
    case 'integer':
      return Number.isInteger(value) ? null : { path: [], what: 'is not an integer' };
    case 'number':
      return typeof value === 'number' ? null : { path: [], what: 'is not a number' };
    case 'boolean':
      return typeof value === 'boolean' ? null : { path: [], what: 'is not a boolean' };
    case 'object':
      return isObject(value) ? null : { path: [], what: 'is not an object' };
    case 'any':
      return null;
    case 'model':
      return isObject(value) ? modelMismatch(value, type.model) : { path: [], what: `is not a ${type.model.id}` };
    case 'list': {
      if (!Array.isArray(value)) return { path: [], what: 'is not a list' };
      for (let i = 0; i < value.length; i++) {
        const mismatch = typeMismatch(value[i], type.item);
        if (mismatch !== null) {
          mismatch.path.push(`[${i}]`);
          return mismatch;
        }
      }
      return null;
    }
  }
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
