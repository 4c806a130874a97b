/**
 * The value an ari.conf `channelvars` entry shows in a channel snapshot: a channel variable, or —
 * for an entry written as a dialplan function (`CALLERID(num)`, `CHANNEL(language)`, `LEN(x)`) —
 * the function's value, read the way the dialplan reads it.
 */
import { callBuiltinFunction } from '../dialplan/functions.js';
import { channelVariable } from '../pbx/channel-variables.js';
import type { Channel } from './channel.js';

const FUNCTION_CALL = /^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/s;
const NO_GLOBALS: ReadonlyMap<string, string> = new Map();

/** `CALLERID(num)`: an entry that reads a dialplan function rather than a channel variable. */
export function isFunctionEntry(entry: string): boolean {
  return FUNCTION_CALL.test(entry.trim());
}

export function snapshotVariableValue(channel: Channel, entry: string): string {
  const call = FUNCTION_CALL.exec(entry.trim());
  if (!call) return channel.getVariable(entry) ?? '';
  const name = call[1] as string;
  const args = call[2] as string;
  return channelVariable(channel, name, args, channel.dialplan, NO_GLOBALS) ?? callBuiltinFunction(name, args) ?? '';
}
