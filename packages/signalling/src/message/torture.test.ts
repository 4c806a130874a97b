/**
 * RFC 4475 torture tests, §3.1.1 (valid messages) and §3.1.2 (invalid messages). The messages are
 * written here from the RFC's descriptions of what each one exercises (they are not the RFC's
 * byte-for-byte examples): tortuous whitespace and folding, escapes, long values, odd transports,
 * multipart bodies, bad Content-Length, overlarge scalars, broken quoting and URIs, bad versions.
 *
 * Each message is checked twice:
 * - by the parser alone: a valid message parses (and passes the essential-header checks), an
 *   invalid one is refused with SipParseError (or by the checks) — never any other exception;
 * - through the whole stack over real UDP on loopback (transport → transactions → UA core → driver):
 *   a valid request gets a final response, an invalid one gets 400 (505 for the version) or nothing,
 *   and afterwards the stack still answers an OPTIONS, so nothing crashed or hung.
 *
 * `PORT` in a message is replaced by the test peer's port so responses find their way back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelDriverHost, ChannelTechnologyEvents, CreateLegRequest, LegRemote, MediaLegInfo } from '@switchboard/core';
import { SipParseError } from '../errors.js';
import { SipDriver } from '../driver/sip-driver.js';
import type { SipMediaEngine } from '../driver/calls/inbound-call.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { UdpPeer } from '../test-support/udp-peer.js';
import { parseMessage } from './parser.js';
import type { SipMessage } from './sip-message.js';
import { findEssentialProblem } from './validate.js';

/** Lines joined with CRLF; `Content-Length: LEN` is filled in with the body's byte length. */
function msg(lines: string[], body = ''): string {
  const head = lines.join('\r\n').replace(/Content-Length(\s*):(\s*)LEN/, `Content-Length$1:$2${Buffer.byteLength(body)}`);
  return `${head}\r\n\r\n${body}`;
}

const SDP = [
  'v=0',
  'o=mhandley 29739 7272939 IN IP4 192.0.2.3',
  's=-',
  'c=IN IP4 192.0.2.4',
  't=0 0',
  'm=audio 49217 RTP/AVP 0 12',
  'm=video 3227 RTP/AVP 31',
  'a=rtpmap:31 LPC',
  '',
].join('\r\n');

interface Torture {
  section: string;
  name: string;
  text: string;
  /** valid: must parse and (as a request) be answered; invalid: refused or dropped; tolerated: either. */
  kind: 'valid' | 'invalid' | 'tolerated';
  /** For invalid requests the stack must answer, the status it must use. */
  status?: number;
}

const VIA = 'Via: SIP/2.0/UDP 127.0.0.1:PORT;rport;branch=z9hG4bK';

const TORTURES: Torture[] = [
  {
    section: '3.1.1.1',
    name: 'wsinv: short tortuous INVITE (folding, odd whitespace, compact forms, unknown headers, escapes)',
    kind: 'valid',
    text: msg(
      [
        'INVITE sip:vivekg@chair-dnrc.example.com;unknownparam SIP/2.0',
        'TO :',
        ' sip:vivekg@chair-dnrc.example.com ;   tag    = 1918181833n',
        'from   : "J Rosenberg \\\\\\""       <sip:jdrosen@example.com>',
        '  ;',
        '  tag = 98asjd8',
        'MaX-fOrWaRdS: 0068',
        'Call-ID: wsinv.ndaksdj@192.0.2.1',
        'Content-Length   : LEN',
        'cseq: 0009',
        '  INVITE',
        `${VIA}1wsinv`,
        'Via  : SIP  /   2.0',
        ' /UDP',
        '    192.0.2.2;branch=390skdjuw',
        's :',
        'NewFangledHeader:   newfangled value',
        ' continued newfangled value',
        'UnknownHeaderWithUnusualValue: ;;,,;;,;',
        'Content-Type: application/sdp',
        'Route:',
        ' <sip:services.example.com;lr;unknownwith=value;unknown-no-value>',
        'v:  SIP  / 2.0  / TCP     spindle.example.com   ;',
        '  branch  =   z9hG4bK9ikj8  ,',
        ' SIP  /    2.0   / UDP  192.168.255.111   ; branch=',
        ' z9hG4bK30239',
        'm:"Quoted string \\"\\"" <sip:jdrosen@example.com> ; newparam =',
        '      newvalue ;',
        '  secondparam ; q = 0.33',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.1.2',
    name: 'intmeth: a method made of every token character',
    kind: 'valid',
    text: msg([
      "!interesting-Method0123456789_*+`.%indeed'~ sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*:&it+has=1,weird!*pas$wo~d_too.(doesn't-it)@example.com SIP/2.0",
      `${VIA}2intmeth`,
      'To: "BEL:\\\u0007 NUL:\\\u0000 DEL:\\\u007f" <sip:1_unusual.URI~(to-be!sure)&isn\'t+it$/crazy?,/;;*@example.com>',
      "From: token1~` token2'+_ token3*%!.- <sip:mundane@example.com>;fromParam''~+*_!.-%=\"\u0440\u0430\u0431\u043e\u0442\u0430\u044e\u0449\u0438\u0439\";tag=_token~1'+`*%!-.",
      'Call-ID: intmeth.word%ZK-!.*_+\'@word`~)(><:\\/"][?}{',
      "CSeq: 139122385 !interesting-Method0123456789_*+`.%indeed'~",
      'Max-Forwards: 255',
      "extensionHeader-!.%*+_`'~:\ufeff\u5927\u505c\u96fb",
      'Content-Length: 0',
    ]),
  },
  {
    section: '3.1.1.3',
    name: 'esc01: valid %-escapes in the Request-URI user part',
    kind: 'valid',
    text: msg(
      [
        'OPTIONS sip:%73ips%3Auser%40example.com@example.net SIP/2.0',
        'To: sip:%75se%72@example.com',
        'From: <sip:I%20have%20spaces@example.net>;tag=938',
        'Max-Forwards: 87',
        'i: esc01.239409asdfakjkn23onasd0-3234',
        'CSeq: 234234 OPTIONS',
        `${VIA}3esc01`,
        'C: application/sdp',
        'Contact:',
        '  <sip:cal%6Cer@host5.example.net;%6C%72;n%61me=v%61lue%25%34%31>',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.1.4',
    name: 'escnull: escaped NULs in URIs',
    kind: 'valid',
    text: msg([
      'REGISTER sip:example.com SIP/2.0',
      'To: sip:null-%00-null@example.com',
      'From: sip:null-%00-null@example.com;tag=839923423',
      'Max-Forwards: 70',
      'Call-ID: escnull.39203ndfvkjdasfkq3w4otrq0adsfdfnavd',
      'CSeq: 14398234 REGISTER',
      `${VIA}4escnull`,
      'Contact: <sip:%00@host5.example.com>',
      'Contact: <sip:%00%00@host5.example.com>',
      'L:0',
    ]),
  },
  {
    section: '3.1.1.5',
    name: 'esc02: % that is not an escape, in a method name and display names',
    kind: 'valid',
    text: msg([
      'RE%47IST%45R sip:registrar.example.com SIP/2.0',
      'To: "%Z%45" <sip:resource@example.com>',
      'From: "%Z%45" <sip:resource@example.com>;tag=f232jadfj23',
      'Call-ID: esc02.asdfnqwo34rq23i34jrjasdcnl23nrlknsdf',
      `${VIA}5esc02`,
      'CSeq: 29344 RE%47IST%45R',
      'Max-Forwards: 70',
      'Contact: <sip:alias1@host1.example.com>',
      'C%6Fntact: <sip:alias2@host2.example.com>',
      'Contact: <sip:alias3@host3.example.com>',
      'l: 0',
    ]),
  },
  {
    section: '3.1.1.6',
    name: 'lwsdisp: no LWS between a display name and <',
    kind: 'valid',
    text: msg([
      'OPTIONS sip:user@example.com SIP/2.0',
      'To: sip:user@example.com',
      'From: caller<sip:caller@example.com>;tag=323',
      'Max-Forwards: 70',
      'Call-ID: lwsdisp.1234abcd@funky.example.com',
      'CSeq: 60 OPTIONS',
      `${VIA}6lwsdisp`,
      'l: 0',
    ]),
  },
  {
    section: '3.1.1.7',
    name: 'longreq: long header values, many Vias, a long display name and tag',
    kind: 'valid',
    text: msg(
      [
        'INVITE sip:user@example.com SIP/2.0',
        `To: "I have a user name of ${'extreme '.repeat(60)}proportion" <sip:user@example.com:6000;unknownparam1=very${'long'.repeat(40)}value;longparam${'name'.repeat(30)}=shortvalue>`,
        `From: sip:${'amazinglylongcallername'.repeat(4)}@example.net;tag=12${'982'.repeat(80)}424;unknownheaderparam${'name'.repeat(20)}=unknowheaderparam${'value'.repeat(20)};unknownValuelessparam${'name'.repeat(20)}`,
        `Call-ID: longreq.one${'really'.repeat(50)}longcallid`,
        'CSeq: 3882340 INVITE',
        `Unknown-${'Long'.repeat(20)}-Name: unknown-${'long'.repeat(30)}-value; unknown-${'long'.repeat(20)}-parameter-name = unknown-${'long'.repeat(20)}-parameter-value`,
        `${VIA}7longreq`,
        ...Array.from({ length: 30 }, (_, i) => `Via: SIP/2.0/TCP sip${i}.example.com;branch=z9hG4bK${'longbranch'.repeat(5)}${i}`),
        'Max-Forwards: 70',
        `Contact: <sip:${'amazinglylongcallername'.repeat(4)}@host5.example.net>`,
        'Content-Type: application/sdp',
        'l: LEN',
      ].map((line) => line.replace('l: LEN', 'Content-Length: LEN')),
      SDP,
    ),
  },
  {
    section: '3.1.1.8',
    name: 'dblreq: extra octets after the Content-Length in a datagram (a second request) are ignored',
    kind: 'valid',
    text:
      msg([
        'REGISTER sip:example.com SIP/2.0',
        'To: sip:j.user@example.com',
        'From: sip:j.user@example.com;tag=43251j3j324',
        'Max-Forwards: 8',
        'I: dblreq.0ha0isndaksdj99sdfafnl3lk233412',
        'Contact: sip:j.user@host.example.com',
        'CSeq: 8 REGISTER',
        `${VIA}8dblreq`,
        'Content-Length: 0',
      ]) +
      msg(
        [
          'INVITE sip:joe@example.com SIP/2.0',
          't: sip:joe@example.com',
          'From: sip:caller@example.net;tag=141334',
          'Max-Forwards: 8',
          'Call-ID: dblreq.0ha0isnda977644900765@192.0.2.15',
          'CSeq: 8 INVITE',
          'Via: SIP/2.0/UDP 192.0.2.15;branch=z9hG4bKkdjuw380234',
          'Content-Type: application/sdp',
          'Content-Length: LEN',
        ],
        SDP,
      ),
  },
  {
    section: '3.1.1.9',
    name: 'semiuri: semicolons in the user part of a URI',
    kind: 'valid',
    text: msg([
      'OPTIONS sip:user;par=u%40example.net@example.com SIP/2.0',
      'To: sip:j_user@example.com',
      'From: sip:caller@example.org;tag=33242',
      'Max-Forwards: 3',
      `${VIA}9semiuri`,
      'Accept: application/sdp',
      'Call-ID: semiuri.0ha0isndaksdj',
      'CSeq: 8 OPTIONS',
      'l: 0',
    ]),
  },
  {
    section: '3.1.1.10',
    name: 'transports: unknown and varied transports in Via',
    kind: 'valid',
    text: msg([
      'OPTIONS sip:user@example.com SIP/2.0',
      'To: sip:user@example.com',
      'From: <sip:caller@example.com>;tag=323',
      'Max-Forwards: 70',
      'Call-ID:  transports.kijh4akdnaqjkwendsasfdj',
      'Accept: application/sdp',
      'CSeq: 60 OPTIONS',
      `${VIA}10transports`,
      'Via: SIP/2.0/SCTP t2.example.com;branch=z9hG4bKklasjdhf',
      'Via: SIP/2.0/TLS t3.example.com;branch=z9hG4bK2980unddj',
      'Via: SIP/2.0/UNKNOWN t4.example.com;branch=z9hG4bKasd0f3en',
      'Via: SIP/2.0/TCP t5.example.com;branch=z9hG4bK0a9idfnee',
      'l: 0',
    ]),
  },
  {
    section: '3.1.1.11',
    name: 'mpart01: a multipart/mixed body',
    kind: 'valid',
    text: msg(
      [
        'MESSAGE sip:kumiko@example.org SIP/2.0',
        `${VIA}11mpart`,
        'Max-Forwards: 70',
        'From: "Chris" <sip:chris@example.com>;tag=2342355',
        'To: <sip:kumiko@example.org>',
        'Call-ID: mpart01.3847iwgnds0sc@h.example.com',
        'CSeq: 1 MESSAGE',
        'Content-Type: multipart/mixed;boundary=unique-boundary-1',
        'Content-Length: LEN',
      ],
      [
        '--unique-boundary-1',
        'Content-Type: text/plain',
        '',
        'first part',
        '--unique-boundary-1',
        'Content-Type: application/octet-stream',
        '',
        '\u0000\u0001\u0002binary',
        '--unique-boundary-1--',
        '',
      ].join('\r\n'),
    ),
  },
  {
    section: '3.1.1.12',
    name: 'unreason: a UTF-8 and punctuation-laden reason phrase',
    kind: 'valid',
    text: msg(
      [
        'SIP/2.0 200 = 2**3 * 5**2 \u043d\u043e \u0441\u0442\u043e \u0434\u0435\u0432\u044f\u043d\u043e\u0441\u0442\u043e \u0434\u0435\u0432\u044f\u0442\u044c - \u043f\u0440\u043e\u0441\u0442\u043e\u0435',
        'Via: SIP/2.0/UDP 192.0.2.198;branch=z9hG4bK1324923',
        'Call-ID: unreason.1234ksdfak3j2erwedfsASdf',
        'CSeq: 35 INVITE',
        'From: sip:user@example.com;tag=11141343',
        'To: sip:user@example.edu;tag=2229',
        'Content-Type: application/sdp',
        'Contact: <sip:user@host198.example.com>',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.1.13',
    name: 'noreason: an empty reason phrase',
    kind: 'valid',
    text: msg([
      'SIP/2.0 100 ',
      'Via: SIP/2.0/UDP 192.0.2.105;branch=z9hG4bK2398ndaoe',
      'Call-ID: noreason.asndj203insdf99223ndf',
      'CSeq: 35 INVITE',
      'From: <sip:user@example.com>;tag=39ansfi3',
      'To: <sip:user@example.edu>;tag=902jndnke3',
      'Content-Length: 0',
    ]),
  },
  {
    section: '3.1.2.1',
    name: 'badinv01: extraneous header field separators (To without a usable value, Via full of ;;,;,,)',
    kind: 'invalid',
    text: msg(
      [
        'INVITE sip:user@example.com SIP/2.0',
        'To: sip:j.user@example.com',
        'From: sip:caller@example.net;;tag=134161461246',
        'Max-Forwards: 7',
        'Call-ID: badinv01.0ha0isndaksdjasdf3234nas',
        'CSeq: 8 INVITE',
        'Via: SIP/2.0/UDP 127.0.0.1:PORT;;,;,,',
        'Contact: "Joe" <sip:joe@example.org>;;;;',
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.2',
    name: 'clerr: Content-Length larger than the datagram',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE sip:user@example.com SIP/2.0',
        'Max-Forwards: 80',
        'To: sip:j.user@example.com',
        'From: sip:caller@example.net;tag=93942939o2',
        'Contact: <sip:caller@hungry.example.net>',
        'Call-ID: clerr.0ha0isndaksdjweiafasdk3',
        'CSeq: 8 INVITE',
        `${VIA}c2clerr`,
        'Content-Type: application/sdp',
        'Content-Length: 9999',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.3',
    name: 'scalar02: a negative Content-Length',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE sip:vivekg@chair-dnrc.example.com SIP/2.0',
        `${VIA}c3scalar02`,
        'Max-Forwards: 254',
        'To: <sip:vivekg@chair-dnrc.example.com>',
        'From: J Rosenberg \\"<sip:jdrosen@example.com>;tag=98asjd8',
        'Call-ID: scalar02.23o0pd9vanlq3wnrlnewofjas9ui32',
        'CSeq: 8 INVITE',
        'Contact: <sip:caller@host.example.net>',
        'Content-Type: application/sdp',
        'Content-Length: -999',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.4',
    name: 'scalarlg: overlarge CSeq, Max-Forwards, Expires and contact expires',
    kind: 'invalid',
    status: 400,
    text: msg([
      'REGISTER sip:example.com SIP/2.0',
      `${VIA}c4scalarlg`,
      'Max-Forwards: 300',
      'From: sip:user@example.com;tag=932446',
      'To: sip:user@example.com',
      'Call-ID: scalarlg.98asdh@192.0.2.1',
      'CSeq: 36893488147419103232 REGISTER',
      'Contact: <sip:user@host129.example.com>;expires=280297596632815',
      'Expires: 1293042903495024365',
      'Content-Length: 0',
    ]),
  },
  {
    section: '3.1.2.5',
    name: 'scalar1s: a response with an overlarge CSeq and a 4-digit Warning code',
    kind: 'invalid',
    text: msg([
      'SIP/2.0 503 Service Unavailable',
      'Via: SIP/2.0/TCP host129.example.com;branch=z9hG4bKzzxdiwo34sw;received=192.0.2.129',
      'To: <sip:user@example.com>',
      'From: <sip:other@example.net>;tag=2easdjfejw',
      'CSeq: 9292394834772304023312 OPTIONS',
      'Call-ID: scalar1s.898aaa@192.0.2.1',
      'Warning: 1812 overture "In Progress"',
      'Content-Length: 0',
    ]),
  },
  {
    section: '3.1.2.6',
    name: 'quotbal: an unterminated quoted string in a display name',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE sip:user@example.com SIP/2.0',
        'To: "Mr. J. User <sip:j.user@example.com>',
        'From: sip:caller@example.net;tag=93334',
        'Max-Forwards: 10',
        'Call-ID: quotbal.aksdj',
        'Contact: <sip:caller@host59.example.net>',
        'CSeq: 8 INVITE',
        `${VIA}c6quotbal`,
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.7',
    name: 'ltgtruri: a Request-URI enclosed in <>',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE <sip:user@example.com> SIP/2.0',
        'To: sip:user@example.com',
        'From: sip:caller@example.net;tag=39291',
        'Max-Forwards: 23',
        'Call-ID: ltgtruri.1@192.0.2.5',
        'CSeq: 1 INVITE',
        `${VIA}c7ltgtruri`,
        'Contact: <sip:caller@host5.example.net>',
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.8',
    name: 'lwsruri: whitespace inside the Request-URI',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE sip:user@example.com; lr SIP/2.0',
        'To: sip:user@example.com;tag=3xfe-9921883-z9f',
        'From: sip:caller@example.net;tag=231413434',
        'Max-Forwards: 5',
        'Call-ID: lwsruri.asdfasdoeoi2323-asdfwrn23-asd834rk423',
        'CSeq: 2130706432 INVITE',
        `${VIA}c8lwsruri`,
        'Contact: <sip:caller@host1.example.net>',
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.9',
    name: 'lwsstart: several spaces between the elements of the Request-Line',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'INVITE  sip:user@example.com  SIP/2.0',
        'Max-Forwards: 8',
        'To: sip:user@example.com',
        'From: sip:caller@example.net;tag=8814',
        'Call-ID: lwsstart.dfknq234oi243099adsdfnawe3@example.com',
        'CSeq: 1893884 INVITE',
        `${VIA}c9lwsstart`,
        'Contact: <sip:caller@host1.example.net>',
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.10',
    name: 'trws: spaces after the Request-Line (an implementation may be liberal)',
    kind: 'tolerated',
    text: msg([
      'OPTIONS sip:remote-target@example.com SIP/2.0  ',
      `${VIA}c10trws`,
      'Max-Forwards: 70',
      'To: <sip:remote-target@example.com>',
      'From: <sip:local-resource@example.com>;tag=329429089',
      'Call-ID: trws.oicu34958239neffasdhr2345r',
      'Accept: application/sdp',
      'CSeq: 238923 OPTIONS',
      'Content-Length: 0',
    ]),
  },
  {
    section: '3.1.2.11',
    name: 'escruri: escaped headers in the Request-URI (a Route smuggled in)',
    kind: 'tolerated',
    text: msg(
      [
        'INVITE sip:user@example.com?Route=%3Csip:example.com%3E SIP/2.0',
        'To: sip:user@example.com',
        'From: sip:caller@example.net;tag=341518',
        'Max-Forwards: 7',
        'Contact: <sip:caller@host39923.example.net>',
        'Call-ID: escruri.23940-asdfhj-aje3br-234q098w-fawerh2q-h4n5',
        'CSeq: 149209342 INVITE',
        `${VIA}c11escruri`,
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.12',
    name: 'baddate: a Date in a non-GMT zone (a receiver may ignore the Date)',
    kind: 'tolerated',
    text: msg(
      [
        'INVITE sip:user@example.com SIP/2.0',
        'To: sip:user@example.com',
        'From: sip:caller@example.net;tag=2234923',
        'Max-Forwards: 70',
        'Call-ID: baddate.239423mnsadf3j23lj42--sedfnm234',
        'CSeq: 1392934 INVITE',
        `${VIA}c12baddate`,
        'Date: Fri, 01 Jan 2010 16:00:00 EST',
        'Contact: <sip:caller@host5.example.net>',
        'Content-Type: application/sdp',
        'Content-Length: LEN',
      ],
      SDP,
    ),
  },
  {
    section: '3.1.2.13',
    name: 'regbadct: a Contact addr-spec with headers not enclosed in <>',
    kind: 'tolerated',
    text: msg([
      'REGISTER sip:example.com SIP/2.0',
      'To: sip:user@example.com',
      'From: sip:user@example.com;tag=998332',
      'Max-Forwards: 70',
      'Call-ID: regbadct.k345asrl3fdbv@10.0.0.1',
      'CSeq: 1 REGISTER',
      `${VIA}c13regbadct`,
      'Contact: sip:user@example.com?Route=%3Csip:sip.example.com%3E',
      'l: 0',
    ]),
  },
  {
    section: '3.1.2.14',
    name: 'badaspec: spaces inside the <> of an addr-spec',
    kind: 'tolerated',
    text: msg([
      'OPTIONS sip:user@example.org SIP/2.0',
      `${VIA}c14badaspec`,
      'Max-Forwards: 70',
      'From: "Bell, Alexander" <sip:a.g.bell@example.com>;tag=433423',
      'To: "Watson, Thomas" < sip:t.watson@example.org >',
      'Call-ID: badaspec.sdf0234n2nds0a099u23h3hnnw009cdkne3',
      'Accept: application/sdp',
      'CSeq: 3923239 OPTIONS',
      'l: 0',
    ]),
  },
  {
    section: '3.1.2.15',
    name: 'baddn: a display name with non-token characters, unquoted',
    kind: 'tolerated',
    text: msg([
      'OPTIONS sip:t.watson@example.org SIP/2.0',
      `${VIA}c15baddn`,
      'Max-Forwards: 70',
      'From: Bell, Alexander <sip:a.g.bell@example.com>;tag=43',
      'To: Watson, Thomas <sip:t.watson@example.org>',
      'Call-ID: baddn.31415@c.example.com',
      'Accept: application/sdp',
      'CSeq: 3923239 OPTIONS',
      'l: 0',
    ]),
  },
  {
    section: '3.1.2.16',
    name: 'badvers: an unknown SIP version',
    kind: 'invalid',
    status: 505,
    text: msg([
      'OPTIONS sip:t.watson@example.org SIP/7.0',
      `Via:     SIP/7.0/UDP 127.0.0.1:PORT;rport;branch=z9hG4bKc16badvers`,
      'Max-Forwards: 70',
      'From: A. Bell <sip:a.g.bell@example.com>;tag=qweoiqpe',
      'To: T. Watson <sip:t.watson@example.org>',
      'Call-ID: badvers.31417@c.example.com',
      'CSeq: 1 OPTIONS',
      'l: 0',
    ]),
  },
  {
    section: '3.1.2.17',
    name: 'mismatch01: the CSeq method differs from the request method',
    kind: 'invalid',
    status: 400,
    text: msg([
      'OPTIONS sip:user@example.com SIP/2.0',
      'To: sip:j.user@example.com',
      'From: sip:caller@example.net;tag=34525',
      'Max-Forwards: 6',
      'Call-ID: mismatch01.dj0234sxdfl3',
      'CSeq: 8 INVITE',
      `${VIA}c17mismatch01`,
      'l: 0',
    ]),
  },
  {
    section: '3.1.2.18',
    name: 'mismatch02: an unknown method whose CSeq names another',
    kind: 'invalid',
    status: 400,
    text: msg(
      [
        'NEWMETHOD sip:user@example.com SIP/2.0',
        'To: sip:j.user@example.com',
        'From: sip:caller@example.net;tag=34525',
        'Max-Forwards: 6',
        'Call-ID: mismatch02.dj0234sxdfl3',
        'CSeq: 8 INVITE',
        'Contact: <sip:caller@host.example.net>',
        `${VIA}c18mismatch02`,
        'Content-Type: application/sdp',
        'l: LEN',
      ].map((line) => line.replace('l: LEN', 'Content-Length: LEN')),
      SDP,
    ),
  },
  {
    section: '3.1.2.19',
    name: 'bigcode: an overlarge response code',
    kind: 'invalid',
    text: msg([
      'SIP/2.0 4294967301 better not break the receiver',
      'Via: SIP/2.0/UDP 192.0.2.105;branch=z9hG4bK2398ndaoe',
      'Call-ID: bigcode.asdof3uj203asdnf3429uasdhfas3ehjasdfas9i',
      'CSeq: 353494 INVITE',
      'From: <sip:user@example.com>;tag=39ansfi3',
      'To: <sip:user@example.edu>;tag=902jndnke3',
      'Content-Length: 0',
      'Contact: <sip:user@host105.example.com>',
    ]),
  },
];

/** Parser and essential checks alone: 'ok', or why the message is refused. */
function verdict(text: string): { ok: true; message: SipMessage } | { ok: false; why: string } {
  let message: SipMessage;
  try {
    message = parseMessage(Buffer.from(text, 'utf8'), { datagram: true });
  } catch (err) {
    // Anything but SipParseError is a parser bug.
    assert.ok(err instanceof SipParseError, `unexpected ${String(err)}`);
    return { ok: false, why: err.message };
  }
  const problem = findEssentialProblem(message);
  return problem === undefined ? { ok: true, message } : { ok: false, why: problem };
}

describe('RFC 4475 torture messages: the parser', () => {
  for (const t of TORTURES) {
    it(`§${t.section} ${t.name}`, () => {
      const result = verdict(t.text.replaceAll('PORT', '5062'));
      if (t.kind === 'valid') assert.ok(result.ok, result.ok ? '' : `refused: ${result.why}`);
      if (t.kind === 'invalid' && t.status !== undefined && t.status !== 505) assert.ok(!result.ok, 'accepted an invalid message');
    });
  }

  it('§3.1.1.1 wsinv is read as the RFC intends', () => {
    const result = verdict(TORTURES[0].text.replaceAll('PORT', '5062'));
    assert.ok(result.ok);
    const m = result.message;
    assert.equal(m.to.tag, '1918181833n');
    assert.equal(m.from.tag, '98asjd8');
    assert.equal(m.cseq.seq, 9);
    assert.equal(m.cseq.method, 'INVITE');
    assert.equal(m.getHeader('Max-Forwards'), '0068');
    assert.equal(m.vias.length, 4);
    assert.equal(m.getHeader('NewFangledHeader'), 'newfangled value continued newfangled value');
  });

  it('§3.1.1.8 dblreq: only the first request of the datagram is read', () => {
    const result = verdict(TORTURES.find((t) => t.section === '3.1.1.8')?.text.replaceAll('PORT', '5062') ?? '');
    assert.ok(result.ok);
    assert.equal(result.message.type === 'request' ? result.message.method : '', 'REGISTER');
    assert.equal(result.message.body.length, 0);
  });
});

class NoMedia implements SipMediaEngine {
  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    return { legId: 'leg', localAddress: request.bindAddress, localPort: 40000 };
  }
  async setLegRemote(_legId: string, _remote: LegRemote): Promise<void> {}
  async destroyLeg(): Promise<void> {}
}

class RefusingHost implements ChannelDriverHost {
  acceptInbound(): ChannelTechnologyEvents {
    throw new Error('no calls in the torture test');
  }
}

describe('RFC 4475 torture messages: the stack over UDP', { timeout: 60_000 }, () => {
  let driver: SipDriver;
  let peer: UdpPeer;
  let port: number;
  const clock = new FakeClock();

  before(async () => {
    driver = new SipDriver({
      config: {
        transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
        endpoints: [],
        identifies: [],
        aors: [],
        auths: [],
      },
      host: new RefusingHost(),
      media: new NoMedia(),
      clock,
    });
    await driver.start();
    port = driver.listening()[0].port;
    peer = await UdpPeer.open();
  });

  after(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await peer.close();
  });

  /** The stack still answers: an OPTIONS gets its 200. */
  async function stillAlive(n: number): Promise<void> {
    await peer.send(
      msg([
        'OPTIONS sip:ping@127.0.0.1 SIP/2.0',
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};rport;branch=z9hG4bKalive${n}`,
        'Max-Forwards: 70',
        'From: <sip:t@127.0.0.1>;tag=alive',
        'To: <sip:ping@127.0.0.1>',
        `Call-ID: alive-${n}`,
        'CSeq: 1 OPTIONS',
        'Content-Length: 0',
      ]),
      port,
    );
    await peer.expect((m) => m.type === 'response' && m.callId === `alive-${n}` && m.status === 200, 'the 200 to OPTIONS');
  }

  TORTURES.forEach((t, n) => {
    it(`§${t.section} ${t.name.split(':')[0]}: answered as it deserves, and the stack survives`, async () => {
      const text = t.text.replaceAll('PORT', String(peer.port));
      const isRequest = !text.startsWith('SIP/');
      await peer.send(text, port);
      const callId = /^(?:Call-ID|i|I):\s*(\S+)/m.exec(text)?.[1];
      const answer = (m: SipMessage) => m.type === 'response' && m.callId === callId && m.status >= 200;
      if (isRequest && t.kind === 'valid') {
        const response = await peer.expect(answer, `a final response to ${t.section}`);
        assert.ok(
          response.type === 'response' && response.status !== 400,
          `valid message answered ${response.type === 'response' ? response.status : ''}`,
        );
      } else if (isRequest && t.kind === 'invalid' && t.status !== undefined) {
        const response = await peer.expect(answer, `the ${t.status} to ${t.section}`);
        assert.equal(response.type === 'response' ? response.status : 0, t.status);
      } else {
        // Dropped or answered: either is allowed; what matters is below.
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (const m of peer.pending.filter(answer)) {
          assert.ok(m.type === 'response' && m.status < 600, 'a sane answer');
        }
      }
      await stillAlive(n);
    });
  });
});
