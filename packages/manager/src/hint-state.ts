/**
 * Extension states from dialplan hints (`exten => 101,hint,SIP/alice`): the combined state of the
 * hint's devices as the original's numbers and texts (ExtensionState, ExtensionStatus).
 */
import { aggregateDeviceStates, type DeviceStateValue, type SwitchboardCore } from '@switchboard/core';

/** The original's extension state numbers and their texts. */
const EXTENSION_STATES: Record<DeviceStateValue, { status: number; text: string }> = {
  NOT_INUSE: { status: 0, text: 'Idle' },
  INUSE: { status: 1, text: 'InUse' },
  BUSY: { status: 2, text: 'Busy' },
  UNAVAILABLE: { status: 4, text: 'Unavailable' },
  INVALID: { status: 4, text: 'Unavailable' },
  RINGING: { status: 8, text: 'Ringing' },
  RINGINUSE: { status: 9, text: 'InUse&Ringing' },
  ONHOLD: { status: 16, text: 'Hold' },
  UNKNOWN: { status: -1, text: 'Unknown' },
};

export interface ExtensionState {
  exten: string;
  context: string;
  /** Devices joined with `&`. */
  hint: string;
  status: number;
  statusText: string;
}

async function deviceState(core: SwitchboardCore, device: string): Promise<string> {
  try {
    return (await core.deviceStates.get(device)).state;
  } catch {
    return 'UNKNOWN';
  }
}

/** Undefined when the extension has no hint. */
export async function extensionState(core: SwitchboardCore, context: string, exten: string): Promise<ExtensionState | undefined> {
  const devices = core.hintDevices(context, exten);
  if (devices === undefined) return undefined;
  const states = await Promise.all(devices.map((d) => deviceState(core, d)));
  const { status, text } = EXTENSION_STATES[aggregateDeviceStates(states)];
  return { exten, context, hint: devices.join('&'), status, statusText: text };
}

/** Every (context, exten) whose hint names `device` (case-insensitive). */
export function hintsWithDevice(core: SwitchboardCore, device: string): { context: string; exten: string }[] {
  const canonical = (name: string) => name.toLowerCase().replace(/^pjsip\//, 'sip/');
  const wanted = canonical(device);
  const found: { context: string; exten: string }[] = [];
  for (const context of core.config.dialplan.contexts) {
    for (const [exten, devices] of Object.entries(context.hints ?? {})) {
      if (devices.some((d) => canonical(d) === wanted)) found.push({ context: context.name, exten });
    }
  }
  return found;
}
