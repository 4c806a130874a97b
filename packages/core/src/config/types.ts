import type { AclRule } from '../security/address-acl.js';
import type { AuthFailureLimits } from '../security/auth-failure-limiter.js';
/**
 * The typed configuration the server runs on, read from Asterisk-style INI files in the conf
 * directory (see conf/ for the shipped defaults). Option names follow the files operators know.
 */
import type { AudioCodecName, VideoCodecName } from '../media/media-engine.js';

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
  /** `highpriority`: the server's threads at realtime priority (the original's `-p`). */
  highPriority: boolean;
  store: StoreConfig;
  /** switchboard.conf [cluster]: absent on a node of its own. */
  cluster?: ClusterConfig;
}

/** One node of a cluster: its `systemname` and the root of its control API. */
export interface ClusterNodeConfig {
  name: string;
  /** `http://host:port/ari` (with the node's http.conf prefix, if any). */
  ari: string;
}

/** switchboard.conf [cluster]: how the nodes reach each other's control API. */
export interface ClusterConfig {
  /** Sent by a node forwarding a request; never a user's password. */
  secret: string;
  nodes: ClusterNodeConfig[];
  /** `node_timeout`: a node whose heartbeat is older than this is dead and its leftovers are cleared (ms). */
  nodeTimeoutMs: number;
}

/** switchboard.conf [store]: SQLite in the data directory, or a PostgreSQL database shared by a cluster. */
export type StoreConfig = { backend: 'sqlite' } | { backend: 'postgres'; url: string };

/** http.conf [general] */
export interface HttpConfig {
  enabled: boolean;
  bindAddress: string;
  bindPort: number;
  /** Optional URL prefix in front of /ari. */
  prefix: string;
  /** Connection limits and timeouts (absent in hand-built configurations: DEFAULT_HTTP_LIMITS). */
  limits?: HttpLimits;
}

/** http.conf connection limits; the option names are in http-config.ts. */
export interface HttpLimits {
  /** Connections open at once (`sessionlimit`). */
  maxConnections: number;
  /** Connections open at once from one address (`sessionlimit_per_address`). */
  maxConnectionsPerAddress: number;
  /** Idle time allowed on a connection between requests (`session_keep_alive`, ms). */
  keepAliveTimeoutMs: number;
  /** Time to receive a request's headers from the connection's start (`header_timeout`, ms). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (`request_timeout`, ms). */
  requestTimeoutMs: number;
  /** A connection with no traffic at all for this long is closed (`session_inactivity`, ms). */
  inactivityTimeoutMs: number;
}

/**
 * The naming an API user is served in: `switchboard` is SPEC.md's; `asterisk` is the reference's
 * (StasisStart, `/asterisk`, `Stasis:` devices, `PJSIP` channels…). packages/api holds the one
 * table of the differences.
 */
export type ApiDialect = 'switchboard' | 'asterisk';

export interface AriUser {
  name: string;
  password: string;
  /** `crypt` passwords are not supported yet; `plain` is. */
  passwordFormat: 'plain' | 'crypt';
  readOnly: boolean;
  /** Addresses the user may log in from (ari.conf acl/permit/deny); absent or empty: any. */
  acl?: readonly AclRule[];
  /** ari.conf `dialect` of the user's section, else of [general]. */
  dialect: ApiDialect;
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
  /** Failed-login limits of REST and events logins (unset: AuthFailureLimiter's defaults). */
  loginLimits?: Partial<AuthFailureLimits>;
  /** `[general] dialect`: the users' default. */
  dialect: ApiDialect;
  /** Seconds an application's events stay available to a reconnecting client (`?resume=`); 0 turns resume off. */
  resumeWindowSeconds: number;
  /** Events kept per application for resume; older ones are dropped first. */
  resumeMaxEvents: number;
  /** Connections Switchboard opens to applications (`type = outbound_websocket`). */
  outboundWebsockets: OutboundWebsocketConfig[];
}

/** ari.conf `type = outbound_websocket` (see outbound-websocket-config.ts for the options). */
export interface OutboundWebsocketConfig {
  name: string;
  apps: string[];
  uri: string;
  protocols: string[];
  connectionType: 'persistent' | 'per_call_config';
  username?: string;
  password?: string;
  /** The ari.conf user REST-over-WebSocket requests on this connection run as ('' : none, every request 401). */
  localAriUser: string;
  subscribeAll: boolean;
  connectionTimeoutMs: number;
  reconnectIntervalMs: number;
  reconnectAttempts: number;
  tlsEnabled: boolean;
  caListFile?: string;
  verifyServerCert: boolean;
  verifyServerHostname: boolean;
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
  /** `external_signaling_port`: the port advertised with `external_signaling_address` (default: the bound port). */
  externalSignalingPort?: number;
  /**
   * `local_net` (repeatable): networks reached without NAT; peers inside them see our own
   * addresses, everyone else the `external_*` ones. IP/prefix as written.
   */
  localNets?: string[];
  certFile?: string;
  privKeyFile?: string;
  /** Connection-oriented transports: connections at once from one address. */
  maxConnectionsPerAddress?: number;
  /** Idle limit of a connection that carried a 2xx response from us. */
  idleTimeoutMs?: number;
  /** Idle limit of a connection before that. */
  unauthenticatedIdleTimeoutMs?: number;
  /** Time to complete a message (or a WebSocket handshake) once begun. */
  messageTimeoutMs?: number;
  /**
   * `native_socket` (UDP): the socket's system calls on a thread of its own when the native library
   * was built at install (default yes); `no` keeps Node's dgram on the event loop's thread.
   */
  nativeSocket?: boolean;
}

/** pjsip.conf `type=endpoint` */
export interface SipEndpointConfig {
  name: string;
  context: string;
  /** Allowed codecs in preference order, after applying `disallow`/`allow`. */
  codecs: AudioCodecName[];
  /**
   * Allowed video codecs in preference order (`allow = h264,vp8`); empty or absent: the endpoint
   * gets no video (offered m=video lines are answered with port 0).
   */
  videoCodecs?: VideoCodecName[];
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
  /** `allow_transfer` (default yes): a REFER from this endpoint's phone is served; no: refused with 603. */
  allowTransfer?: boolean;
  /**
   * Session timers (RFC 4028) on calls to this endpoint (`timers`): `no` (none), `yes` (offered:
   * `Supported: timer`, the default), `required` (`Require: timer`: a callee without timers refuses
   * the call), `always` (offered, and run with us as the refresher even when the far end does not
   * do timers). Absent means `yes`.
   */
  timers?: 'no' | 'yes' | 'required' | 'always';
  /** `timers_min_se`: the smallest interval we accept, seconds (default 90, RFC 4028 §4). */
  timersMinSe?: number;
  /** `timers_sess_expires`: the interval we ask for, seconds (default 1800). */
  timersSessExpires?: number;
  /** `outbound_auth`: the type=auth section answering 401/407 challenges to requests we send. */
  outboundAuth?: string;
  /**
   * `rtp_timeout`: seconds without RTP from the phone (off hold) after which its answered call is
   * hung up (cause 44); absent or 0: never (pjsip-rtp-timeout.ts).
   */
  rtpTimeout?: number;
  /** `rtp_timeout_hold`: the same while the phone holds the call (its SDP sendonly/inactive); absent or 0: never. */
  rtpTimeoutHold?: number;
  /** `identify_by`: how requests are matched to this endpoint (default `username,ip`). */
  identifyBy?: SipIdentifyBy[];
  /** `message_context`: where out-of-call MESSAGEs from this endpoint run the dialplan (default: `context`). */
  messageContext?: string;
  /** `moh_suggest`: the music-on-hold class played to the other party while this endpoint holds (default `default`). */
  mohSuggest?: string;
  /** `media_address`: the address written in our SDP for this endpoint's calls. */
  mediaAddress?: string;
  /** `bind_rtp_to_media_address`: the RTP sockets of this endpoint's calls bind to `media_address`. */
  bindRtpToMediaAddress?: boolean;
  /** `accountcode`: copied into this endpoint's channels and CDRs. */
  accountCode?: string;
  /** `deny`/`permit` (ACL): source ranges refused / allowed again, in order; absent: every address. */
  acl?: Array<{ action: 'deny' | 'permit'; range: string }>;
  /** `subscribe_context`: where the hints of this phone's busy-lamp subscriptions are looked up (default: `context`). */
  subscribeContext?: string;
  /**
   * `media_encryption`: `no` (plain RTP, the default), `sdes` (SRTP keyed by `a=crypto`, RFC 4568),
   * `dtls` (DTLS-SRTP, RFC 5764). Absent means `no`.
   */
  mediaEncryption?: 'no' | 'sdes' | 'dtls';
  /**
   * `media_encryption_optimistic`: encrypt when the peer can, but offer RTP/AVP and accept plain
   * RTP when it cannot, instead of refusing the call.
   */
  mediaEncryptionOptimistic?: boolean;
  /** `webrtc`: a browser phone; implies the options below it marks as implied (pjsip-webrtc.ts). */
  webrtc?: boolean;
  /** `use_avpf`: offer RTP/AVPF (RTP/SAVPF, UDP/TLS/RTP/SAVPF) with RTCP feedback (RFC 4585). Implied by webrtc. */
  useAvpf?: boolean;
  /** `ice_support`: ICE-lite with host candidates in our SDP, checks answered (RFC 8445). Implied by webrtc. */
  iceSupport?: boolean;
  /** `rtcp_mux`: RTCP on the RTP port (RFC 5761). Implied by webrtc. */
  rtcpMux?: boolean;
  /** `media_use_received_transport`: answer with the transport profile the offer used. Implied by webrtc. */
  mediaUseReceivedTransport?: boolean;
  /** `dtls_verify`: the peer's certificate is checked against its a=fingerprint in every case. Implied: fingerprint. */
  dtlsVerify?: 'no' | 'yes' | 'fingerprint' | 'certificate';
  /** `dtls_setup`: our a=setup in offers (RFC 4145, RFC 8842). Implied by webrtc: actpass. */
  dtlsSetup?: 'active' | 'passive' | 'actpass';
  /** `dtls_fingerprint`: the hash of our a=fingerprint (sha-256). */
  dtlsFingerprint?: 'SHA-256';
  /** `dtls_cert_file` and `dtls_private_key` (PEM, resolved against the conf directory); absent: the generated one. */
  dtlsCertFile?: string;
  dtlsPrivateKey?: string;
}

/** pjsip.conf `type=identify`: callers recognised by source address. */
export interface SipIdentifyConfig {
  name: string;
  endpoint: string;
  /** IP addresses or CIDR ranges (v4 or v6). */
  match: string[];
  /** `match_header = Name: value`: requests carrying this header value belong to the endpoint. */
  matchHeader?: { name: string; value: string };
}

/** How a request is matched to an endpoint (pjsip.conf `identify_by`, `endpoint_identifier_order`). */
export type SipIdentifyBy = 'username' | 'auth_username' | 'ip' | 'header' | 'anonymous';

/** pjsip.conf `type=global`. */
export interface SipGlobalConfig {
  /** `endpoint_identifier_order`: identifiers tried in turn (default `ip,username,anonymous`). */
  endpointIdentifierOrder: SipIdentifyBy[];
  /** `default_realm`: the digest realm of auths without their own (default `switchboard`). */
  defaultRealm?: string;
  /** `user_agent`: our User-Agent and Server header value. */
  userAgent?: string;
  /** `keep_alive_interval`: seconds between CRLF keep-alives on connection-oriented transports (0: none). */
  keepAliveInterval: number;
  /** `max_forwards`: Max-Forwards of requests we originate (default 70). */
  maxForwards: number;
  /** New calls are refused with 503 while the smoothed main-loop lag is at least this (ms; 0: off). */
  overloadMaxLoopLagMs?: number;
  /** New calls are refused with 503 while this many INVITEs are being set up. */
  overloadMaxCallsInSetup?: number;
  /** Retry-After of those 503s (s). */
  overloadRetryAfterS?: number;
  /** Digest failure limits (AuthFailureLimits). */
  authLimits?: Partial<AuthFailureLimits>;
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

/** pjsip.conf `type=registration`: we register to a provider (a trunk) as a phone would. */
export interface SipRegistrationConfig {
  name: string;
  /** Where the REGISTER goes (`server_uri`, the Request-URI). */
  serverUri: string;
  /** The account registered (`client_uri`: the To and From). */
  clientUri: string;
  /** The user part of our Contact (`contact_user`; default `s`). */
  contactUser?: string;
  /** `outbound_auth`: the auth section answering the registrar's challenges. */
  outboundAuth?: string;
  /** `transport`: the transport to register over (default: the one the server URI asks for, else the first). */
  transport?: string;
  /** `expiration`: the interval asked for, seconds (default 3600). */
  expiration: number;
  /** `retry_interval`: seconds between attempts after a failure (default 60). */
  retryInterval: number;
  /** `forbidden_retry_interval`: seconds before trying again after 403; 0 stops (default 0). */
  forbiddenRetryInterval: number;
  /** `max_retries`: failed attempts in a row before giving up (default 10). */
  maxRetries: number;
  /**
   * `line = yes`: our Contact carries a `line` token, and requests the provider sends to it are
   * identified as `endpoint` (no `type=identify` needed for a provider with changing addresses).
   */
  line?: boolean;
  /** `endpoint`: the endpoint calls arriving on the line belong to (needed with `line = yes`). */
  endpoint?: string;
}

export interface SipConfig {
  transports: SipTransportConfig[];
  endpoints: SipEndpointConfig[];
  identifies: SipIdentifyConfig[];
  aors: SipAorConfig[];
  auths: SipAuthConfig[];
  /** `type=global` (absent: the defaults of pjsip-global.ts). */
  global?: SipGlobalConfig;
  /** Outbound registrations (absent when pjsip.conf has none). */
  registrations?: SipRegistrationConfig[];
}

/** rtp.conf [general] */
export interface RtpConfig {
  rtpStart: number;
  rtpEnd: number;
  /** `native_sockets`: IPv4 legs on the native socket hub when it is built (default yes). */
  nativeSockets: boolean;
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
  /** `include => ctx,<time condition>`: included context → its condition text (pbx/time-condition.ts). */
  includeConditions?: Record<string, string>;
  /** `exten => 101,hint,SIP/alice&App:desk`: literal extension → its devices (absent: no hints). */
  hints?: Record<string, string[]>;
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

/** The in-call features of features.conf `[featuremap]`, by the original's names. */
export type FeatureName = 'blindxfer' | 'atxfer' | 'disconnect' | 'automixmon' | 'parkcall';

/** features.conf */
export interface FeaturesConfig {
  /** `[general] featuredigittimeout`: how long a typed prefix of a longer code waits for its next digit. */
  featureDigitTimeoutMs: number;
  /** `[general] transferdigittimeout` (seconds in the file): the wait for each digit of a blind transfer. */
  transferDigitTimeoutMs: number;
  /** DTMF code per feature; '' disables it. */
  featureMap: Record<FeatureName, string>;
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
  /** Absent (hand-built configurations): the built-in defaults of features-config.ts. */
  features?: FeaturesConfig;
  /** chan_websocket.conf; absent (hand-built configurations): plain-text control messages. */
  websocketChannel?: WebSocketChannelConfig;
}

/** chan_websocket.conf [global] (websocket-channel-config.ts). */
export interface WebSocketChannelConfig {
  /** The text control messages of media WebSockets: the legacy single lines, or JSON objects. */
  controlMessageFormat: 'plain-text' | 'json';
}
