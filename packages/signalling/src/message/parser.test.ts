import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SipParseError } from '../errors.js';
import { parseMessage } from './parser.js';
import { BAD_ESSENTIALS, GOOD, invite, MALFORMED, SDP_OFFER } from './parser.fixtures.js';
import { serializeMessage } from './serializer.js';
import { SipRequest, type SipMessage } from './sip-message.js';
import { canAnswer, findEssentialProblem } from './validate.js';

const parse = (text: string): SipMessage => parseMessage(Buffer.from(text));

function asRequest(message: SipMessage): SipRequest {
  assert.ok(message instanceof SipRequest, 'expected a request');
  return message;
}

describe('parser: well-formed messages', () => {
  it('parses an INVITE with an SDP body', () => {
    const request = asRequest(parse(GOOD.invite));
    assert.equal(request.method, 'INVITE');
    assert.equal(request.requestUri, 'sip:100@192.0.2.1');
    const uri = request.uri;
    assert.equal(uri.kind, 'sip');
    assert.equal(uri.kind === 'sip' ? uri.user : '', '100');
    assert.equal(request.topVia.branch, 'z9hG4bK776asdhds');
    assert.equal(request.topVia.rport, null);
    assert.equal(request.from.displayName, 'Alice');
    assert.equal(request.from.tag, '1928301774');
    assert.equal(request.to.tag, undefined);
    assert.deepEqual(request.cseq, { seq: 314159, method: 'INVITE' });
    assert.equal(request.callId, 'a84b4c76e66710@pc33.example.com');
    assert.equal(request.contentType, 'application/sdp');
    assert.equal(request.bodyText, SDP_OFFER);
    assert.equal(findEssentialProblem(request), undefined);
  });

  it('replaces the top Via: the fields and the parsed Vias agree, whether or not they were read before', () => {
    const raw = invite(SDP_OFFER, ['Via: SIP/2.0/UDP 198.51.100.7;branch=z9hG4bKproxy, SIP/2.0/TCP 203.0.113.9;branch=z9hG4bKfirst']);
    for (const readFirst of [true, false]) {
      const request = asRequest(parse(raw));
      if (readFirst) assert.equal(request.vias.length, 3);
      const top = request.topVia.clone();
      top.params.set('received', '192.0.2.99');
      request.replaceTopVia(top);
      const reparsed = asRequest(parseMessage(serializeMessage(request)));
      const describe = (message: SipRequest) => message.vias.map((via) => via.toString());
      assert.deepEqual(describe(request), describe(reparsed));
      assert.equal(request.topVia.received, '192.0.2.99');
      assert.deepEqual(
        request.vias.slice(1).map((via) => via.host),
        ['198.51.100.7', '203.0.113.9'],
      );
    }
  });

  it('expands compact header forms', () => {
    const request = asRequest(parse(GOOD.compact));
    assert.equal(request.callId, 'a84b4c76e66710');
    assert.equal(request.from.tag, '1928301774');
    assert.equal(request.to.displayName, 'Bob');
    assert.equal(request.topVia.host, 'pc33.atlanta.example.com');
    assert.equal(request.contacts.length, 1);
    assert.deepEqual(request.getHeaderList('Supported'), ['timer', 'replaces']);
    assert.equal(request.getHeader('Subject'), 'lunch');
    assert.equal(request.getHeader('Content-Encoding'), 'identity');
    assert.equal(request.contentType, 'application/sdp');
    assert.equal(request.body.length, 0);
    const names = request.headers.map((h) => h.name);
    assert.ok(names.includes('Call-ID') && names.includes('Via') && names.includes('Contact'));
  });

  it('unfolds continuation lines and splits a Via list', () => {
    const request = asRequest(parse(GOOD.folded));
    const vias = request.vias;
    assert.equal(vias.length, 3);
    assert.equal(vias[0].branch, 'z9hG4bKhjhs8ass877');
    assert.equal(vias[1].host, '192.0.2.20');
    assert.equal(vias[1].port, 5070);
    assert.equal(vias[2].branch, 'z9hG4bKthird');
    assert.equal(request.getHeader('Subject'), "I know you're there, pick up the phone");
    assert.equal(request.from.displayName, 'Alice');
    assert.equal(request.from.uri.toString(), 'sip:alice@atlanta.example.com');
  });

  it('reads IPv6 references in Request-URI, Via and Contact', () => {
    const request = asRequest(parse(GOOD.ipv6));
    const uri = request.uri;
    assert.equal(uri.kind === 'sip' ? uri.host : '', '2001:db8::10');
    assert.equal(request.topVia.host, '2001:db8::9:1');
    assert.equal(request.topVia.port, 5070);
    assert.equal(request.topVia.received, '2001:db8::9:255');
    const contact = request.contacts[0];
    assert.equal(contact.displayName, 'Caller');
    assert.equal(contact.uri.kind === 'sip' ? contact.uri.port : 0, 5080);
    assert.equal(contact.uri.toString(), 'sip:caller@[2001:db8::1]:5080;transport=udp');
  });

  it('unescapes quoted display names', () => {
    const request = asRequest(parse(GOOD.quotedDisplay));
    assert.equal(request.from.displayName, 'The "Boss" \\ Co');
    assert.equal(request.to.displayName, 'Bob, Jr.');
    assert.equal(request.to.tag, '9fxced76sl');
  });

  it('parses a response', () => {
    const response = parse(GOOD.response);
    assert.equal(response.type, 'response');
    if (response.type !== 'response') return;
    assert.equal(response.status, 180);
    assert.equal(response.reason, 'Ringing');
    assert.equal(response.topVia.received, '192.0.2.1');
  });

  it('tolerates bare LF line ends and leading CRLFs', () => {
    const request = asRequest(parse(`\r\n\r\n${GOOD.bareLf}`));
    assert.equal(request.method, 'OPTIONS');
    assert.equal(request.callId, 'lf');
    assert.equal(findEssentialProblem(request), undefined);
  });

  it('truncates a datagram body longer than Content-Length (RFC 3261 §18.3)', () => {
    const request = asRequest(parse(`${GOOD.invite}trailing junk`));
    assert.equal(request.bodyText, SDP_OFFER);
  });

  it('takes the rest of a datagram as body when Content-Length is absent', () => {
    const text = invite().replace(/Content-Length: \d+\r\n/, '');
    const request = asRequest(parse(text));
    assert.equal(request.bodyText, SDP_OFFER);
    assert.throws(() => parseMessage(Buffer.from(text), { datagram: false }), SipParseError);
  });
});

describe('parser: malformed messages', () => {
  for (const fixture of MALFORMED) {
    it(`refuses ${fixture.name} with SipParseError`, () => {
      assert.throws(
        () => parseMessage(fixture.input),
        (err: unknown) => {
          assert.ok(err instanceof SipParseError, `expected SipParseError, got ${String(err)}`);
          const answerable = err.partial instanceof SipRequest && canAnswer(err.partial);
          assert.equal(answerable, fixture.answerable, `answerable for ${fixture.name}: ${err.message}`);
          return true;
        },
      );
    });
  }

  it('reports 505 for an unsupported version', () => {
    const fixture = MALFORMED.find((f) => f.name === 'unsupported SIP version');
    assert.ok(fixture);
    assert.throws(
      () => parseMessage(fixture.input),
      (err: unknown) => err instanceof SipParseError && err.status === 505,
    );
  });

  for (const fixture of BAD_ESSENTIALS) {
    it(`flags ${fixture.name} as unusable`, () => {
      const message = parse(fixture.input);
      assert.notEqual(findEssentialProblem(message), undefined);
      assert.equal(canAnswer(message), fixture.answerable);
    });
  }
});

describe('parser: fuzz', () => {
  /** A small deterministic PRNG so a failure can be replayed. */
  function prng(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const seeds = [GOOD.invite, GOOD.compact, GOOD.folded, GOOD.ipv6, GOOD.quotedDisplay, GOOD.response, GOOD.bareLf].map((text) =>
    Buffer.from(text),
  );
  const alphabet = Buffer.from(':;,<>"\\ \t\r\n@[]=/%0123456789abcSIP.z9hG4bK-');

  function mutate(random: () => number): Buffer {
    const choice = random();
    if (choice < 0.1) {
      const out = Buffer.alloc(Math.floor(random() * 600));
      for (let i = 0; i < out.length; i++) out[i] = Math.floor(random() * 256);
      return out;
    }
    const seed = seeds[Math.floor(random() * seeds.length)];
    const bytes = Buffer.from(seed);
    const edits = 1 + Math.floor(random() * 8);
    let out: Buffer = bytes;
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(random() * out.length);
      const kind = random();
      if (kind < 0.4) {
        out[at] = random() < 0.5 ? alphabet[Math.floor(random() * alphabet.length)] : Math.floor(random() * 256);
      } else if (kind < 0.6) {
        out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + Math.floor(random() * 20)))]);
      } else if (kind < 0.8) {
        const insert = Buffer.from([alphabet[Math.floor(random() * alphabet.length)]]);
        out = Buffer.concat([out.subarray(0, at), insert, out.subarray(at)]);
      } else {
        out = out.subarray(0, at);
      }
    }
    return out;
  }

  it('throws nothing but SipParseError on 20k mutated inputs, including the lazy header views', () => {
    const random = prng(0x5eed);
    let parsed = 0;
    for (let i = 0; i < 20_000; i++) {
      const input = mutate(random);
      let message: SipMessage;
      try {
        message = parseMessage(input);
      } catch (err) {
        if (!(err instanceof SipParseError))
          throw new Error(`input #${i} threw ${String(err)}: ${JSON.stringify(input.toString('latin1'))}`);
        continue;
      }
      parsed++;
      try {
        findEssentialProblem(message);
        canAnswer(message);
        void message.contacts;
        void message.recordRoutes;
        void message.vias;
        serializeMessage(message);
      } catch (err) {
        if (!(err instanceof SipParseError))
          throw new Error(`input #${i} view threw ${String(err)}: ${JSON.stringify(input.toString('latin1'))}`);
      }
    }
    assert.ok(parsed > 1000, `only ${parsed} inputs parsed; the mutations are too destructive to test the views`);
  });
});
