/**
 * The wire form of the events a connection produces itself (models in
 * ../swagger/models/connection-events.ts): they share the Message/Event envelope of core's events.
 */
import { formatWireDate } from '@switchboard/core';
import type { WireEvent } from './envelope.js';
import type { ResumeGap } from './event-journal.js';

function envelope(type: string, application: string, systemId: string): WireEvent {
  return { type, timestamp: formatWireDate(new Date()), application, asterisk_id: systemId };
}

export function eventsLostNotice(application: string, gap: ResumeGap, systemId: string): WireEvent {
  return {
    ...envelope('EventsLost', application, systemId),
    first_lost_sequence: gap.firstLost,
    ...(gap.lastLost !== undefined ? { last_lost_sequence: gap.lastLost } : {}),
    reason: gap.reason,
  };
}

export function registrationNotice(
  type: 'ApplicationRegistered' | 'ApplicationUnregistered',
  application: string,
  systemId: string,
): WireEvent {
  return envelope(type, application, systemId);
}

export interface RestAnswer {
  readonly transactionId: string;
  readonly requestId: string;
  readonly status: number;
  readonly reason: string;
  readonly uri: string;
  /** The JSON text of the answer's body, when it has one. */
  readonly body?: string;
}

export function restResponse(application: string, answer: RestAnswer, systemId: string): WireEvent {
  return {
    ...envelope('RESTResponse', application, systemId),
    transaction_id: answer.transactionId,
    request_id: answer.requestId,
    status_code: answer.status,
    reason_phrase: answer.reason,
    uri: answer.uri,
    ...(answer.body !== undefined ? { content_type: 'application/json', message_body: answer.body } : {}),
  };
}
