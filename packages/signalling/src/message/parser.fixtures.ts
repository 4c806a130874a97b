/**
 * Messages for the parser tests: well-formed ones (each exercising one corner of RFC 3261 §7 and
 * §25) and malformed ones next to them, each with the reason it must be refused.
 */

const crlf = (lines: string[]): string => lines.join('\r\n');

export const SDP_OFFER = crlf([
  'v=0',
  'o=alice 2890844526 2890844526 IN IP4 192.0.2.10',
  's=-',
  'c=IN IP4 192.0.2.10',
  't=0 0',
  'm=audio 49170 RTP/AVP 0 8 101',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:101 telephone-event/8000',
  'a=fmtp:101 0-16',
  'a=sendrecv',
  '',
]);

export function invite(body = SDP_OFFER, extraHeaders: string[] = []): string {
  return crlf([
    'INVITE sip:100@192.0.2.1 SIP/2.0',
    'Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds;rport',
    'Max-Forwards: 70',
    'To: <sip:100@192.0.2.1>',
    'From: "Alice" <sip:alice@192.0.2.10>;tag=1928301774',
    'Call-ID: a84b4c76e66710@pc33.example.com',
    'CSeq: 314159 INVITE',
    'Contact: <sip:alice@192.0.2.10:5060>',
    ...extraHeaders,
    'Content-Type: application/sdp',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ]);
}

export const GOOD = {
  invite: invite(),
  /** Compact forms: i f t v m l c k s e (RFC 3261 §7.3.3). */
  compact: crlf([
    'INVITE sip:bob@biloxi.example.com SIP/2.0',
    'v: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8',
    'f: Alice <sip:alice@atlanta.example.com>;tag=1928301774',
    't: Bob <sip:bob@biloxi.example.com>',
    'i: a84b4c76e66710',
    'CSeq: 1 INVITE',
    'm: <sip:alice@pc33.atlanta.example.com>',
    'k: timer, replaces',
    's: lunch',
    'e: identity',
    'c: application/sdp',
    'l: 0',
    '',
    '',
  ]),
  /** Folded header lines (RFC 3261 §7.3.1), a Via list in one header and header case variety. */
  folded: crlf([
    'OPTIONS sip:carol@chicago.example.com SIP/2.0',
    'Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKhjhs8ass877,',
    '  SIP/2.0/UDP 192.0.2.20:5070;branch=z9hG4bKfirst',
    'via: SIP/2.0/UDP 192.0.2.30;branch=z9hG4bKthird',
    'Max-Forwards: 70',
    'To: <sip:carol@chicago.example.com>',
    'From: Alice',
    '   <sip:alice@atlanta.example.com>;tag=1928301774',
    'Call-ID: a84b4c76e66710',
    'CSeq: 63104 OPTIONS',
    "Subject: I know you're there,",
    '\tpick up the phone',
    'Content-Length: 0',
    '',
    '',
  ]),
  /** IPv6 hosts in Via, Request-URI, Contact (RFC 5118). */
  ipv6: crlf([
    'REGISTER sip:[2001:db8::10] SIP/2.0',
    'Via: SIP/2.0/UDP [2001:db8::9:1]:5070;branch=z9hG4bKas3-111;received=2001:db8::9:255',
    'Max-Forwards: 70',
    'From: <sip:user@[2001:db8::10]>;tag=81x2',
    'To: <sip:user@[2001:db8::10]>',
    'Call-ID: SSG9559905523997077@hlau_4100',
    'Contact: "Caller" <sip:caller@[2001:db8::1]:5080;transport=udp>',
    'CSeq: 98176 REGISTER',
    'Content-Length: 0',
    '',
    '',
  ]),
  /** A quoted display name with escaped quotes and backslash (RFC 3261 §25.1 quoted-pair). */
  quotedDisplay: crlf([
    'BYE sip:bob@192.0.2.4 SIP/2.0',
    'Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKbye1',
    'Max-Forwards: 70',
    'From: "The \\"Boss\\" \\\\ Co" <sip:boss@example.com>;tag=a73kszlfl',
    'To: "Bob, Jr." <sip:bob@example.com>;tag=9fxced76sl',
    'Call-ID: 3848276298220188511@atlanta.example.com',
    'CSeq: 2 BYE',
    'Content-Length: 0',
    '',
    '',
  ]),
  response: crlf([
    'SIP/2.0 180 Ringing',
    'Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKnashds8;received=192.0.2.1',
    'To: Bob <sip:bob@biloxi.example.com>;tag=a6c85cf',
    'From: Alice <sip:alice@atlanta.example.com>;tag=1928301774',
    'Call-ID: a84b4c76e66710',
    'Contact: <sip:bob@192.0.2.4>',
    'CSeq: 314159 INVITE',
    'Content-Length: 0',
    '',
    '',
  ]),
  /** Bare LF line ends, tolerated. */
  bareLf: [
    'OPTIONS sip:x@192.0.2.1 SIP/2.0',
    'Via: SIP/2.0/UDP 192.0.2.2;branch=z9hG4bKlf',
    'From: <sip:a@192.0.2.2>;tag=1',
    'To: <sip:x@192.0.2.1>',
    'Call-ID: lf',
    'CSeq: 1 OPTIONS',
    'Content-Length: 0',
    '',
    '',
  ].join('\n'),
} as const;

const base = GOOD.invite;

/** Malformed input and why each must fail with SipParseError. */
export const MALFORMED: ReadonlyArray<{ name: string; input: Buffer; answerable: boolean }> = [
  {
    name: 'Content-Length larger than the body',
    input: Buffer.from(base.replace(/Content-Length: \d+/, 'Content-Length: 9999')),
    answerable: true,
  },
  {
    name: 'Content-Length not a number',
    input: Buffer.from(base.replace(/Content-Length: \d+/, 'Content-Length: ten')),
    answerable: true,
  },
  {
    name: 'Content-Length negative',
    input: Buffer.from(base.replace(/Content-Length: \d+/, 'Content-Length: -5')),
    answerable: true,
  },
  {
    name: 'two different Content-Length headers',
    input: Buffer.from(base.replace('Max-Forwards: 70', 'Content-Length: 3\r\nMax-Forwards: 70')),
    answerable: true,
  },
  { name: 'truncated start line', input: Buffer.from('INVITE sip:100@192.0.2.1\r\n\r\n'), answerable: false },
  { name: 'start line only a method', input: Buffer.from('INVITE\r\n'), answerable: false },
  { name: 'bad status code', input: Buffer.from('SIP/2.0 2000 OK\r\n\r\n'), answerable: false },
  {
    name: 'missing CRLFCRLF after the headers',
    input: Buffer.from(base.slice(0, base.indexOf('\r\n\r\n'))),
    answerable: true,
  },
  { name: 'binary garbage', input: Buffer.from([0x00, 0xff, 0x13, 0x37, 0x80, 0x81, 0x0d, 0x0a, 0x0d, 0x0a, 0xfe]), answerable: false },
  {
    name: '10k headers',
    input: Buffer.from(`OPTIONS sip:x@192.0.2.1 SIP/2.0\r\n${'X-H: v\r\n'.repeat(10_000).slice(0, 60_000)}\r\n`),
    answerable: false,
  },
  {
    name: 'header without colon',
    input: Buffer.from(base.replace('Max-Forwards: 70', 'Max-Forwards 70')),
    answerable: true,
  },
  { name: 'message over 65535 bytes', input: Buffer.alloc(70_000, 0x41), answerable: false },
  {
    name: 'header line longer than the limit',
    input: Buffer.from(base.replace('Max-Forwards: 70', `X-Long: ${'a'.repeat(9000)}`)),
    // Answered 400: the line is skipped and Via/From/To/Call-ID/CSeq are still read.
    answerable: true,
  },
  {
    name: 'more than 100 headers before the identifying ones',
    input: Buffer.from(
      base.replace('INVITE sip:100@192.0.2.1 SIP/2.0\r\n', `INVITE sip:100@192.0.2.1 SIP/2.0\r\n${'X-Pad: 1\r\n'.repeat(120)}`),
    ),
    answerable: true,
  },
  {
    name: 'unsupported SIP version',
    input: Buffer.from(base.replace('INVITE sip:100@192.0.2.1 SIP/2.0', 'INVITE sip:100@192.0.2.1 SIP/3.0')),
    answerable: true,
  },
  { name: 'empty datagram of CRLFs', input: Buffer.from('\r\n\r\n\r\n'), answerable: false },
  {
    name: 'header name with a space inside',
    input: Buffer.from(base.replace('Max-Forwards: 70', 'Max Forwards: 70')),
    answerable: true,
  },
];

/**
 * Messages that parse but whose essential headers are unreadable: the transport answers 400
 * (or drops them when even the Via is unreadable).
 */
export const BAD_ESSENTIALS: ReadonlyArray<{ name: string; input: string; answerable: boolean }> = [
  { name: 'CSeq without method', input: base.replace('CSeq: 314159 INVITE', 'CSeq: 314159'), answerable: true },
  { name: 'CSeq method differs', input: base.replace('CSeq: 314159 INVITE', 'CSeq: 314159 BYE'), answerable: true },
  { name: 'From without URI', input: base.replace(/From: .*\r\n/, 'From: "Alice" <>\r\n'), answerable: true },
  { name: 'missing Call-ID', input: base.replace(/Call-ID: .*\r\n/, ''), answerable: false },
  { name: 'unreadable Via', input: base.replace(/Via: .*\r\n/, 'Via: garbage\r\n'), answerable: false },
  { name: 'malformed Request-URI', input: base.replace('sip:100@192.0.2.1', 'sip:100@'), answerable: true },
];
