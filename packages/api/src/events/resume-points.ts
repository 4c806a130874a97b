/**
 * The `resume` parameter of the events WebSocket: the last sequence number the client saw, either
 * one number for every application of the connection (`resume=42`) or one per application
 * (`resume=sales:42,support:7`; an application left out starts fresh).
 */
import { badRequest } from '../http/api-error.js';

const SEQUENCE = /^\d{1,15}$/;

/** Resume points by application name. */
export function parseResumePoints(value: string | undefined, applications: readonly string[]): ReadonlyMap<string, number> {
  const points = new Map<string, number>();
  if (value === undefined || value === '') return points;
  if (SEQUENCE.test(value)) {
    for (const name of applications) points.set(name, Number(value));
    return points;
  }
  for (const part of value.split(',')) {
    const colon = part.lastIndexOf(':');
    const name = part.slice(0, colon);
    const sequence = part.slice(colon + 1);
    if (colon <= 0 || !SEQUENCE.test(sequence)) {
      throw badRequest('resume must be a sequence number or a comma-separated list of application:sequence');
    }
    if (!applications.includes(name)) throw badRequest(`resume names application ${name}, which this connection does not subscribe to`);
    points.set(name, Number(sequence));
  }
  return points;
}
