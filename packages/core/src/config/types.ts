/**
 * The typed configuration the server runs on, read from Asterisk-style INI files in the conf
 * directory (see conf/ for the shipped defaults). Option names follow the files operators know.
 */
import type { AudioCodecName } from '../media/media-engine.js';

/** switchboard.conf: server-wide options and directories (relative paths resolve against the conf directory). */
export interface GeneralConfig {
  /** Shown as `system.entity_id`/`asterisk_id`: a MAC-style identifier; generated when unset. */
  entityId: string;
  systemName: string;
  defaultLanguage: string;
  /** Sound directories, searched in order; each holds `<lang>/<name>.<ext>`. */
  soundDirs: string[];
  recordingDir: string;
  /** Media worker threads; 0 means one per spare core (at least one). */
  mediaWorkers: number;
}

/** http.conf [general] */
export interface HttpConfig {
  enabled: boolean;
  bindAddress: string;
  bindPort: number;
  /** Optional URL prefix in front of /ari. */
  prefix: string;
}

export interface AriUser {
  name: string;
  password: string;
  /** `crypt` passwords are not supported yet; `plain` is. */
  passwordFormat: 'plain' | 'crypt';
  readOnly: boolean;
}

/** ari.conf */
export interface AriConfig {
  enabled: boolean;
  /** Channel variables shown in every channel snapshot under `channelvars`. */
  channelVars: string[];
  allowedOrigins: string[];
  users: AriUser[];
  /** Milliseconds a WebSocket write may take before the connection is dropped. */
  websocketWriteTimeoutMs: number;
}

export type SipTransportProtocol = 'udp' | 'tcp' | 'tls' | 'ws' | 'wss';

/** pjsip.conf `type=transport` */
export interface SipTransportConfig {
  name: string;
  protocol: SipTransportProtocol;
  bindAddress: string;
  bindPort: number;
  externalSignalingAddress?: string;
  externalMediaAddress?: string;
  certFile?: string;
  privKeyFile?: string;
}

/** pjsip.conf `type=endpoint` */
export interface SipEndpointConfig {
  name: string;
  context: string;
  /** Allowed codecs in preference order, after applying `disallow`/`allow`. */
  codecs: AudioCodecName[];
  transport?: string;
  language?: string;
  /** `tone_zone`: the indications.conf zone of the endpoint's channels (lower case); absent: the default zone. */
  toneZone?: string;
  /** `callerid = "Alice" <100>` split into name and number. */
  callerId?: { name: string; number: string };
  aors: string[];
  auth?: string;
  mailboxes: string[];
  dtmfMode: 'rfc4733' | 'info' | 'inband' | 'auto';
  forceRport: boolean;
  rewriteContact: boolean;
  rtpSymmetric: boolean;
  directMedia: boolean;
}

/** pjsip.conf `type=identify`: callers recognised by source address. */
export interface SipIdentifyConfig {
  name: string;
  endpoint: string;
  /** IP addresses or CIDR ranges (v4 or v6). */
  match: string[];
}

/** pjsip.conf `type=aor` */
export interface SipAorConfig {
  name: string;
  maxContacts: number;
  removeExisting: boolean;
  defaultExpiration: number;
  minimumExpiration: number;
  maximumExpiration: number;
  qualifyFrequency: number;
  contacts: string[];
}

/** pjsip.conf `type=auth` */
export interface SipAuthConfig {
  name: string;
  authType: 'userpass';
  username: string;
  password: string;
  realm?: string;
  /**
   * Digest algorithms this auth accepts from phones (`supported_algorithms_uas`), in challenge order.
   * Absent or default: MD5 alone, since several deployed phones fail on a 401 that also names SHA-256.
   */
  supportedAlgorithmsUas?: ('MD5' | 'SHA-256')[];
}

export interface SipConfig {
  transports: SipTransportConfig[];
  endpoints: SipEndpointConfig[];
  identifies: SipIdentifyConfig[];
  aors: SipAorConfig[];
  auths: SipAuthConfig[];
}

/** rtp.conf [general] */
export interface RtpConfig {
  rtpStart: number;
  rtpEnd: number;
}

/** One dialplan step: `exten => 100,1(label),App(args)`. */
export interface DialplanPriority {
  priority: number;
  label?: string;
  app: string;
  /** Raw argument text, `${...}` not yet expanded. */
  appData: string;
  /** Where it was written, for error messages. */
  file: string;
  line: number;
}

export interface DialplanExtension {
  /** Literal extension or a pattern starting with `_`. */
  pattern: string;
  priorities: DialplanPriority[];
}

export interface DialplanContext {
  name: string;
  extensions: DialplanExtension[];
  includes: string[];
}

/** extensions.conf */
export interface DialplanConfig {
  contexts: DialplanContext[];
  /** `[globals]` */
  globals: Record<string, string>;
}

/** One tone zone of indications.conf: tone name → pattern (see playback/tone-pattern.ts). */
export interface ToneZone {
  description: string;
  tones: Record<string, string>;
}

/** indications.conf */
export interface IndicationsConfig {
  /** The zone used when a request names none (`[general] country`). */
  country: string;
  /** By lower-case zone name. */
  zones: Record<string, ToneZone>;
}

/** One musiconhold.conf class (mode `files`). */
export interface MusicOnHoldClass {
  name: string;
  /** Absolute directory of the class's WAV files. */
  directory: string;
  sort: 'alpha' | 'random';
}

/** musiconhold.conf */
export interface MusicOnHoldConfig {
  classes: Record<string, MusicOnHoldClass>;
}

export interface SwitchboardConfig {
  /** Absolute path of the conf directory this was read from. */
  confDir: string;
  general: GeneralConfig;
  http: HttpConfig;
  ari: AriConfig;
  sip: SipConfig;
  rtp: RtpConfig;
  dialplan: DialplanConfig;
  /** Absent (hand-built configurations): the built-in defaults of indications-config.ts. */
  indications?: IndicationsConfig;
  /** Absent (hand-built configurations): the built-in defaults of musiconhold-config.ts. */
  musicOnHold?: MusicOnHoldConfig;
}
