/**
 * The two-leg relay end to end through a real engine and real UDP far ends: packets with a bare
 * header are sent on in their own buffer with the header rewritten in place; a change of the
 * source's SSRC carries the marker bit; packets with CSRCs take the copying path into the same
 * stream. Bounded in time.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { FarEnd } from '../test-support/far-end.js';
import { sleep, waitFor } from '../test-support/wait.js';

const BASE_PORT = 38000 + 2 * Math.floor(Math.random() * 3000);

function packet(ssrc: number, sequenceNumber: number, timestamp: number, tag: number, csrcs = 0): Uint8Array {
  const bytes = new Uint8Array(RTP_HEADER_SIZE + 4 * csrcs + 160);
  writeRtpHeader(bytes, { payloadType: 0, marker: false, sequenceNumber, timestamp, ssrc });
  bytes[0] |= csrcs;
  bytes.fill(tag, RTP_HEADER_SIZE + 4 * csrcs);
  return bytes;
}

// On both socket implementations: the native hub lends its receive ring, which the in-place rewrite writes into.
for (const nativeSockets of [true, false])
  describe(`two-leg relay (${nativeSockets ? 'native hub' : 'dgram'} sockets)`, () => {
    let cleanup: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      for (const step of cleanup.reverse()) await step();
      cleanup = [];
    });

    /** Two PCMU legs, each with a far end, in one mixing bridge (closed after the test). */
    async function bridgedPair(rtpStart: number) {
      const engine = new MediaEngine({ rtpStart, rtpEnd: rtpStart + 10, workers: 1, nativeSockets });
      await engine.start();
      const caller = await FarEnd.open();
      const callee = await FarEnd.open();
      cleanup.push(
        () => engine.close(),
        () => caller.close(),
        () => callee.close(),
      );
      const codec = { name: 'PCMU', payloadType: 0, clockRate: 8000 } as const;
      const a = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const b = await engine.createLeg({ bindAddress: '127.0.0.1' });
      await engine.setLegRemote(a.legId, { address: '127.0.0.1', port: caller.port, codec });
      await engine.setLegRemote(b.legId, { address: '127.0.0.1', port: callee.port, codec });
      await engine.createBridge({ bridgeId: 'relay', kind: 'mixing' });
      await engine.joinBridge('relay', a.legId);
      await engine.joinBridge('relay', b.legId);
      return { engine, caller, callee, a };
    }

    it('rewrites SSRC, sequence and timestamp into the leg stream, marks a source switch, strips CSRCs', { timeout: 10_000 }, async () => {
      const { caller, callee, a } = await bridgedPair(BASE_PORT);
      await sleep(60); // the bridge starts relaying on its next tick

      // Source 1: five packets; then source 2 (new SSRC, unrelated numbering): five; then three with a CSRC.
      for (let i = 0; i < 5; i += 1) {
        await caller.send(packet(0xaaaa, 100 + i, 1000 + 160 * i, 1), a.localPort);
        await sleep(5);
      }
      for (let i = 0; i < 5; i += 1) {
        await caller.send(packet(0xbbbb, 60000 + i, 9 + 160 * i, 2), a.localPort);
        await sleep(5);
      }
      for (let i = 0; i < 3; i += 1) {
        await caller.send(packet(0xbbbb, 60005 + i, 9 + 160 * (5 + i), 3, 1), a.localPort);
        await sleep(5);
      }
      const got = await waitFor('13 relayed packets', () => {
        const relayed = callee.packets.filter(
          (p) => p.info.payloadType === 0 && [1, 2, 3].includes(p.payload[0]) && p.payload.length === 160,
        );
        return relayed.length >= 13 ? relayed : undefined;
      });
      const ssrcs = new Set(got.map((p) => p.info.ssrc));
      assert.equal(ssrcs.size, 1, 'one outgoing stream');
      assert.ok(![0xaaaa, 0xbbbb].includes([...ssrcs][0]), 'in the leg own SSRC');
      for (let i = 1; i < got.length; i += 1) {
        assert.equal(got[i].info.sequenceNumber, (got[i - 1].info.sequenceNumber + 1) & 0xffff, `sequence continues at ${i}`);
        assert.equal(got[i].info.timestamp, (got[i - 1].info.timestamp + 160) >>> 0, `timestamp continues at ${i}`);
      }
      assert.deepEqual(
        got.map((p) => p.info.marker),
        [true, false, false, false, false, true, false, false, false, false, false, false, false],
        'the marker on the first packet and on the source switch only',
      );
      assert.deepEqual(
        got.map((p) => p.info.csrcCount),
        new Array(13).fill(0),
        'CSRCs are not passed on',
      );
      assert.deepEqual(
        got.map((p) => p.payload[0]),
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3],
      );
    });

    it(
      'stops relaying on the frame after a command that needs the audio, however long it relayed unchanged',
      { timeout: 10_000 },
      async () => {
        const { engine, caller, callee, a } = await bridgedPair(BASE_PORT + 20);
        let sequenceNumber = 0;
        const sendTagged = async (tag: number, count: number) => {
          for (let i = 0; i < count; i += 1) {
            await caller.send(packet(0xcccc, sequenceNumber, 160 * sequenceNumber, tag), a.localPort);
            sequenceNumber += 1;
            await sleep(5);
          }
        };
        const relayed = (tag: number) => callee.packets.filter((p) => p.payload.length === 160 && p.payload.every((byte) => byte === tag));

        // Relaying, then many frames in which nothing changes.
        await sleep(60);
        await sendTagged(1, 5);
        await waitFor('relayed packets', () => (relayed(1).length === 5 ? true : undefined));
        await sleep(200);

        // Muting the caller needs the audio: from the next frame on nothing of it is passed on as it came.
        await engine.setLegMute(a.legId, { inbound: true, outbound: false });
        await sleep(30);
        await sendTagged(4, 10);
        await sleep(60);
        assert.equal(relayed(4).length, 0, 'no packet relayed while the caller is muted');

        // Unmuted: relaying again.
        await engine.setLegMute(a.legId, { inbound: false, outbound: false });
        await sleep(60);
        await sendTagged(5, 5);
        await waitFor('relayed packets again', () => (relayed(5).length === 5 ? true : undefined));
      },
    );
  });
