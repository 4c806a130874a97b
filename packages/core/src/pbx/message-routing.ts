/**
 * Text messages through the dialplan, as the original routes them: a MESSAGE from one of our
 * endpoints runs the dialplan of the endpoint's `message_context` (else its `context`) at the
 * extension the message is addressed to, on a message channel without media
 * (`Message/ast_msg_queue`), where
 *
 *   MESSAGE(to|from|body)      r/w   the message itself
 *   MESSAGE_DATA(name)         r/w   its extra headers (X-…), sent again as headers
 *   MessageSend(to[,from[,to_header]])   sends it: `pjsip:bob` (every contact of bob),
 *                                    `pjsip:bob/sip:bob@host`, or a `sip:` URI; sets MESSAGE_SEND_STATUS
 *
 * TextMessageReceived is still published for API applications; this runs beside it. The message
 * channel lives on a bus of its own, so API applications never see it.
 */
import { randomUUID } from 'node:crypto';
import { Channel } from '../channels/channel.js';
import type { SipEndpointConfig } from '../config/types.js';
import type { ChannelTechnology } from '../drivers/channel-technology.js';
import { EventBus } from '../events/event-bus.js';
import type { TextMessageSnapshot } from '../model/snapshots.js';
import type { Logger } from '../util/logger.js';
import type { DialplanApplication, DialplanFlow } from './dialplan-app.js';
import type { DialplanRunner } from './dialplan-runner.js';
import type { DialplanFunction } from './pbx-services.js';

interface MessageData {
  to: string;
  from: string;
  body: string;
  data: Record<string, string>;
}

const messages = new WeakMap<Channel, MessageData>();

function messageOf(channel: Channel): MessageData {
  let found = messages.get(channel);
  if (!found) {
    found = { to: '', from: '', body: '', data: {} };
    messages.set(channel, found);
  }
  return found;
}

export const MESSAGE_FUNCTIONS: Record<string, DialplanFunction> = {
  MESSAGE: {
    read: (ctx, args) => {
      const message = messageOf(ctx.channel);
      const field = args.trim().toLowerCase();
      return field === 'to' || field === 'from' || field === 'body' ? message[field] : '';
    },
    write: (ctx, args, value) => {
      const field = args.trim().toLowerCase();
      if (field === 'to' || field === 'from' || field === 'body') messageOf(ctx.channel)[field] = value;
      else ctx.log.warn({ field: args }, 'MESSAGE(): expected to, from or body');
    },
  },
  MESSAGE_DATA: {
    read: (ctx, args) => {
      const wanted = args.trim().toLowerCase();
      const entry = Object.entries(messageOf(ctx.channel).data).find(([name]) => name.toLowerCase() === wanted);
      return entry?.[1] ?? '';
    },
    write: (ctx, args, value) => {
      const name = args.trim();
      if (name === '') return;
      messageOf(ctx.channel).data[name] = value;
    },
  },
};

/** The user part of a SIP URI (`sip:bob@host` → bob); the text itself when it has none. */
function userOf(uri: string): string {
  const match = /^(?:.*<)?sips?:([^@;>]+)@/i.exec(uri);
  return match ? decodeURIComponent(match[1]) : uri;
}

/** MessageSend(destination[,from[,to]]) */
export const messageSend: DialplanApplication = async (ctx, [destination = '', from = '', to = '']): Promise<DialplanFlow> => {
  const send = ctx.pbx.messaging?.send;
  const message = messageOf(ctx.channel);
  const target = destination.trim() || message.to;
  if (send === undefined || target === '') {
    ctx.channel.setVariable('MESSAGE_SEND_STATUS', 'INVALID_URI');
    ctx.log.warn({ destination }, 'MessageSend needs a destination such as pjsip:bob');
    return { kind: 'next' };
  }
  // `PJSIP/bob` is accepted as the dial-string spelling of `pjsip:bob`.
  const normalised = /^(pj)?sip\//i.test(target) ? `pjsip:${target.slice(target.indexOf('/') + 1)}` : target;
  const routed = /^sips?:/i.test(normalised) ? `pjsip:${normalised}` : normalised;
  try {
    await send(routed, from.trim() || message.from, message.body, { ...message.data, ...(to.trim() ? { To: to.trim() } : {}) });
    ctx.channel.setVariable('MESSAGE_SEND_STATUS', 'SUCCESS');
  } catch (err) {
    ctx.log.warn({ destination: routed, err: err instanceof Error ? err.message : String(err) }, 'MessageSend failed');
    ctx.channel.setVariable('MESSAGE_SEND_STATUS', 'FAILURE');
  }
  return { kind: 'next' };
};

const MESSAGE_TECHNOLOGY: ChannelTechnology = {
  protocolId: '',
  mediaLegId: undefined,
  answer: () => Promise.resolve(),
  indicateRinging: () => Promise.resolve(),
  indicateProgress: () => Promise.resolve(),
  hangup: () => Promise.resolve(),
};

/** Runs a received message through the dialplan of its endpoint, if that context has its extension. */
export async function routeTextMessage(
  deps: { runner: DialplanRunner; endpoints: () => readonly SipEndpointConfig[]; defaultLanguage: string; log: Logger },
  endpointName: string,
  message: TextMessageSnapshot,
): Promise<void> {
  const endpoint = deps.endpoints().find((e) => e.name === endpointName);
  if (endpoint === undefined) return;
  const context = endpoint.messageContext ?? endpoint.context;
  const exten = userOf(message.to);
  if (!deps.runner.pbx.exists(context, exten)) {
    deps.log.debug({ context, exten, endpoint: endpointName }, 'no dialplan for this message');
    return;
  }
  const id = randomUUID();
  const channel = new Channel(
    {
      id,
      name: `Message/ast_msg_queue-${id.slice(0, 8)}`,
      technology: 'Message',
      endpoint: endpointName,
      direction: 'inbound',
      state: 'Up',
      caller: { name: '', number: userOf(message.from) },
      language: endpoint.language ?? deps.defaultLanguage,
      dialplan: { context, exten, priority: 1 },
      tech: MESSAGE_TECHNOLOGY,
      snapshotVariables: [],
    },
    new EventBus(),
    deps.log,
  );
  messages.set(channel, { to: message.to, from: message.from, body: message.body, data: { ...(message.variables ?? {}) } });
  await deps.runner.run(channel, { context, exten, priority: 1 });
}
