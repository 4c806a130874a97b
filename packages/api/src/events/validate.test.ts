import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SAMPLE_CHANNEL } from '../testing/channel-fixture.js';
import type { WireEvent } from './envelope.js';
import { eventProblem } from './validate.js';

const channel = SAMPLE_CHANNEL;

const envelope = { timestamp: '2026-11-24T06:00:00.000+0000', application: 'door', asterisk_id: '02:42:ac:11:00:02' };

const appStart: WireEvent = { type: 'AppStart', ...envelope, args: ['a', 'b'], channel };
const dtmf: WireEvent = { type: 'ChannelDtmfReceived', ...envelope, digit: '5', duration_ms: 120, channel };

/** Each way an event can be wrong, and what the answer names. */
const BROKEN: readonly { readonly what: string; readonly event: WireEvent; readonly problem: string }[] = [
  { what: 'an undeclared type', event: { ...dtmf, type: 'NoSuchEvent' }, problem: 'event type NoSuchEvent is not declared' },
  {
    what: 'a missing envelope field',
    event: { ...dtmf, application: undefined } as unknown as WireEvent,
    problem: 'ChannelDtmfReceived.application is missing',
  },
  { what: 'a wrong optional field', event: { ...dtmf, sequence: 'seven' }, problem: 'ChannelDtmfReceived.sequence is not an integer' },
  {
    what: 'a missing required field',
    event: { ...dtmf, digit: undefined } as unknown as WireEvent,
    problem: 'ChannelDtmfReceived.digit is missing',
  },
  {
    what: 'a string where an integer goes',
    event: { ...dtmf, duration_ms: '120' },
    problem: 'ChannelDtmfReceived.duration_ms is not an integer',
  },
  {
    what: 'a fraction where an integer goes',
    event: { ...dtmf, duration_ms: 1.5 },
    problem: 'ChannelDtmfReceived.duration_ms is not an integer',
  },
  { what: 'a list that is not one', event: { ...appStart, args: 'a' }, problem: 'AppStart.args is not a list' },
  { what: 'a wrong list element', event: { ...appStart, args: ['a', 2] }, problem: 'AppStart.args[1] is not a string' },
  { what: 'a model that is not an object', event: { ...dtmf, channel: 'c' }, problem: 'ChannelDtmfReceived.channel is not a Channel' },
  {
    what: 'a wrong field two models down',
    event: { ...dtmf, channel: { ...channel, dialplan: { ...channel.dialplan, priority: 'one' } } },
    problem: 'ChannelDtmfReceived.channel.dialplan.priority is not an integer',
  },
  {
    what: 'an undeclared LIST value',
    event: { ...dtmf, channel: { ...channel, state: 'Dancing' } },
    problem: "ChannelDtmfReceived.channel.state has the undeclared value 'Dancing'",
  },
];

describe('eventProblem (outgoing events against their models)', () => {
  it('passes events that match their models, optional fields absent or present', () => {
    assert.equal(eventProblem(appStart), undefined);
    assert.equal(eventProblem(dtmf), undefined);
    const { asterisk_id: _optional, ...withoutOptional } = dtmf;
    assert.equal(eventProblem(withoutOptional as WireEvent), undefined);
    assert.equal(eventProblem({ ...dtmf, sequence: 7 }), undefined);
    assert.equal(eventProblem({ ...appStart, args: [] }), undefined);
  });

  for (const { what, event, problem } of BROKEN) {
    it(`names ${what}`, () => {
      assert.equal(eventProblem(event), problem);
      // The compiled check keeps nothing from one event to the next: the good event still passes.
      assert.equal(eventProblem(event.type === 'AppStart' ? appStart : dtmf), undefined);
    });
  }

  it('checks the same event the same way every time (models compiled once)', () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(eventProblem(dtmf), undefined);
      assert.equal(eventProblem({ ...dtmf, digit: 5 }), 'ChannelDtmfReceived.digit is not a string');
    }
  });
});
