/**
 * CONFBRIDGE(bridge|user|menu,option)=value: a dynamic profile for the channel's next ConfBridge.
 * The first write starts from the default profile (`default_bridge`, `default_user`, an empty
 * menu) unless `template` names one of confbridge.conf to start from; `clear` drops the dynamic
 * profile. A menu option is a DTMF sequence and its value the actions, as in the file.
 */
import {
  type BridgeProfile,
  type ConfBridgeConfig,
  ConfBridgeOptionError,
  type MenuProfile,
  parseMenuActions,
  setBridgeOption,
  setUserOption,
  type UserProfile,
} from './confbridge-config.js';

export interface DynamicProfiles {
  bridge?: BridgeProfile;
  user?: UserProfile;
  menu?: MenuProfile;
}

export function requireProfile<P>(profiles: Map<string, P>, name: string, kind: string): P {
  const profile = profiles.get(name);
  if (profile === undefined) throw new ConfBridgeOptionError(`no ${kind} profile named '${name}' in confbridge.conf`);
  return profile;
}

function copyMenu(menu: MenuProfile): MenuProfile {
  return { name: menu.name, entries: new Map([...menu.entries].map(([digits, actions]) => [digits, [...actions]])) };
}

/**
 * Applies one CONFBRIDGE() write. Throws ConfBridgeOptionError for a value the option refuses,
 * an unknown template or type, or an option the profile does not have.
 */
export function setDynamicOption(config: ConfBridgeConfig, profiles: DynamicProfiles, type: string, option: string, value: string): void {
  const kind = type.trim().toLowerCase();
  const key = option.trim().toLowerCase();
  if (kind !== 'bridge' && kind !== 'user' && kind !== 'menu')
    throw new ConfBridgeOptionError(`type '${type}' must be bridge, user or menu`);
  if (key === 'clear') {
    delete profiles[kind];
    return;
  }
  if (kind === 'bridge') {
    if (key === 'template') profiles.bridge = { ...requireProfile(config.bridges, value.trim(), 'bridge') };
    else {
      profiles.bridge ??= { ...requireProfile(config.bridges, 'default_bridge', 'bridge') };
      if (!setBridgeOption(profiles.bridge, key, value)) throw new ConfBridgeOptionError(`'${option}' is not a bridge profile option`);
    }
  } else if (kind === 'user') {
    if (key === 'template') profiles.user = { ...requireProfile(config.users, value.trim(), 'user') };
    else {
      profiles.user ??= { ...requireProfile(config.users, 'default_user', 'user') };
      if (!setUserOption(profiles.user, key, value)) throw new ConfBridgeOptionError(`'${option}' is not a user profile option`);
    }
  } else if (key === 'template') {
    profiles.menu = copyMenu(requireProfile(config.menus, value.trim(), 'menu'));
  } else {
    const digits = option.trim().toUpperCase();
    if (!/^[0-9*#A-D]+$/.test(digits)) throw new ConfBridgeOptionError(`'${option}' is not a DTMF sequence`);
    profiles.menu ??= { name: 'dynamic', entries: new Map() };
    profiles.menu.entries.set(digits, parseMenuActions(value));
  }
}
