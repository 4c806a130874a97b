/**
 * Channel states as they appear on the wire (the state-to-string values of the reference,
 * including `Rsrvd`, not the documented `Rsrved`).
 */
export const CHANNEL_STATES = [
  'Down',
  'Rsrvd',
  'OffHook',
  'Dialing',
  'Ring',
  'Ringing',
  'Up',
  'Busy',
  'Dialing Offhook',
  'Pre-ring',
  'Unknown',
] as const;

export type ChannelState = (typeof CHANNEL_STATES)[number];

/**
 * Allowed moves of the channel state machine.
 *
 *   Down ──► Rsrvd ──► Dialing ──► Ringing ──► Up
 *     │                   │           │        ▲
 *     ├──► Ring ──────────┼───────────┼────────┤
 *     └──► OffHook ──► Dialing Offhook ────────┘
 *   any ──► Busy | Unknown ; Up is final until hangup (the channel is then destroyed, not moved).
 *
 * A hung-up channel is destroyed rather than moved to a state, so there is no terminal state here.
 */
export const CHANNEL_TRANSITIONS: Readonly<Record<ChannelState, readonly ChannelState[]>> = {
  Down: ['Rsrvd', 'OffHook', 'Dialing', 'Ring', 'Ringing', 'Up', 'Busy', 'Pre-ring', 'Unknown'],
  Rsrvd: ['Down', 'Dialing', 'Ring', 'Ringing', 'Up', 'Busy', 'Unknown'],
  OffHook: ['Dialing Offhook', 'Dialing', 'Up', 'Busy', 'Unknown'],
  Dialing: ['Ringing', 'Up', 'Busy', 'Unknown', 'Down'],
  'Dialing Offhook': ['Ringing', 'Up', 'Busy', 'Unknown'],
  Ring: ['Ringing', 'Up', 'Busy', 'Unknown'],
  Ringing: ['Ring', 'Up', 'Busy', 'Unknown'],
  'Pre-ring': ['Ring', 'Ringing', 'Up', 'Unknown'],
  Up: ['Unknown'],
  Busy: ['Unknown'],
  Unknown: ['Down', 'Up'],
};

export function canTransition(from: ChannelState, to: ChannelState): boolean {
  return from === to || CHANNEL_TRANSITIONS[from].includes(to);
}
