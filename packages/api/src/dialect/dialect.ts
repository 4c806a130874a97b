/**
 * A dialect built from the rename table (renames.ts): translators from SPEC.md's names to the
 * dialect's (answers, events, api-docs) and back (request parameters). The `switchboard` dialect
 * has no renames, so each of its translators hands its input back untouched.
 */
import type { ApiDialect, CoreErrorCode } from '@switchboard/core';
import { ALL_MODELS } from '../swagger/models/index.js';
import type { AllowableValues, ModelDecl, RawParamValues } from '../swagger/types.js';
import { DIALECT_RENAMES, EVENT_TYPE_PLACES, NAME_PLACES, type NamePrefixRename, type Renamed } from './renames.js';

type Json = { readonly [key: string]: unknown };

export interface Dialect {
  readonly name: ApiDialect;
  /** The dialect renames nothing: every translator hands its input back (SPEC.md's names). */
  readonly identity: boolean;
  /** A resource name as the dialect writes it (`system` → `asterisk`). */
  resourceName(name: string): string;
  /** A resource name written in the dialect, as declared (`asterisk` → `system`). */
  declaredResourceName(name: string): string;
  /** `/system/ping` → `/asterisk/ping`. */
  path(path: string): string;
  /** A model id or a type expression (`List[SystemInfo]`). */
  type(type: string): string;
  property(model: string, property: string): string;
  allowableValues(model: string, property: string, values: AllowableValues): AllowableValues;
  status(code: CoreErrorCode, status: number): number;
  /** A value of the declared type (an answer body). */
  outgoing(value: unknown, type: string): unknown;
  /** An event, already in its wire form. */
  event<E extends { readonly type: string }>(event: E): E;
  /** Parsed request parameters, into SPEC.md's names. */
  incoming(params: RawParamValues): RawParamValues;
}

export const ALL_DIALECTS: readonly ApiDialect[] = ['switchboard', 'asterisk'];

const cache = new Map<ApiDialect, Dialect>();

export function dialectOf(name: ApiDialect): Dialect {
  let dialect = cache.get(name);
  if (!dialect) {
    dialect = buildDialect(name);
    cache.set(name, dialect);
  }
  return dialect;
}

export const SPEC_DIALECT: Dialect = dialectOf('switchboard');

function buildDialect(name: ApiDialect): Dialect {
  const differs = <T>(r: Renamed<T>) => r.switchboard !== r[name];
  const forward = (list: readonly Renamed[]) => new Map(list.filter(differs).map((r) => [r.switchboard, r[name]]));
  const backward = (list: readonly Renamed[]) => new Map(list.filter(differs).map((r) => [r[name], r.switchboard]));

  const resourcesOut = forward(DIALECT_RENAMES.resources);
  const resourcesIn = backward(DIALECT_RENAMES.resources);
  const modelsOut = forward(DIALECT_RENAMES.models);
  const modelsIn = backward(DIALECT_RENAMES.models);
  const prefixes = DIALECT_RENAMES.namePrefixes.filter(differs);
  const properties = new Map(DIALECT_RENAMES.properties.filter(differs).map((r) => [`${r.model}.${r.switchboard}`, r[name]]));
  const statuses = new Map(DIALECT_RENAMES.errorStatuses.filter(differs).map((r) => [r.code, r[name]]));
  /** `Model.property` (or `Event|Model.property` when restricted to one event) → value map. */
  const values = new Map<string, Map<string, string>>();
  for (const r of DIALECT_RENAMES.values.filter(differs)) {
    const key = `${r.onlyIn ? `${r.onlyIn}|` : ''}${r.model}.${r.property}`;
    const map = values.get(key) ?? new Map<string, string>();
    map.set(r.switchboard, r[name]);
    values.set(key, map);
  }
  const namePlaces = new Set<string>(NAME_PLACES.properties);
  const eventTypePlaces = new Set<string>(EVENT_TYPE_PLACES.properties);
  const identity = resourcesOut.size + modelsOut.size + prefixes.length + properties.size + values.size === 0;

  const renameType = (type: string, map: ReadonlyMap<string, string>) => type.replace(/[A-Za-z]+/g, (id) => map.get(id) ?? id);
  const nameOut = (text: string) => renamePrefix(text, prefixes, 'switchboard', name);
  const nameIn = (text: string) => renamePrefix(text, prefixes, name, 'switchboard');

  function outgoingString(text: string, place: string, event: string | undefined): string {
    const scoped = event === undefined ? undefined : values.get(`${event}|${place}`)?.get(text);
    const renamed = scoped ?? values.get(place)?.get(text) ?? text;
    return namePlaces.has(place) ? nameOut(renamed) : renamed;
  }

  function outgoingObject(value: Json, model: ModelDecl, event: string | undefined): Json {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const declared = model.properties[key];
      const place = `${model.id}.${key}`;
      let translated = field;
      if (eventTypePlaces.has(place) && Array.isArray(field)) translated = field.map((f) => renameTypeObject(f, modelsOut));
      else if (declared) translated = outgoingValue(field, declared.type, place, event);
      out[properties.get(place) ?? key] = translated;
    }
    return out;
  }

  function outgoingValue(value: unknown, type: string, place: string, event: string | undefined): unknown {
    const list = /^List\[(.+)\]$/.exec(type);
    if (list && Array.isArray(value)) return value.map((item) => outgoingValue(item, list[1] as string, place, event));
    if (typeof value === 'string') return outgoingString(value, place, event);
    const model = ALL_MODELS.get(type);
    if (model && isJson(value)) return outgoingObject(value, model, event);
    return value;
  }

  const incomingValue = (key: string, value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => incomingValue(key, v));
    if ((NAME_PLACES.parameters as readonly string[]).includes(key) && typeof value === 'string') return nameIn(value);
    if ((NAME_PLACES.sourceParameters as readonly string[]).includes(key) && typeof value === 'string') {
      const colon = value.indexOf(':');
      return colon < 0 ? value : value.slice(0, colon + 1) + nameIn(value.slice(colon + 1));
    }
    if ((EVENT_TYPE_PLACES.parameters as readonly string[]).includes(key) && isJson(value)) {
      const filter: Record<string, unknown> = { ...value };
      for (const list of ['allowed', 'disallowed']) {
        const entries = filter[list];
        if (Array.isArray(entries)) filter[list] = entries.map((e) => renameTypeObject(e, modelsIn));
      }
      return filter;
    }
    return value;
  };

  return {
    name,
    identity,
    resourceName: (resource) => resourcesOut.get(resource) ?? resource,
    declaredResourceName: (resource) => resourcesIn.get(resource) ?? resource,
    path: (path) => path.replace(/^\/([^/]+)/, (whole, first: string) => (resourcesOut.has(first) ? `/${resourcesOut.get(first)}` : whole)),
    type: (type) => renameType(type, modelsOut),
    property: (model, property) => properties.get(`${model}.${property}`) ?? property,
    allowableValues(model, property, allowed) {
      if (allowed.valueType !== 'LIST') return allowed;
      const place = `${model}.${property}`;
      const renamed = allowed.values.map((v) => values.get(place)?.get(v) ?? v);
      // A value renamed only inside one event (`continuing`) is one more allowed value.
      for (const [key, map] of values) if (key.endsWith(`|${place}`)) renamed.push(...map.values());
      return { valueType: 'LIST', values: [...new Set(renamed)] };
    },
    status: (code, status) => statuses.get(code) ?? status,
    outgoing: (value, type) => (identity ? value : outgoingValue(value, type, '', undefined)),
    event(event) {
      if (identity) return event;
      const model = ALL_MODELS.get(event.type);
      if (!model) return event;
      const translated = outgoingObject(event, model, event.type);
      return { ...translated, type: modelsOut.get(event.type) ?? event.type } as unknown as typeof event;
    },
    incoming(params) {
      if (identity) return params;
      const out: RawParamValues = {};
      for (const [key, value] of Object.entries(params)) out[key] = incomingValue(key, value);
      return out;
    },
  };
}

/** `SIP/alice-1` → `PJSIP/alice-1`, `SIP` → `PJSIP`, `App:door` → `Stasis:door`; anything else unchanged. */
function renamePrefix(text: string, prefixes: readonly NamePrefixRename[], from: ApiDialect, to: ApiDialect): string {
  for (const prefix of prefixes) {
    const head = prefix[from];
    if (text === head) return prefix[to];
    if (text.startsWith(head + prefix.separator)) return prefix[to] + text.slice(head.length);
  }
  return text;
}

function renameTypeObject(entry: unknown, map: ReadonlyMap<string, string>): unknown {
  if (!isJson(entry) || typeof entry.type !== 'string') return entry;
  return { ...entry, type: map.get(entry.type) ?? entry.type };
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
