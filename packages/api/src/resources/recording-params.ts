/**
 * The parameters and errors of the two record operations (channels and bridges share them;
 * reference gaps.md [4-i]), and the Location of a new live recording.
 */
import type { RecordOptions } from '@switchboard/core';
import type { ParamValues, ParameterDecl } from '../swagger/types.js';

export const recordParams = [
  {
    name: 'name',
    description: 'Recording name: a path relative to the recording directory, without extension',
    paramType: 'query',
    dataType: 'string',
    required: true,
  },
  {
    name: 'format',
    description: 'Format to encode audio in (wav, ulaw, alaw, sln, g722, …)',
    paramType: 'query',
    dataType: 'string',
    required: true,
  },
  {
    name: 'maxDurationSeconds',
    description: 'Maximum duration of the recording, in seconds. 0 for no limit',
    paramType: 'query',
    dataType: 'int',
    required: false,
    defaultValue: 0,
    allowableValues: { valueType: 'RANGE', min: 0 },
  },
  {
    name: 'maxSilenceSeconds',
    description: 'Maximum duration of silence, in seconds. 0 for no limit; otherwise talking and silence durations are reported',
    paramType: 'query',
    dataType: 'int',
    required: false,
    defaultValue: 0,
    allowableValues: { valueType: 'RANGE', min: 0 },
  },
  {
    name: 'ifExists',
    description: 'Action to take if a recording with the same name already exists',
    paramType: 'query',
    dataType: 'string',
    required: false,
    defaultValue: 'fail',
    allowableValues: { valueType: 'LIST', values: ['fail', 'overwrite', 'append'] },
  },
  {
    name: 'beep',
    description: 'Play beep when recording begins',
    paramType: 'query',
    dataType: 'boolean',
    required: false,
    defaultValue: false,
  },
  {
    name: 'terminateOn',
    description: 'DTMF input to terminate recording',
    paramType: 'query',
    dataType: 'string',
    required: false,
    defaultValue: 'none',
    allowableValues: { valueType: 'LIST', values: ['none', 'any', '*', '#'] },
  },
] as const satisfies readonly ParameterDecl[];

export const RECORD_BAD_REQUEST = { code: 400, reason: 'Invalid parameters (an unusable recording name)' } as const;
export const RECORD_UNPROCESSABLE = { code: 422, reason: 'The format specified is unknown on this system' } as const;
/** SPEC §4.4 rule 6 answers 422; the reference (and the asterisk dialect) 409. */
export const RECORD_EXISTS = {
  code: 422,
  reason: 'A recording with that name already exists (ifExists=fail)',
  coreError: 'recording_exists',
} as const;

export function recordOptions(params: ParamValues<typeof recordParams>): RecordOptions {
  return {
    name: params.name,
    format: params.format,
    maxDurationSeconds: params.maxDurationSeconds,
    maxSilenceSeconds: params.maxSilenceSeconds,
    ifExists: params.ifExists,
    beep: params.beep,
    terminateOn: params.terminateOn,
  };
}

export const liveRecordingLocation = (apiRoot: string, name: string) => `${apiRoot}/recordings/live/${encodeURIComponent(name)}`;
