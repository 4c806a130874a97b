/**
 * manager.conf, read the way operators of the original write it: `[general]` for the listener,
 * every other section is a user named by its section. An invalid value of an option implemented
 * here stops startup with the file and line; an unknown option is logged and ignored.
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ConfigError, type IniOption, type IniSection, type Logger, readIniFile } from '@switchboard/core';
import { AclError, type AclRule, parseAclRule } from './acl.js';
import { Permissions } from './permissions.js';

export const MANAGER_CONF = 'manager.conf';

export interface ManagerUser {
  /** As written in the section header; logins match it case-insensitively. */
  name: string;
  secret: string;
  acl: AclRule[];
  read: Permissions;
  write: Permissions;
  /** `eventfilter` lines: a regular expression, `!` first to exclude. */
  eventFilters: string[];
  /** A write that makes no progress for this long drops the session. */
  writeTimeoutMs: number;
}

export interface ManagerTlsConfig {
  bindAddress: string;
  port: number;
  certFile: string;
  keyFile: string;
}

export interface ManagerConfig {
  enabled: boolean;
  bindAddress: string;
  port: number;
  tls: ManagerTlsConfig | undefined;
  /** `timestampevents`: a `Timestamp:` header on every event. */
  timestampEvents: boolean;
  /** `authtimeout` (seconds in the file): a connection that has not logged in by then is closed. */
  authTimeoutMs: number;
  /** `authlimit`: connections that have not logged in yet, at most. */
  authLimit: number;
  /** `maxsessions`: connections at once, logged in or not. */
  maxSessions: number;
  /** `maxsessionsperaddress`: connections at once from one address. */
  maxSessionsPerAddress: number;
  /** `actionlimit`: actions a session may send per second; beyond, they are answered with an error. */
  actionsPerSecond: number;
  /** By lower-cased name. */
  users: Map<string, ManagerUser>;
}

export const MANAGER_DEFAULTS = {
  port: 5038,
  tlsPort: 5039,
  bindAddress: '127.0.0.1',
  writeTimeoutMs: 100,
  authTimeoutMs: 30_000,
  authLimit: 50,
  maxSessions: 100,
  maxSessionsPerAddress: 20,
  actionsPerSecond: 100,
} as const;

function fail(option: IniOption, reason: string): ConfigError {
  return new ConfigError(option.file, option.line, `${option.rawKey} = ${option.value}: ${reason}`);
}

function bool(option: IniOption): boolean {
  const word = option.value.trim().toLowerCase();
  if (['yes', 'true', 'y', 't', '1', 'on'].includes(word)) return true;
  if (['no', 'false', 'n', 'f', '0', 'off'].includes(word)) return false;
  throw fail(option, 'expected yes or no');
}

function integer(option: IniOption, min: number, max: number): number {
  const text = option.value.trim();
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw fail(option, `expected a number from ${min} to ${max}`);
  return value;
}

function address(option: IniOption): string {
  const value = option.value.trim();
  if (isIP(value) === 0) throw fail(option, 'expected an IP address');
  return value;
}

/** `ADDR[:PORT]` or `[V6]:PORT`. */
function addressWithPort(option: IniOption, defaultPort: number): { address: string; port: number } {
  const value = option.value.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(value);
  const host = bracketed?.[1] ?? (isIP(value) === 6 ? value : plain?.[1]);
  const port = bracketed?.[2] ?? (isIP(value) === 6 ? undefined : plain?.[2]);
  if (host === undefined || isIP(host) === 0) throw fail(option, 'expected ADDRESS[:PORT]');
  const n = port === undefined ? defaultPort : Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw fail(option, 'port must be 1 to 65535');
  return { address: host, port: n };
}

function permissions(option: IniOption): Permissions {
  const { permissions: parsed, unknown } = Permissions.parse(option.value);
  if (unknown.length > 0) throw fail(option, `unknown permission class ${unknown.join(', ')}`);
  return parsed;
}

function readGeneral(section: IniSection | undefined, log: Logger): Omit<ManagerConfig, 'users'> {
  const general: Omit<ManagerConfig, 'users'> = {
    enabled: false,
    bindAddress: MANAGER_DEFAULTS.bindAddress,
    port: MANAGER_DEFAULTS.port,
    tls: undefined,
    timestampEvents: false,
    authTimeoutMs: MANAGER_DEFAULTS.authTimeoutMs,
    authLimit: MANAGER_DEFAULTS.authLimit,
    maxSessions: MANAGER_DEFAULTS.maxSessions,
    maxSessionsPerAddress: MANAGER_DEFAULTS.maxSessionsPerAddress,
    actionsPerSecond: MANAGER_DEFAULTS.actionsPerSecond,
  };
  let tlsEnabled = false;
  let tlsBind: { address: string; port: number } | undefined;
  let certOption: IniOption | undefined;
  let keyOption: IniOption | undefined;
  for (const option of section?.options ?? []) {
    switch (option.key) {
      case 'enabled':
        general.enabled = bool(option);
        break;
      case 'port':
        general.port = integer(option, 1, 65535);
        break;
      case 'bindaddr':
        general.bindAddress = address(option);
        break;
      case 'tlsenable':
        tlsEnabled = bool(option);
        break;
      case 'tlsbindaddr':
        tlsBind = addressWithPort(option, MANAGER_DEFAULTS.tlsPort);
        break;
      case 'tlscertfile':
        certOption = option;
        break;
      case 'tlsprivatekey':
        keyOption = option;
        break;
      case 'timestampevents':
        general.timestampEvents = bool(option);
        break;
      case 'authtimeout':
        general.authTimeoutMs = integer(option, 1, 3600) * 1000;
        break;
      case 'authlimit':
        general.authLimit = integer(option, 1, 10_000);
        break;
      case 'maxsessions':
        general.maxSessions = integer(option, 1, 10_000);
        break;
      case 'maxsessionsperaddress':
        general.maxSessionsPerAddress = integer(option, 1, 10_000);
        break;
      case 'actionlimit':
        general.actionsPerSecond = integer(option, 1, 100_000);
        break;
      default:
        log.warn({ file: option.file, line: option.line, option: option.rawKey }, 'manager.conf option not implemented; ignored');
    }
  }
  if (tlsEnabled) {
    if (!certOption) throw new ConfigError(section?.file ?? MANAGER_CONF, section?.line, 'tlsenable = yes needs tlscertfile');
    const certFile = certOption.value.trim();
    // As in the original: without tlsprivatekey the key is looked for in the certificate file.
    const keyFile = keyOption?.value.trim() || certFile;
    general.tls = {
      bindAddress: tlsBind?.address ?? general.bindAddress,
      port: tlsBind?.port ?? MANAGER_DEFAULTS.tlsPort,
      certFile,
      keyFile,
    };
  }
  return general;
}

function readUser(section: IniSection, log: Logger): ManagerUser {
  const user: ManagerUser = {
    name: section.name,
    secret: '',
    acl: [],
    read: Permissions.none,
    write: Permissions.none,
    eventFilters: [],
    writeTimeoutMs: MANAGER_DEFAULTS.writeTimeoutMs,
  };
  let hasSecret = false;
  for (const option of section.options) {
    switch (option.key) {
      case 'secret':
        user.secret = option.value;
        hasSecret = true;
        break;
      case 'deny':
      case 'permit':
        try {
          user.acl.push(parseAclRule(option.key, option.value));
        } catch (err) {
          if (err instanceof AclError) throw fail(option, err.message);
          throw err;
        }
        break;
      case 'read':
        user.read = permissions(option);
        break;
      case 'write':
        user.write = permissions(option);
        break;
      case 'eventfilter':
        try {
          new RegExp(option.value.replace(/^!/, ''));
        } catch {
          throw fail(option, 'not a valid regular expression');
        }
        user.eventFilters.push(option.value);
        break;
      case 'writetimeout':
        user.writeTimeoutMs = integer(option, 1, 600_000);
        break;
      default:
        log.warn(
          { file: option.file, line: option.line, option: option.rawKey, user: section.name },
          'manager.conf user option not implemented; ignored',
        );
    }
  }
  if (!hasSecret) throw new ConfigError(section.file, section.line, `manager user ${section.name} has no secret`);
  return user;
}

/** Reads `<confDir>/manager.conf`; a missing file means the manager is disabled. */
export function loadManagerConfig(confDir: string, log: Logger): ManagerConfig {
  const document = readIniFile(join(confDir, MANAGER_CONF));
  const sections = (document?.sections ?? []).filter((s) => !s.isTemplate);
  const general = readGeneral(
    sections.find((s) => s.name.toLowerCase() === 'general'),
    log,
  );
  const users = new Map<string, ManagerUser>();
  for (const section of sections) {
    if (section.name.toLowerCase() === 'general') continue;
    const user = readUser(section, log);
    users.set(user.name.toLowerCase(), user);
  }
  return { ...general, users };
}
