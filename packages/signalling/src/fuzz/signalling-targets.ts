/**
 * Fuzz targets of the SIP stack: the message parser with every lazy header view a layer above
 * reads, the checks made before a transaction exists and the 400 built for a refused request; SDP
 * offer/answer; digest credentials and the authenticator. The expected refusal is SipParseError
 * (or an outcome saying "refused"); any other exception is a bug.
 * `regressions` holds the inputs that broke the server once (issue 18): keep adding to it.
 */
import { silentLogger, systemClock } from '@switchboard/core';
import type { FuzzInput, FuzzTarget } from '@switchboard/core/fuzz';
import fc from 'fast-check';
import { DigestAuthenticator } from '../driver/auth/digest-auth.js';
import { parseDigestCredentials } from '../driver/auth/digest.js';
import { negotiateAnswer, negotiateOffer } from '../driver/sdp/sdp.js';
import { SipParseError } from '../errors.js';
import { createResponse } from '../message/builders.js';
import { GOOD, MALFORMED, SDP_OFFER } from '../message/parser.fixtures.js';
import { parseMessage } from '../message/parser.js';
import { SipRequest, type SipMessage } from '../message/sip-message.js';
import { canAnswer, findEssentialProblem } from '../message/validate.js';

const b = (text: string): FuzzInput => Buffer.from(text, 'latin1');

function invite(extra: string[], contact = '<sip:a@127.0.0.9:5099>', body = ''): FuzzInput {
  return b(
    [
      'INVITE sip:200@127.0.0.1 SIP/2.0',
      'Via: SIP/2.0/UDP 127.0.0.9:5099;branch=z9hG4bKf1;rport',
      ...extra,
      'From: <sip:a@127.0.0.9>;tag=1',
      'To: <sip:200@127.0.0.1>',
      'Call-ID: fuzz',
      'CSeq: 1 INVITE',
      `Contact: ${contact}`,
      body === '' ? 'Content-Length: 0' : `Content-Type: application/sdp\r\nContent-Length: ${body.length}`,
      '',
      body,
    ].join('\r\n'),
  );
}

const NUMERIC_SDP = 'v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 45000 123 0\r\na=rtpmap:0 1234/8000\r\n';

/** Inputs that once took something down; each is checked on every run. */
export const SIP_REGRESSIONS: readonly FuzzInput[] = [
  invite([], '<sip:a@127.0.0.9:5099'),
  invite([], '"unterminated <sip:a@b>'),
  invite(Array.from({ length: 120 }, (_, i) => `X-Pad-${i}: ${i}`)),
  invite([`Subject: ${'x'.repeat(9000)}`]),
  invite(['Via: SIP/2.0/UDP 127.0.0.9;branch=z9hG4bKx;maddr=192.0.2.1;received=192.0.2.2;rport=9']),
  invite([], undefined, NUMERIC_SDP),
];

export const SDP_REGRESSIONS: readonly FuzzInput[] = [
  b(NUMERIC_SDP),
  b(
    'v=0\r\nc=IN IP4 1.2.3.4\r\nm=123 45000 RTP/AVP 0\r\nm=audio x RTP/AVP 0\r\nm=video 1 RTP/AVPF 96\r\na=rtpmap:96 5/90000\r\na=fmtp:96 7\r\na=rtcp-fb:96 1 2\r\n',
  ),
];

/** Reads every view the transport, the transaction layer and the UA core may read. */
function readEverything(message: SipMessage): void {
  const problem = findEssentialProblem(message);
  if (message.type === 'request') {
    canAnswer(message);
    if (problem === undefined) {
      createResponse(message, 400, { toTag: 'x' });
      void message.to.tag;
    }
  }
  for (const read of [
    () => message.vias,
    () => message.contacts,
    () => message.recordRoutes,
    () => message.routes,
    () => message.contentType,
    () => message.bodyText,
    () => message.cseq,
    () => message.from,
    () => message.to,
    () => (message.type === 'request' ? message.uri : undefined),
  ]) {
    try {
      read();
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
    }
  }
}

const token = fc.stringMatching(/^[A-Za-z0-9.!%*_+`'~-]{1,12}$/);
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc
    .tuple(
      fc.constantFrom('"', '<', ''),
      fc.constantFrom('sip:', 'sips:', 'tel:', ''),
      token,
      fc.constantFrom('@', ''),
      token,
      fc.constantFrom('>', ''),
      fc.constantFrom(';tag=1', ';lr', ';maddr=1.2.3.4', ''),
    )
    .map((parts) => parts.join('')),
);
const sipArbitrary = fc
  .tuple(
    fc.constantFrom('INVITE', 'REGISTER', 'SUBSCRIBE', 'ACK', 'BYE', 'OPTIONS', 'SIP/2.0'),
    fc.array(
      fc.tuple(
        fc.constantFrom(
          'Via',
          'v',
          'From',
          'To',
          'Call-ID',
          'CSeq',
          'Contact',
          'm',
          'Content-Length',
          'Route',
          'Record-Route',
          'Expires',
          'Event',
        ),
        headerValue,
      ),
      { maxLength: 14 },
    ),
  )
  .map(([method, headers]) =>
    b(
      `${method === 'SIP/2.0' ? 'SIP/2.0 200 OK' : `${method} sip:x@y SIP/2.0`}\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`,
    ),
  );

const sdpArbitrary = fc
  .array(
    fc.oneof(
      fc
        .tuple(
          fc.constantFrom('audio', 'video', '1', ''),
          fc.oneof(fc.nat(70000).map(String), fc.string({ maxLength: 4 })),
          fc.constantFrom('RTP/AVP', 'RTP/AVPF', '9', 'x'),
          fc.array(fc.nat(130), { maxLength: 4 }),
        )
        .map(([type, port, proto, pts]) => `m=${type} ${port} ${proto} ${pts.join(' ')}`),
      fc
        .tuple(
          fc.nat(130),
          fc.constantFrom('PCMU', 'opus', 'telephone-event', 'H264', '12', ''),
          fc.constantFrom('/8000', '/48000/2', '/x', ''),
        )
        .map(([pt, name, rate]) => `a=rtpmap:${pt} ${name}${rate}`),
      fc.constantFrom(
        'c=IN IP4 1.2.3.4',
        'c=IN IP6 ::1',
        'c=IN IP4 1',
        'a=sendonly',
        'a=inactive',
        'a=fmtp:96 profile-level-id=42e01f',
        'a=rtcp-fb:96 nack pli',
        'a=ptime:x',
      ),
    ),
    { maxLength: 12 },
  )
  .map((lines) => b(`v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\nt=0 0\r\n${lines.join('\r\n')}\r\n`));

const authenticator = new DigestAuthenticator({
  endpoints: [
    {
      name: 'alice',
      context: 'default',
      codecs: ['PCMU'],
      aors: ['alice'],
      auth: 'alice-auth',
      mailboxes: [],
      dtmfMode: 'rfc4733',
      forceRport: false,
      rewriteContact: false,
      rtpSymmetric: false,
      directMedia: false,
    },
  ],
  auths: [{ name: 'alice-auth', authType: 'userpass', username: 'alice', password: 'wonderland' }],
  clock: systemClock,
  logger: silentLogger,
  limits: { maxFailures: Number.MAX_SAFE_INTEGER, maxGlobalFailures: Number.MAX_SAFE_INTEGER },
});

const DIGEST_SEED =
  'Digest username="alice", realm="switchboard", nonce="abc", uri="sip:127.0.0.1", response="0123456789abcdef0123456789abcdef", algorithm=MD5, qop=auth, nc=00000001, cnonce="x"';

export const signallingFuzzTargets: readonly FuzzTarget[] = [
  {
    name: 'signalling/sip-parser',
    seeds: [...Object.values(GOOD).map((m) => Buffer.from(m)), ...MALFORMED.map((m) => m.input)],
    regressions: SIP_REGRESSIONS,
    dictionary: [
      '\r\n',
      ': ',
      ';',
      ',',
      '<',
      '>',
      '"',
      'sip:',
      'sips:',
      ';branch=z9hG4bK',
      ';tag=',
      ';rport',
      ';maddr=',
      ';received=',
      'Content-Length: ',
      '4294967296',
      '-1',
      ' \t',
      '%00',
      '[::1]',
    ],
    arbitrary: sipArbitrary,
    check(input) {
      let message: SipMessage;
      try {
        message = parseMessage(input);
      } catch (err) {
        if (!(err instanceof SipParseError)) throw err;
        if (err.partial instanceof SipRequest) readEverything(err.partial);
        return;
      }
      readEverything(message);
    },
  },
  {
    name: 'signalling/sdp',
    seeds: [b(Buffer.from(SDP_OFFER).toString('latin1'))],
    regressions: SDP_REGRESSIONS,
    dictionary: [
      '\r\n',
      'm=audio ',
      'm=video ',
      'a=rtpmap:',
      'a=fmtp:',
      'a=rtcp-fb:',
      'c=IN IP4 ',
      ' RTP/AVP ',
      '/8000',
      '65536',
      '0',
      ' ',
    ],
    arbitrary: sdpArbitrary,
    check(input) {
      const text = input.toString('utf8');
      negotiateOffer(text, ['PCMU', 'PCMA', 'G722', 'opus', 'L16'], ['H264', 'VP8']);
      negotiateAnswer(text, ['PCMU', 'opus'], ['VP8']);
    },
  },
  {
    name: 'signalling/digest',
    seeds: [b(DIGEST_SEED)],
    regressions: [b('Digest username="alice", uri="sip:elsewhere", response="x", nonce="y", realm="switchboard"')],
    dictionary: ['"', ',', '=', 'Digest ', 'algorithm=SHA-256', 'qop=auth', 'nc=', 'uri="', '\\"', 'realm="switchboard"'],
    arbitrary: fc.string({ maxLength: 200 }).map((text) => b(`Digest ${text}`)),
    check(input) {
      const header = input.toString('latin1');
      parseDigestCredentials(header);
      const register = [
        'REGISTER sip:127.0.0.1 SIP/2.0',
        'Via: SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bKr1',
        'From: <sip:alice@127.0.0.1>;tag=a',
        'To: <sip:alice@127.0.0.1>',
        'Call-ID: fuzz',
        'CSeq: 1 REGISTER',
        `Authorization: ${header.replace(/[\r\n]/g, ' ')}`,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n');
      let request: SipMessage;
      try {
        request = parseMessage(b(register));
      } catch (err) {
        if (err instanceof SipParseError) return;
        throw err;
      }
      if (request instanceof SipRequest) authenticator.authenticate(request, { address: '192.0.2.7', port: 5060 });
    },
  },
];
