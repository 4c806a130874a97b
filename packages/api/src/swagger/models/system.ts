/**
 * Models of system.json (reference system.md). The reference's `AsteriskInfo`/`AsteriskPing` are
 * `SystemInfo`/`SystemPing` here, so the inner section model of that name becomes `SystemVersionInfo`
 * (the rename the reference proposes for the collision).
 */
import type { ConfigTupleRecord, LogChannelSnapshot, ModuleSnapshot, SystemInfo, SystemPing, Variable } from '@switchboard/core';
import type { ModelFor } from '../types.js';

type Section<K extends keyof SystemInfo> = NonNullable<SystemInfo[K]>;

export const BuildInfoModel = {
  id: 'BuildInfo',
  description: 'Info about how the server was built',
  properties: {
    os: { type: 'string', description: 'OS the server was built on', required: true },
    kernel: { type: 'string', description: 'Kernel version the server was built on', required: true },
    options: { type: 'string', description: 'Compile time options, or empty string if default', required: true },
    machine: { type: 'string', description: 'Machine architecture (x86_64, arm64, ...)', required: true },
    date: { type: 'string', description: 'Date and time when the server was built', required: true },
    user: { type: 'string', description: 'Username that built the server', required: true },
  },
} as const satisfies ModelFor<Section<'build'>>;

export const SystemVersionInfoModel = {
  id: 'SystemVersionInfo',
  description: 'Version and entity id of the running server',
  properties: {
    version: { type: 'string', description: 'Server version', required: true },
    entity_id: { type: 'string', description: 'Entity id of the server (same value as asterisk_id in events)', required: true },
  },
} as const satisfies ModelFor<Section<'system'>>;

export const SetIdModel = {
  id: 'SetId',
  description: 'Effective user/group id',
  properties: {
    user: { type: 'string', description: 'Effective user id', required: true },
    group: { type: 'string', description: 'Effective group id', required: true },
  },
} as const satisfies ModelFor<Section<'config'>['setid']>;

export const ConfigInfoModel = {
  id: 'ConfigInfo',
  description: 'Info about the server configuration; limits of 0 (unlimited) are omitted',
  properties: {
    name: { type: 'string', description: 'The system name of the server', required: true },
    default_language: { type: 'string', description: 'Default language for media playback', required: true },
    max_channels: { type: 'int', description: 'Maximum number of simultaneous channels', required: false },
    max_open_files: { type: 'int', description: 'Maximum number of open file handles (files, sockets)', required: false },
    max_load: { type: 'double', description: 'Maximum load average on the system', required: false },
    setid: { type: 'SetId', description: 'Effective user/group id for running the server', required: true },
  },
} as const satisfies ModelFor<Section<'config'>>;

export const StatusInfoModel = {
  id: 'StatusInfo',
  description: 'Info about the server status',
  properties: {
    startup_time: { type: 'Date', description: 'Time when the server was started', required: true },
    last_reload_time: { type: 'Date', description: 'Time when the configuration was last reloaded', required: true },
  },
} as const satisfies ModelFor<Section<'status'>>;

export const SystemInfoModel = {
  id: 'SystemInfo',
  description: 'Server system information; each section only when requested',
  properties: {
    build: { type: 'BuildInfo', description: 'Info about how the server was built', required: false },
    system: { type: 'SystemVersionInfo', description: 'Version and entity id', required: false },
    config: { type: 'ConfigInfo', description: 'Info about the server configuration', required: false },
    status: { type: 'StatusInfo', description: 'Info about the server status', required: false },
  },
} as const satisfies ModelFor<SystemInfo>;

export const SystemPingModel = {
  id: 'SystemPing',
  description: 'Answer to a ping',
  properties: {
    asterisk_id: { type: 'string', description: 'The system identifier (entity id)', required: true },
    ping: { type: 'string', description: 'Always the string pong', required: true },
    timestamp: { type: 'string', description: 'The time the server handled the ping', required: true },
  },
} as const satisfies ModelFor<SystemPing>;

export const VariableModel = {
  id: 'Variable',
  description: 'The value of a channel or global variable',
  properties: {
    value: { type: 'string', description: 'The value of the variable requested', required: true },
  },
} as const satisfies ModelFor<Variable>;

export const ModuleModel = {
  id: 'Module',
  description: 'Details of a module',
  properties: {
    name: { type: 'string', description: 'The name of this module', required: true },
    description: { type: 'string', description: 'The description of this module', required: true },
    use_count: { type: 'int', description: 'The number of times this module is being used', required: true },
    status: {
      type: 'string',
      description: 'The running status of this module',
      required: true,
      allowableValues: { valueType: 'LIST', values: ['Running', 'Not Running'] },
    },
    support_level: {
      type: 'string',
      description: 'The support state of this module',
      required: true,
      allowableValues: { valueType: 'LIST', values: ['core', 'extended', 'deprecated', 'unknown'] },
    },
  },
} as const satisfies ModelFor<ModuleSnapshot>;

export const LogChannelModel = {
  id: 'LogChannel',
  description: 'Details of a log channel',
  properties: {
    channel: { type: 'string', description: 'The log channel path', required: true },
    type: {
      type: 'string',
      description: 'Types of logs for the log channel',
      required: true,
      allowableValues: { valueType: 'LIST', values: ['File', 'Console', 'Syslog'] },
    },
    status: {
      type: 'string',
      description: 'Whether or not a log type is enabled',
      required: true,
      allowableValues: { valueType: 'LIST', values: ['Enabled', 'Disabled'] },
    },
    configuration: { type: 'string', description: 'The various log levels', required: true },
  },
} as const satisfies ModelFor<LogChannelSnapshot>;

export const ConfigTupleModel = {
  id: 'ConfigTuple',
  description: 'A key/value pair that makes up part of a configuration object.',
  properties: {
    attribute: { type: 'string', description: 'A configuration object attribute.', required: true },
    value: { type: 'string', description: 'The value for the attribute.', required: true },
  },
} as const satisfies ModelFor<ConfigTupleRecord>;

export const SYSTEM_MODELS = [
  SystemInfoModel,
  BuildInfoModel,
  SystemVersionInfoModel,
  ConfigInfoModel,
  SetIdModel,
  StatusInfoModel,
  SystemPingModel,
  VariableModel,
  ModuleModel,
  LogChannelModel,
  ConfigTupleModel,
];
