/**
 * The wire form of an event (SPEC §6.1): the domain event's own fields, already named as on the
 * wire, inside the Message/Event envelope. One copy per receiving application.
 */
import { type ApplicationEvent, formatWireDate } from '@switchboard/core';

export interface WireEvent {
  readonly type: string;
  readonly timestamp: string;
  readonly application: string;
  readonly asterisk_id: string;
  readonly [field: string]: unknown;
}

export function toWireEvent(event: ApplicationEvent, application: string, systemId: string): WireEvent {
  const { type, timestamp, ...fields } = event;
  // `application` of AppStart/AppEnd names the same application; the receiving one is authoritative.
  return { type, timestamp: formatWireDate(timestamp), ...fields, application, asterisk_id: systemId };
}
