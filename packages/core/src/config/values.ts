/**
 * Parsers for option values as operators write them. Each takes the option it reads so that an
 * invalid value stops startup with the file and line where it was written.
 */
import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import type { IniOption } from './ini.js';

export function invalid(option: IniOption, reason: string): ConfigError {
  return new ConfigError(option.file, option.line, `${option.rawKey} = ${option.value}: ${reason}`);
}

const TRUE_WORDS = new Set(['yes', 'true', 'y', 't', '1', 'on']);
const FALSE_WORDS = new Set(['no', 'false', 'n', 'f', '0', 'off']);

/** Asterisk booleans: yes/no, true/false, y/n, t/f, 1/0, on/off (any case). */
export function parseBool(option: IniOption): boolean {
  const word = option.value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw invalid(option, 'expected yes or no');
}

export function parseInteger(option: IniOption, min: number, max: number): number {
  const text = option.value.trim();
  if (!/^[+-]?\d+$/.test(text)) throw invalid(option, 'expected a whole number');
  const value = Number(text);
  if (value < min || value > max) throw invalid(option, `expected a number from ${min} to ${max}`);
  return value;
}

export function parsePort(option: IniOption): number {
  return parseInteger(option, 1, 65535);
}

/** `a, b,,c` → ['a', 'b', 'c'] */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function requireNonEmpty(option: IniOption): string {
  const value = option.value.trim();
  if (value === '') throw invalid(option, 'a value is required');
  return value;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

export function isHostname(text: string): boolean {
  return HOSTNAME.test(text);
}

/** An IP literal or a DNS name, as accepted by `bindaddr` or `external_*_address`. */
export function parseHost(option: IniOption): string {
  const value = requireNonEmpty(option);
  const bare = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  if (isIP(bare) === 0 && !isHostname(bare)) throw invalid(option, 'expected an IP address or host name');
  return bare;
}

/**
 * `ADDR`, `ADDR:PORT`, `[v6]`, `[v6]:PORT`, or a bare IPv6 address (more than one colon means the
 * colons belong to the address). The address must be an IP literal: a socket binds to it.
 */
export function parseBindAddress(option: IniOption, defaultPort: number): { address: string; port: number } {
  const value = requireNonEmpty(option);
  let address: string;
  let portText: string | undefined;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) throw invalid(option, "missing ']' after the IPv6 address");
    address = value.slice(1, close);
    const rest = value.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw invalid(option, "expected ':PORT' after ']'");
      portText = rest.slice(1);
    }
  } else {
    const colons = value.split(':').length - 1;
    if (colons === 1) {
      [address, portText] = value.split(':');
    } else {
      address = value;
    }
  }
  if (isIP(address) === 0) throw invalid(option, 'expected an IP address');
  if (portText === undefined) return { address, port: defaultPort };
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw invalid(option, 'the port must be a number from 1 to 65535');
  return { address, port };
}

/**
 * `"Alice" <100>`, `Alice <100>`, `<100>`, `100`, `Alice`: the number is what sits between angle
 * brackets; without brackets the text is a number if it looks like one, else a name.
 */
export function parseCallerId(value: string): { name: string; number: string } {
  const text = value.trim();
  const open = text.lastIndexOf('<');
  const close = text.lastIndexOf('>');
  if (open >= 0 && close > open) {
    return { name: unquoteName(text.slice(0, open)), number: text.slice(open + 1, close).trim() };
  }
  if (/^\+?[0-9*#\-() .]+$/.test(text)) return { name: '', number: text.replace(/[-() .]/g, '') };
  return { name: unquoteName(text), number: '' };
}

function unquoteName(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return trimmed;
}
