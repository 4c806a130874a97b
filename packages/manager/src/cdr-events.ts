/**
 * The `Cdr` event (class cdr): one call detail record per call, sent when its first channel hangs
 * up, with the original's fields. Core keeps no call detail records yet, so they are assembled
 * here from the bus: a channel's life (created, answered, last dialplan application, hangup) and
 * the channel it dialled. A channel dialled by another is part of its caller's record, not its own.
 * When core gains a CDR engine, this should read its records instead.
 */
import type { TimedDomainEvent } from '@switchboard/core';
import type { ManagerEvent } from './fields.js';

interface Leg {
  channel: string;
  uniqueId: string;
  start: Date;
  answer: Date | undefined;
  source: string;
  callerId: string;
  destination: string;
  destinationContext: string;
  destinationChannel: string;
  lastApplication: string;
  lastData: string;
  accountCode: string;
  /** Dialled by another channel: reported in the caller's record. */
  dialled: boolean;
}

/** `2025-03-17 08:32:35` in UTC, as the original writes CDR times. */
function cdrTime(date: Date | undefined): string {
  return date === undefined ? '' : date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Q.850 causes of an unanswered call → the original's dispositions. */
function disposition(answered: boolean, cause: number): string {
  if (answered) return 'ANSWERED';
  if (cause === 17) return 'BUSY';
  if (cause === 16 || cause === 18 || cause === 19 || cause === 21) return 'NO ANSWER';
  if (cause === 34 || cause === 38 || cause === 42) return 'CONGESTION';
  return 'FAILED';
}

export class CdrEvents {
  readonly #legs = new Map<string, Leg>();

  /** Feeds one bus event; returns the Cdr event when a record is complete. */
  observe(event: TimedDomainEvent, linkedId: (channelId: string) => string): ManagerEvent[] {
    switch (event.type) {
      case 'ChannelCreated': {
        const c = event.channel;
        this.#legs.set(c.id, {
          channel: c.name,
          uniqueId: c.id,
          start: event.timestamp,
          answer: c.state === 'Up' ? event.timestamp : undefined,
          source: c.caller.number,
          callerId: c.caller.name ? `"${c.caller.name}" <${c.caller.number}>` : c.caller.number,
          destination: c.dialplan.exten,
          destinationContext: c.dialplan.context,
          destinationChannel: '',
          lastApplication: '',
          lastData: '',
          accountCode: c.accountcode,
          dialled: false,
        });
        return [];
      }
      case 'ChannelStateChange': {
        const leg = this.#legs.get(event.channel.id);
        if (leg && event.channel.state === 'Up') leg.answer ??= event.timestamp;
        return [];
      }
      case 'ChannelDialplan': {
        const leg = this.#legs.get(event.channel.id);
        if (leg) {
          leg.lastApplication = event.dialplan_app;
          leg.lastData = event.dialplan_app_data;
          leg.destination = event.channel.dialplan.exten;
          leg.destinationContext = event.channel.dialplan.context;
        }
        return [];
      }
      case 'Dial': {
        if (!event.caller) return [];
        const caller = this.#legs.get(event.caller.id);
        const peer = this.#legs.get(event.peer.id);
        if (caller) caller.destinationChannel = event.peer.name;
        if (peer) peer.dialled = true;
        return [];
      }
      case 'ChannelDestroyed': {
        const leg = this.#legs.get(event.channel.id);
        this.#legs.delete(event.channel.id);
        if (!leg || leg.dialled) return [];
        leg.accountCode = event.channel.accountcode;
        const end = event.timestamp;
        const seconds = (from: Date | undefined) =>
          from === undefined ? 0 : Math.max(0, Math.round((end.getTime() - from.getTime()) / 1000));
        return [
          {
            name: 'Cdr',
            classes: ['cdr'],
            fields: [
              ['AccountCode', leg.accountCode],
              ['Source', leg.source],
              ['Destination', leg.destination],
              ['DestinationContext', leg.destinationContext],
              ['CallerID', leg.callerId],
              ['Channel', leg.channel],
              ['DestinationChannel', leg.destinationChannel],
              ['LastApplication', leg.lastApplication],
              ['LastData', leg.lastData],
              ['StartTime', cdrTime(leg.start)],
              ['AnswerTime', cdrTime(leg.answer)],
              ['EndTime', cdrTime(end)],
              ['Duration', String(seconds(leg.start))],
              ['BillableSeconds', String(seconds(leg.answer))],
              ['Disposition', disposition(leg.answer !== undefined, event.cause)],
              ['AMAFlags', 'DOCUMENTATION'],
              ['UniqueID', leg.uniqueId],
              ['LinkedID', linkedId(leg.uniqueId)],
              ['UserField', ''],
            ],
          },
        ];
      }
      default:
        return [];
    }
  }
}
