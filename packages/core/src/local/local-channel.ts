/**
 * The `Local` technology: `Local/<exten>@<context>` makes a pair of channels. `;1` is the
 * outbound channel the caller gets (originate's channel); `;2` enters the dialplan at
 * exten@context as if it were an inbound call. What the dialplan does on `;2` is what the far end
 * of `;1` does: ringing, progress, answer, hangup. Their audio flows through two media legs that
 * send RTP to each other on the loopback interface.
 *
 *   originate ─► Local/100@default-1a2b3c4d;1 ◄══ RTP over 127.0.0.1 ══► …;2 ─► dialplan 100@default
 */
import { randomBytes } from 'node:crypto';
import type {
  ChannelDriver,
  ChannelDriverHost,
  ChannelTechnology,
  ChannelTechnologyEvents,
  OutboundCall,
  OutboundCallRequest,
} from '../drivers/channel-technology.js';
import { invalidArgument } from '../errors.js';
import type { MediaEngine } from '../media/media-engine.js';
import type { Logger } from '../util/logger.js';

/** Both halves carry G.711 µ-law: every leg can, and nothing is transcoded between them. */
const LOCAL_CODEC = { name: 'PCMU', payloadType: 0, clockRate: 8000 } as const;

/** One half of the pair; `peer` is told what this half's channel does. */
class LocalHalf implements ChannelTechnology {
  readonly protocolId = '';
  mediaLegId: string | undefined;
  /** What this half reports to the other half's channel. */
  toPeer: ChannelTechnologyEvents | undefined;
  #ended = false;
  readonly #onEnd: () => void;

  constructor(onEnd: () => void) {
    this.#onEnd = onEnd;
  }

  async answer(): Promise<void> {
    this.toPeer?.answered();
  }
  async indicateRinging(): Promise<void> {
    this.toPeer?.ringing();
  }
  async indicateProgress(): Promise<void> {
    this.toPeer?.progress?.();
  }
  async hangup(cause: number): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.toPeer?.hungUp(cause);
    this.#onEnd();
  }
  /** The other half went away first. */
  peerEnded(): void {
    this.#ended = true;
  }
}

export class LocalChannelDriver implements ChannelDriver {
  readonly technology = 'Local';
  readonly aliases: readonly string[] = [];
  readonly #host: ChannelDriverHost;
  readonly #media: MediaEngine;
  readonly #log: Logger;

  constructor(host: ChannelDriverHost, media: MediaEngine, log: Logger) {
    this.#host = host;
    this.#media = media;
    this.#log = log;
  }

  /** `exten@context`, optionally followed by `/options` (ignored); the context defaults to `default`. */
  prepareOutbound(request: OutboundCallRequest): OutboundCall {
    const target = request.resource.split('/')[0] ?? '';
    const at = target.lastIndexOf('@');
    const exten = at === -1 ? target : target.slice(0, at);
    const context = at === -1 ? 'default' : target.slice(at + 1);
    if (exten === '' || context === '') throw invalidArgument(`Local channel target '${request.resource}' is not exten@context`);
    const base = `Local/${exten}@${context}-${randomBytes(4).toString('hex')}`;
    const legs: string[] = [];
    let halvesEnded = 0;
    const release = () => {
      halvesEnded += 1;
      if (halvesEnded < 2) return;
      for (const leg of legs)
        void this.#media.destroyLeg(leg).catch((err: unknown) => this.#log.warn({ err, leg }, 'local leg release failed'));
    };
    const first = new LocalHalf(release);
    const second = new LocalHalf(release);
    return {
      name: `${base};1`,
      endpoint: `${exten}@${context}`,
      tech: first,
      dial: async (events) => {
        const [a, b] = await Promise.all([
          this.#media.createLeg({ bindAddress: '127.0.0.1' }),
          this.#media.createLeg({ bindAddress: '127.0.0.1' }),
        ]);
        legs.push(a.legId, b.legId);
        await this.#media.setLegRemote(a.legId, { address: '127.0.0.1', port: b.localPort, codec: LOCAL_CODEC });
        await this.#media.setLegRemote(b.legId, { address: '127.0.0.1', port: a.localPort, codec: LOCAL_CODEC });
        first.mediaLegId = a.legId;
        second.mediaLegId = b.legId;
        second.toPeer = {
          ...events,
          hungUp: (cause) => {
            first.peerEnded();
            release();
            events.hungUp(cause);
          },
        };
        const toSecond = this.#host.acceptInbound({
          ...(request.otherChannelId === undefined ? {} : { id: request.otherChannelId }),
          technology: this.technology,
          name: `${base};2`,
          endpoint: `${exten}@${context}`,
          exten,
          context,
          caller: request.caller,
          tech: second,
        });
        first.toPeer = {
          ...toSecond,
          hungUp: (cause) => {
            second.peerEnded();
            release();
            toSecond.hungUp(cause);
          },
        };
      },
    };
  }

  async close(): Promise<void> {}
}
