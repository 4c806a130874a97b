/**
 * Page(Technology/Resource[&Technology2/Resource2…][,options[,timeout]]): a one-way intercom, as
 * in the original. The caller is answered and every target is called at once; each one that
 * answers joins one bridge with the caller and hears them, muted (option `d`: full duplex, the
 * pages are heard too). A target not answering within `timeout` seconds (none when absent) is
 * given up. The page ends when the caller hangs up (the pages are hung up) or when every page is
 * gone (the caller continues at the next priority). Phones answer pages by their own auto-answer
 * setting: outbound calls carry no auto-answer header yet.
 */
import {
  type Channel,
  type ChannelDriver,
  type ChannelRegistry,
  type ChannelTechnologyEvents,
  CoreError,
  type DialplanApplication,
  type DialplanFlow,
} from '@switchboard/core';
import { CAUSE_NORMAL_CLEARING } from './hangup-causes.js';
import { CAUSE_NO_ANSWER, CAUSE_SUBSCRIBER_ABSENT } from './outbound-call.js';

export interface PageBridges {
  create(): Promise<string>;
  /** Adds a channel; `mute`: what it says is not heard in the bridge. */
  add(bridgeId: string, channel: Channel, options: { mute: boolean }): Promise<void>;
  destroy(bridgeId: string): Promise<void>;
}

export interface PageAppDeps {
  channels: Pick<ChannelRegistry, 'create'>;
  driverFor(technology: string): ChannelDriver | undefined;
  bridges: PageBridges;
  snapshotVariables?: readonly string[];
}

export function createPageApplication(deps: PageAppDeps): DialplanApplication {
  return async (ctx, [targetsArg = '', optionsArg = '', timeoutArg = '']): Promise<DialplanFlow> => {
    const caller = ctx.channel;
    const duplex = optionsArg.includes('d');
    const dialstrings = targetsArg
      .split('&')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (dialstrings.length === 0) {
      ctx.log.warn('Page requires at least one target');
      return { kind: 'next' };
    }
    await caller.answer();
    const bridgeId = await deps.bridges.create();
    const pages = new Set<Channel>();
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const onCallerHangup = () => finish();
    caller.hangupSignal.addEventListener('abort', onCallerHangup, { once: true });
    try {
      await deps.bridges.add(bridgeId, caller, { mute: false });
      const timeoutSeconds = Number(timeoutArg);
      for (const dialstring of dialstrings) {
        const page = startPage(ctx, deps, caller, dialstring, bridgeId, duplex, pages, () => {
          if (pages.size === 0) finish();
        });
        if (page === undefined) continue;
        pages.add(page.channel);
        if (timeoutSeconds > 0) {
          setTimeout(() => {
            if (page.channel.state !== 'Up' && !page.channel.isDestroyed) void page.channel.hangup(CAUSE_NO_ANSWER);
          }, timeoutSeconds * 1000).unref();
        }
      }
      if (pages.size === 0) return { kind: 'next' };
      await finished;
    } finally {
      caller.hangupSignal.removeEventListener('abort', onCallerHangup);
      for (const page of pages) if (!page.isDestroyed) void page.hangup(CAUSE_NORMAL_CLEARING);
      await deps.bridges.destroy(bridgeId).catch(() => undefined);
    }
    return caller.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
  };
}

function startPage(
  ctx: Parameters<DialplanApplication>[0],
  deps: PageAppDeps,
  caller: Channel,
  dialstring: string,
  bridgeId: string,
  duplex: boolean,
  pages: Set<Channel>,
  gone: () => void,
): { channel: Channel } | undefined {
  const slash = dialstring.indexOf('/');
  const technology = slash === -1 ? dialstring : dialstring.slice(0, slash);
  const resource = slash === -1 ? '' : dialstring.slice(slash + 1);
  const driver = deps.driverFor(technology);
  if (driver?.prepareOutbound === undefined || resource === '') {
    ctx.log.warn({ dialstring }, 'Page target has no usable technology');
    return undefined;
  }
  let call: ReturnType<NonNullable<ChannelDriver['prepareOutbound']>>;
  try {
    call = driver.prepareOutbound({
      resource,
      caller: { ...caller.caller },
      variables: {},
      mediaNear: caller.tech.mediaLegId,
    });
  } catch (err) {
    if (!(err instanceof CoreError)) throw err;
    ctx.log.info({ dialstring, err: err.message }, 'Page target refused');
    return undefined;
  }
  const channel = deps.channels.create({
    name: call.name,
    technology: driver.technology,
    endpoint: call.endpoint,
    direction: 'outbound',
    state: 'Down',
    caller: { ...caller.caller },
    language: caller.language,
    dialplan: { context: caller.dialplan.context, exten: caller.dialplan.exten, priority: 1 },
    tech: call.tech,
    snapshotVariables: deps.snapshotVariables ?? [],
  });
  const leave = () => {
    if (pages.delete(channel)) gone();
  };
  const events: ChannelTechnologyEvents = {
    ringing: () => {
      if (!channel.isDestroyed) channel.setState('Ringing');
    },
    answered: () => {
      if (channel.isDestroyed) return;
      channel.setState('Up');
      deps.bridges.add(bridgeId, channel, { mute: !duplex }).catch((err: unknown) => {
        ctx.log.warn({ err, dialstring }, 'page could not join the bridge');
        void channel.hangup(CAUSE_NORMAL_CLEARING);
      });
    },
    hungUp: (cause) => {
      channel.remoteHangup(cause);
      leave();
    },
  };
  call.dial(events, { timeoutSeconds: 0 }).catch((err: unknown) => {
    ctx.log.warn({ err, dialstring }, 'Page target could not be called');
    channel.remoteHangup(CAUSE_SUBSCRIBER_ABSENT);
    leave();
  });
  channel.onHangup(() => leave());
  return { channel };
}
