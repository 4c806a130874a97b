import type { Channel } from '../channels/channel.js';

/**
 * Resolves a name inside `${…}` for a channel: the built-ins operators use, then the channel's
 * own variables, then `[globals]`.
 */
export function channelVariable(
  channel: Channel,
  name: string,
  location: { context: string; exten: string; priority: number },
  globals: ReadonlyMap<string, string>,
): string | undefined {
  switch (name) {
    case 'CHANNEL':
      return channel.name;
    case 'UNIQUEID':
      return channel.id;
    case 'EXTEN':
      return location.exten;
    case 'CONTEXT':
      return location.context;
    case 'PRIORITY':
      return String(location.priority);
    case 'LANGUAGE':
    case 'CHANNEL(language)':
      return channel.language;
    case 'CALLERID(num)':
    case 'CALLERID(number)':
      return channel.caller.number;
    case 'CALLERID(name)':
      return channel.caller.name;
    case 'CALLERID(all)':
      return channel.caller.name ? `"${channel.caller.name}" <${channel.caller.number}>` : channel.caller.number;
    case 'EPOCH':
      return String(Math.floor(Date.now() / 1000));
    case 'HANGUPCAUSE':
      return channel.hangupCause === undefined ? '' : String(channel.hangupCause);
    case 'CHANNEL(state)':
      return channel.state;
  }
  return channel.getVariable(name) ?? globals.get(name);
}
