import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { dialectOf } from '../dialect/dialect.js';
import { SAMPLE_CHANNEL } from '../testing/channel-fixture.js';
import { toWireEvent } from './envelope.js';
import { eventText } from './event-text.js';

const SYSTEM = '02:42:ac:11:00:02';

const channel = SAMPLE_CHANNEL;

const EVENTS: readonly ApplicationEvent[] = [
  { type: 'ChannelVarset', timestamp: new Date(), channel, variable: 'X', value: 'ünïcode ✓' },
  { type: 'ChannelStateChange', timestamp: new Date(), channel: { ...channel, state: 'Up' } },
  // Names its application itself: serialised whole, with the receiving application's name.
  { type: 'AppStart', timestamp: new Date(), application: 'door', args: ['a', 'b'], channel },
];

/** What serialising the whole wire event gives (the form before event-text.ts). */
function whole(event: ApplicationEvent, application: string, dialect: 'switchboard' | 'asterisk', sequence?: number): string {
  const wire = toWireEvent(event, application, SYSTEM);
  return JSON.stringify(dialectOf(dialect).event(sequence === undefined ? wire : { ...wire, sequence }));
}

describe('eventText (an event prepared once for every application)', () => {
  for (const event of EVENTS) {
    for (const dialect of ['switchboard', 'asterisk'] as const) {
      it(`${event.type} in the ${dialect} dialect is byte for byte the whole wire event`, () => {
        for (const [application, sequence] of [
          ['door', 7],
          ['other-app', 1],
          ['door', undefined],
        ] as const) {
          const prepared = eventText(event, application, SYSTEM, dialectOf(dialect), sequence);
          assert.equal(prepared.problem, undefined);
          assert.equal(prepared.problem === undefined ? prepared.text : '', whole(event, application, dialect, sequence));
        }
      });
    }
  }

  it('refuses an event that does not match its model, for every application', () => {
    const broken = { type: 'ChannelVarset', timestamp: new Date(), channel, variable: 42, value: 'x' } as unknown as ApplicationEvent;
    for (const application of ['door', 'other-app']) {
      const prepared = eventText(broken, application, SYSTEM, dialectOf('switchboard'), 1);
      assert.match(prepared.problem ?? '', /variable/);
    }
  });
});
