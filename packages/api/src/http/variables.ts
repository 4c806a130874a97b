/**
 * The `variables` body parameter (SPEC §4.0.3, reference channels.md "Body variables"):
 * `{"variables": {"NAME": "value", "OTHER": {"value": "v", "report_events": true}}}`.
 * Numbers and booleans are taken as their text so that careless clients do not fail; anything
 * else that is not a string is refused with 400, never allowed to reach the object model.
 */
import { badRequest } from './api-error.js';

export interface VariableAssignment {
  readonly value: string;
  /** Shown in every snapshot's `channelvars` and announced by ChannelVarset. */
  readonly reportEvents: boolean;
}

export function parseVariables(body: unknown): Map<string, VariableAssignment> {
  const result = new Map<string, VariableAssignment>();
  if (body === undefined || body === null) return result;
  if (!isPlainObject(body)) throw badRequest('variables must be a JSON object');
  for (const [name, entry] of Object.entries(body)) {
    if (name.length === 0) throw badRequest('variable names must not be empty');
    result.set(name, parseEntry(name, entry));
  }
  return result;
}

function parseEntry(name: string, entry: unknown): VariableAssignment {
  const scalar = asText(entry);
  if (scalar !== undefined) return { value: scalar, reportEvents: false };
  if (!isPlainObject(entry)) throw badRequest(`variable ${name}: value must be a string`);
  const value = asText(entry.value);
  if (value === undefined) throw badRequest(`variable ${name}: value must be a string`);
  const report = entry.report_events;
  if (report !== undefined && typeof report !== 'boolean') throw badRequest(`variable ${name}: report_events must be a boolean`);
  return { value, reportEvents: report ?? false };
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
