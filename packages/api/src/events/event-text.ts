/**
 * The text of an application event on the events WebSocket, prepared once per event. Core hands
 * the same event object to every application it concerns, one after the other, so what does not
 * depend on the receiving application is done once and kept for the event being delivered: the
 * check against the published model (SPEC §6.1) and, in a dialect that renames nothing, the JSON
 * of the event's own fields. Only the latest event is kept: a WeakMap holding every journaled
 * event made each garbage collection walk thousands of entries and cost more than it saved. Each
 * application's text is then that JSON with its `application`, `asterisk_id` and `sequence`
 * appended, byte for byte what serialising the whole wire event gives (envelope.ts puts those
 * fields last in that order). An event that carries one of those fields itself (AppStart names
 * its application), or a dialect that renames, is serialised whole per application.
 */
import type { ApplicationEvent } from '@switchboard/core';
import type { Dialect } from '../dialect/dialect.js';
import { toWireEvent, type WireEvent } from './envelope.js';
import { eventProblem } from './validate.js';

export type EventText = { readonly text: string; readonly problem?: undefined } | { readonly problem: string };

interface Prepared {
  /** The wire form for the first application, as checked; the head is cut from its JSON. */
  readonly wire: WireEvent;
  /** What is wrong with the event (then it is not delivered), or undefined. */
  readonly problem: string | undefined;
  /** `{"type":…,"timestamp":…,<fields>` without the closing brace; null: serialise whole. */
  head: string | null | undefined;
}

/** The event being delivered and what was prepared for it. */
let latest: { readonly event: ApplicationEvent; readonly prepared: Prepared } | undefined;

/** The event as `application` receives it, or why it is not delivered. */
export function eventText(event: ApplicationEvent, application: string, systemId: string, dialect: Dialect, sequence?: number): EventText {
  let entry = latest?.event === event ? latest.prepared : undefined;
  if (entry === undefined) {
    // Checked in SPEC.md's names; the receiving application's name is a string either way.
    const wire = toWireEvent(event, application, systemId);
    entry = { wire, problem: eventProblem(wire), head: undefined };
    latest = { event, prepared: entry };
  }
  if (entry.problem !== undefined) return { problem: entry.problem };
  if (!dialect.identity) return { text: JSON.stringify(dialect.event(numbered(event, application, systemId, sequence))) };
  if (entry.head === undefined) entry.head = sharedHead(event, entry.wire);
  if (entry.head === null) return { text: JSON.stringify(numbered(event, application, systemId, sequence)) };
  const tail = sequence === undefined ? '}' : `,"sequence":${JSON.stringify(sequence)}}`;
  return { text: `${entry.head},"application":${JSON.stringify(application)},"asterisk_id":${JSON.stringify(systemId)}${tail}` };
}

function numbered(event: ApplicationEvent, application: string, systemId: string, sequence: number | undefined) {
  const wire = toWireEvent(event, application, systemId);
  return sequence === undefined ? wire : { ...wire, sequence };
}

/** Fields the envelope appends; an event carrying one of them itself is serialised whole. */
const APPENDED = ['application', 'asterisk_id', 'sequence'] as const;

/**
 * The wire JSON up to the appended fields. toWireEvent puts `application` and `asterisk_id` last, so
 * for an event that carries neither they close its JSON, and cutting them off leaves the head.
 */
function sharedHead(event: ApplicationEvent, wire: WireEvent): string | null {
  for (const name of APPENDED) if (Object.hasOwn(event, name)) return null;
  const json = JSON.stringify(wire);
  const appended = `,"application":${JSON.stringify(wire.application)},"asterisk_id":${JSON.stringify(wire.asterisk_id)}}`;
  // Not expected (the envelope's order is fixed), but a head that is not there is not guessed at.
  if (!json.endsWith(appended)) return null;
  return json.slice(0, json.length - appended.length);
}
