/**
 * Reads an operation's parameters from a request, driven only by its declarations
 * (reference README §5, SPEC §4.0): query string and form fields, JSON body keys named like query
 * parameters (which override the query string), `containers` body parameters from the body key of
 * the same name, `object` body parameters from the whole body. Allowed values and ranges are enforced.
 */
import type { AllowableValues, JsonObject, ParameterDecl, RawParamValues } from '../swagger/types.js';
import { badRequest, missingParams } from './api-error.js';
import { splitArgs } from './split-args.js';

/** The reference refuses 128 or more values in one allowMultiple parameter. */
export const MAX_MULTIPLE_VALUES = 127;

const TRUE_WORDS = new Set(['yes', 'true', 'y', 't', '1', 'on']);

/** Booleans accept yes|true|y|t|1|on (any case) as true and anything else as false. */
export function parseBoolean(text: string): boolean {
  return TRUE_WORDS.has(text.trim().toLowerCase());
}

export interface RequestSources {
  /** URL-decoded path segments. */
  readonly path: Readonly<Record<string, string>>;
  /** Query string merged with form fields; one value per name (a repeated name: the last wins). */
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body when it is an object. */
  readonly json: JsonObject | undefined;
}

type Scalar = string | number | boolean;

export function parseParameters(decls: readonly ParameterDecl[], sources: RequestSources): RawParamValues {
  const values: RawParamValues = {};
  const missing: string[] = [];
  for (const decl of decls) {
    const value = readParameter(decl, sources);
    if (value !== undefined) values[decl.name] = value;
    else if (decl.defaultValue !== undefined) values[decl.name] = fromText(decl, String(decl.defaultValue));
    else if (decl.required) missing.push(decl.name);
  }
  if (missing.length > 0) throw missingParams(missing);
  return values;
}

function readParameter(decl: ParameterDecl, sources: RequestSources): unknown {
  switch (decl.paramType) {
    case 'path': {
      const text = sources.path[decl.name];
      return text === undefined || text === '' ? undefined : fromText(decl, text);
    }
    case 'query': {
      const json = sources.json?.[decl.name];
      if (json !== undefined && json !== null) return fromJson(decl, json);
      const text = sources.query[decl.name];
      return text === undefined || text === '' ? undefined : fromText(decl, text);
    }
    case 'body':
      if (decl.dataType === 'object') return sources.json;
      return sources.json?.[decl.name] ?? undefined;
  }
}

function fromText(decl: ParameterDecl, text: string): Scalar | Scalar[] {
  if (!decl.allowMultiple) return checked(decl, scalarFromText(decl, text));
  return listOf(
    decl,
    splitArgs(text).map((item) => scalarFromText(decl, item)),
  );
}

function fromJson(decl: ParameterDecl, value: unknown): Scalar | Scalar[] {
  if (!decl.allowMultiple) return checked(decl, scalarFromJson(decl, value));
  if (Array.isArray(value))
    return listOf(
      decl,
      value.map((item) => scalarFromJson(decl, item)),
    );
  if (typeof value === 'string')
    return listOf(
      decl,
      splitArgs(value).map((item) => scalarFromText(decl, item)),
    );
  return listOf(decl, [scalarFromJson(decl, value)]);
}

function listOf(decl: ParameterDecl, items: Scalar[]): Scalar[] {
  if (items.length > MAX_MULTIPLE_VALUES) throw badRequest(`Too many values for ${decl.name}`);
  return items.map((item) => checked(decl, item));
}

function scalarFromText(decl: ParameterDecl, text: string): Scalar {
  switch (decl.dataType) {
    case 'int':
    case 'long': {
      const n = Number(text.trim());
      if (!/^\s*[+-]?\d+\s*$/.test(text) || !Number.isSafeInteger(n)) throw invalid(decl, text, 'an integer');
      return n;
    }
    case 'double': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw invalid(decl, text, 'a number');
      return n;
    }
    case 'boolean':
      return parseBoolean(text);
    default:
      return text;
  }
}

/** JSON values are taken as they are when the type matches and read like query text when they are strings. */
function scalarFromJson(decl: ParameterDecl, value: unknown): Scalar {
  if (typeof value === 'string') return scalarFromText(decl, value);
  switch (decl.dataType) {
    case 'int':
    case 'long':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      throw invalid(decl, JSON.stringify(value), 'an integer');
    case 'double':
      if (typeof value === 'number') return value;
      throw invalid(decl, JSON.stringify(value), 'a number');
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number') return value !== 0;
      throw invalid(decl, JSON.stringify(value), 'a boolean');
    default:
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw invalid(decl, JSON.stringify(value), 'a string');
  }
}

function checked(decl: ParameterDecl, value: Scalar): Scalar {
  const allowed = decl.allowableValues;
  if (allowed && !isAllowed(allowed, value)) {
    throw badRequest(`Invalid value for ${decl.name}: '${String(value)}' is not ${describeAllowed(allowed)}`);
  }
  return value;
}

function isAllowed(allowed: AllowableValues, value: Scalar): boolean {
  if (allowed.valueType === 'LIST') return allowed.values.includes(String(value));
  if (typeof value !== 'number') return false;
  return (allowed.min === undefined || value >= allowed.min) && (allowed.max === undefined || value <= allowed.max);
}

function describeAllowed(allowed: AllowableValues): string {
  if (allowed.valueType === 'LIST') return `one of ${allowed.values.join(', ')}`;
  if (allowed.max === undefined) return `at least ${allowed.min ?? 0}`;
  return `between ${allowed.min ?? '-∞'} and ${allowed.max}`;
}

function invalid(decl: ParameterDecl, text: string, what: string) {
  return badRequest(`Invalid value for ${decl.name}: '${text}' is not ${what}`);
}
