/**
 * Qualify over real UDP on loopback with protocol time on a fake clock: a static contact of an AOR
 * with qualify_frequency is pinged with OPTIONS at start and every period; an answer makes it
 * Reachable (with a round trip), silence past the qualify timeout Unreachable; only changes are
 * reported; an endpoint is qualified on demand; close() leaves no timer behind.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelDriverHost, ChannelTechnologyEvents, CreateLegRequest, MediaLegInfo, SipConfig } from '@switchboard/core';
import type { SipMessage } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../../test-support/udp-peer.js';
import type { SipMediaEngine } from '../calls/inbound-call.js';
import { QUALIFY_TIMEOUT_MS, type QualifyListener } from './qualify.js';
import { SipDriver } from '../sip-driver.js';

const media: SipMediaEngine = {
  createLeg: async (request: CreateLegRequest): Promise<MediaLegInfo> => ({
    legId: 'l',
    localAddress: request.bindAddress,
    localPort: 40000,
  }),
  setLegRemote: async () => {},
  destroyLeg: async () => {},
};
const host: ChannelDriverHost = {
  acceptInbound: (): ChannelTechnologyEvents => {
    throw new Error('no calls here');
  },
};

function config(contact: string): SipConfig {
  return {
    transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
    endpoints: [
      {
        name: 'desk',
        context: 'default',
        codecs: ['PCMU'],
        aors: ['desk'],
        mailboxes: [],
        dtmfMode: 'rfc4733',
        forceRport: false,
        rewriteContact: false,
        rtpSymmetric: true,
        directMedia: false,
      },
    ],
    identifies: [],
    aors: [
      {
        name: 'desk',
        maxContacts: 1,
        removeExisting: true,
        defaultExpiration: 3600,
        minimumExpiration: 60,
        maximumExpiration: 7200,
        qualifyFrequency: 30,
        contacts: [contact],
      },
    ],
    auths: [],
  };
}

function okTo(request: SipMessage): string {
  return [
    'SIP/2.0 200 OK',
    ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
    `From: ${request.getHeader('From')}`,
    `To: ${request.getHeader('To')};tag=desk`,
    `Call-ID: ${request.callId}`,
    `CSeq: ${request.getHeader('CSeq')}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

const isOptions = (m: SipMessage) => m.type === 'request' && m.method === 'OPTIONS';

describe('qualify', { timeout: 20_000 }, () => {
  let clock: FakeClock;
  let phone: UdpPeer;
  let driver: SipDriver;
  const reports: string[] = [];
  const roundtrips: number[] = [];
  const listener: QualifyListener = {
    contactStatus: (change) => {
      reports.push(`${change.aor} ${change.uri} ${change.status}`);
      if (change.roundtripUsec !== undefined) roundtrips.push(change.roundtripUsec);
    },
    peerStatus: (endpoint, status) => reports.push(`peer ${endpoint} ${status}`),
  };

  beforeEach(async () => {
    clock = new FakeClock();
    phone = await UdpPeer.open();
    reports.length = 0;
    driver = new SipDriver({ config: config(`sip:desk@127.0.0.1:${phone.port}`), host, media, clock, qualify: listener });
    await driver.start();
  });

  afterEach(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await phone.close();
  });

  it('reports Reachable with a round trip, then Unreachable when the pings go unanswered', async () => {
    const uri = `sip:desk@127.0.0.1:${phone.port}`;
    clock.advance(0);
    const ping = await phone.expect(isOptions, 'the first OPTIONS');
    assert.equal(ping.type === 'request' ? ping.uri.toString() : '', uri);
    await phone.send(okTo(ping), driver.listening()[0].port);
    await waitFor(() => reports.length === 2, 'reachable reported');
    assert.deepEqual(reports, [`desk ${uri} Reachable`, 'peer desk Reachable']);
    assert.ok(roundtrips[0] !== undefined && roundtrips[0] >= 0);

    // The next period: answered again, nothing changes, nothing is reported.
    clock.advance(30_000);
    await phone.send(okTo(await phone.expect(isOptions, 'the second OPTIONS')), driver.listening()[0].port);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(reports.length, 2);

    // Then silence: after the qualify timeout the contact and the peer are Unreachable.
    clock.advance(30_000);
    await phone.expect(isOptions, 'the third OPTIONS');
    clock.advance(QUALIFY_TIMEOUT_MS);
    await waitFor(() => reports.length === 4, 'unreachable reported');
    assert.deepEqual(reports.slice(2), [`desk ${uri} Unreachable`, 'peer desk Unreachable']);
  });

  it('qualifies an endpoint on demand (PJSIPQualify) and refuses an unknown one at once', async () => {
    const uri = `sip:desk@127.0.0.1:${phone.port}`;
    assert.throws(() => driver.qualify('nobody'), /Unable to retrieve endpoint nobody/);
    // The clock is not advanced: the periodic schedule has not pinged; this ping is the on-demand one.
    const answers = driver.qualify('desk');
    await phone.send(okTo(await phone.expect(isOptions, 'the OPTIONS')), driver.listening()[0].port);
    const [answer] = await answers;
    assert.deepEqual([answer?.aor, answer?.uri, answer?.status], ['desk', uri, 'Reachable']);
    assert.ok(answer?.roundtripUsec !== undefined && answer.roundtripUsec >= 0);
    assert.deepEqual(reports, [`desk ${uri} Reachable`, 'peer desk Reachable']);
  });

  it('leaves no timer behind when the driver closes', async () => {
    clock.advance(0);
    await phone.expect(isOptions, 'the first OPTIONS');
    const closing = driver.close();
    clock.advance(QUALIFY_TIMEOUT_MS + 5000);
    await closing;
    // Transaction timers of the unanswered ping are the transaction layer's; the qualify schedule is gone.
    clock.advance(120_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // At most the one ping sent before close: its retransmissions (Timer E) share its branch.
    const pings = new Set(phone.pending.filter(isOptions).map((m) => m.topVia.branch));
    assert.equal(pings.size <= 1, true, `${pings.size} pings after close`);
    assert.deepEqual(reports, []);
  });
});
