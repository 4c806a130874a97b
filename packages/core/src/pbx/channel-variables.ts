import type { Channel } from '../channels/channel.js';

/**
 * Resolves `${NAME}` (args undefined) or `${FUNC(args)}` for a channel: the built-ins operators
 * use, then the channel's own variables, then `[globals]`. Unknown functions return undefined so
 * the expander's own functions (LEN, IF, …) answer them.
 */
export function channelVariable(
  channel: Channel,
  name: string,
  args: string | undefined,
  location: { context: string; exten: string; priority: number },
  globals: ReadonlyMap<string, string>,
): string | undefined {
  if (args !== undefined) return channelFunction(channel, name.toUpperCase(), args.trim());
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
      return channel.language;
    case 'EPOCH':
      return String(Math.floor(Date.now() / 1000));
    case 'HANGUPCAUSE': {
      // Dial() sets it to the callee's cause; otherwise it is this channel's own.
      const set = channel.getVariable('HANGUPCAUSE');
      if (set !== undefined) return set;
      return channel.hangupCause === undefined ? '' : String(channel.hangupCause);
    }
  }
  return channel.getVariable(name) ?? globals.get(name);
}

function channelFunction(channel: Channel, name: string, args: string): string | undefined {
  if (name === 'CALLERID') {
    switch (args.toLowerCase()) {
      case 'num':
      case 'number':
        return channel.caller.number;
      case 'name':
        return channel.caller.name;
      case 'all':
        return channel.caller.name ? `"${channel.caller.name}" <${channel.caller.number}>` : channel.caller.number;
    }
    return '';
  }
  if (name === 'CHANNEL') {
    switch (args.toLowerCase()) {
      case 'language':
        return channel.language;
      case 'state':
        return channel.state;
      case 'name':
        return channel.name;
      case 'uniqueid':
        return channel.id;
    }
    return '';
  }
  return undefined;
}
