// Over 500 lines: the one reader of pjsip.conf: the option table of each object type and the references between the objects.
/**
 * pjsip.conf: SIP objects, one per section, its kind given by `type =`. One name commonly appears in
 * several sections of different types (`[alice]` as endpoint and as aor); a name may not appear
 * twice with the same type. Templates (`[name](!)`) only feed other sections.
 *
 *   type = transport  protocol (udp|tcp|tls|ws|wss, default udp), bind (ADDR[:PORT], `[v6]:PORT`;
 *                     port defaults to 5060, 5061 for tls), external_media_address,
 *                     external_signaling_address, cert_file, priv_key_file (needed for tls);
 *                     for tcp/tls/ws/wss: max_connections_per_address (32), idle_timeout (900 s,
 *                     once the connection carried a 2xx from us), unauthenticated_idle_timeout
 *                     (60 s, before that), message_timeout (10 s to complete a message or handshake)
 *   type = endpoint   context (default `default`), disallow/allow (default ulaw,alaw when neither is
 *                     given), transport, language, callerid, aors, auth, mailboxes,
 *                     dtmf_mode (rfc4733|info|inband|auto, default rfc4733), force_rport (yes),
 *                     rewrite_contact (no), rtp_symmetric (no), direct_media (no: media is anchored
 *                     here; Asterisk defaults to yes), allow_transfer (yes; no refuses the phone's REFER), timers (no|yes|required|always, default yes),
 *                     timers_min_se (90), timers_sess_expires (1800), outbound_auth (an auth
 *                     section answering the challenges of a trunk we call), subscribe_context
 *                     (where busy-lamp hints are looked up; default: context),
 *                     tone_zone (the indications.conf zone of the endpoint's channels:
 *                     ringback, busy and congestion tones, `tone:` media), rtp_timeout and
 *                     rtp_timeout_hold (seconds without RTP before an answered call, or a held
 *                     one, is hung up; 0, the default, is off: pjsip-rtp-timeout.ts)
 *   type = identify   endpoint, match (repeatable, comma lists of IP addresses or CIDR ranges)
 *   type = aor        max_contacts (0, as in Asterisk: no registrations until raised), remove_existing
 *                     (no), default_expiration (3600), minimum_expiration (60), maximum_expiration
 *                     (7200), qualify_frequency (0), contact (repeatable: permanent contacts)
 *   type = auth       auth_type (userpass), username, password, realm
 *   type = registration  server_uri, client_uri (both required), contact_user, outbound_auth,
 *                     transport, expiration (3600), retry_interval (60),
 *                     forbidden_retry_interval (0), max_retries (10), line (no), endpoint (the
 *                     endpoint requests on the line belong to; required with line = yes)
 *
 * A missing pjsip.conf means no SIP objects at all: nothing listens for SIP.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { applyCodecOption, applyVideoCodecOption, DEFAULT_ENDPOINT_CODECS } from './codecs.js';
import { applyWebrtcImplications, webrtcHandlers } from './pjsip-webrtc.js';
import { rtpTimeoutHandlers } from './pjsip-rtp-timeout.js';
import { endpointIdentityHandlers, identifyHeaderHandlers, readSipGlobal, transportNatHandlers } from './pjsip-global.js';
import { type IniDocument, type IniOption, type IniSection, lastOption } from './ini.js';
import { applyOptions } from './option-table.js';
import type {
  SipAorConfig,
  SipAuthConfig,
  SipConfig,
  SipEndpointConfig,
  SipIdentifyConfig,
  SipRegistrationConfig,
  SipTransportConfig,
  SipTransportProtocol,
} from './types.js';
import {
  invalid,
  isHostname,
  parseBindAddress,
  parseBool,
  parseCallerId,
  parseHost,
  parseInteger,
  requireNonEmpty,
  splitList,
} from './values.js';

/** Types Asterisk has that we do not implement yet: the section is skipped with a warning. */
const UNSUPPORTED_TYPES = new Set([
  'system',
  'domain_alias',
  'contact',
  'outbound-publish',
  'inbound-publication',
  'asterisk-publication',
  'resource_list',
  'phoneprov',
]);

const PROTOCOLS: readonly SipTransportProtocol[] = ['udp', 'tcp', 'tls', 'ws', 'wss'];
const DTMF_MODES = ['rfc4733', 'info', 'inband', 'auto'] as const;
const TIMER_MODES = ['no', 'yes', 'required', 'always'] as const;
const MEDIA_ENCRYPTIONS = ['no', 'sdes', 'dtls'] as const;

export function defaultSipConfig(): SipConfig {
  return { transports: [], endpoints: [], identifies: [], aors: [], auths: [] };
}

/** Where cross-references were written, so a dangling one is reported at its line. */
interface References {
  endpointTransport: Map<SipEndpointConfig, IniOption>;
  endpointAuth: Map<SipEndpointConfig, IniOption>;
  endpointOutboundAuth: Map<SipEndpointConfig, IniOption>;
  registrationAuth: Map<SipRegistrationConfig, IniOption>;
  registrationTransport: Map<SipRegistrationConfig, IniOption>;
  registrationEndpoint: Map<SipRegistrationConfig, IniOption>;
  endpointAors: Map<SipEndpointConfig, IniOption>;
  identifyEndpoint: Map<SipIdentifyConfig, IniOption>;
}

export function readSipConfig(doc: IniDocument | undefined, confDir: string, log: Logger): SipConfig {
  const config = defaultSipConfig();
  if (!doc) return config;
  const refs: References = {
    endpointTransport: new Map(),
    endpointAuth: new Map(),
    endpointOutboundAuth: new Map(),
    registrationAuth: new Map(),
    registrationTransport: new Map(),
    registrationEndpoint: new Map(),
    endpointAors: new Map(),
    identifyEndpoint: new Map(),
  };

  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    const typeOption = lastOption(section, 'type');
    if (!typeOption) throw new ConfigError(section.file, section.line, `[${section.name}] has no type =`);
    const type = typeOption.value.trim().toLowerCase();
    switch (type) {
      case 'transport':
        addUnique(config.transports, readTransport(section, confDir, log), section, type);
        break;
      case 'endpoint':
        addUnique(config.endpoints, readEndpoint(section, refs, confDir, log), section, type);
        break;
      case 'identify':
        addUnique(config.identifies, readIdentify(section, refs, log), section, type);
        break;
      case 'aor':
        addUnique(config.aors, readAor(section, log), section, type);
        break;
      case 'auth':
        addUnique(config.auths, readAuth(section, log), section, type);
        break;
      case 'global':
        if (config.global !== undefined) throw new ConfigError(section.file, section.line, 'type=global is defined twice');
        config.global = readSipGlobal(section, log);
        break;
      case 'registration':
        config.registrations ??= [];
        addUnique(config.registrations, readRegistration(section, refs, log), section, type);
        break;
      default:
        if (!UNSUPPORTED_TYPES.has(type)) throw invalid(typeOption, 'unknown type');
        log.warn(
          { file: section.file, line: section.line, section: section.name, type },
          `pjsip type '${type}' is not supported yet; [${section.name}] ignored`,
        );
    }
  }

  checkReferences(config, refs, log);
  return config;
}

function addUnique<T extends { name: string }>(list: T[], item: T, section: IniSection, type: string): void {
  if (list.some((existing) => existing.name === item.name)) {
    throw new ConfigError(section.file, section.line, `${type} '${item.name}' is defined twice`);
  }
  list.push(item);
}

/**
 * `type = global`: overload_max_loop_lag (ms, 100; 0 turns it off), overload_max_calls_in_setup
 * (2000), overload_retry_after (s, 5), and the auth_* failed-login limits (auth-limit-options.ts).
 * Asterisk's other global options are warned about as not supported.
 */
function readTransport(section: IniSection, confDir: string, log: Logger): SipTransportConfig {
  const transport: SipTransportConfig = { name: section.name, protocol: 'udp', bindAddress: '0.0.0.0', bindPort: 5060 };
  let bind: IniOption | undefined;
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      protocol: (o) => {
        const protocol = o.value.trim().toLowerCase() as SipTransportProtocol;
        if (!PROTOCOLS.includes(protocol)) throw invalid(o, `expected one of ${PROTOCOLS.join(', ')}`);
        transport.protocol = protocol;
      },
      // Read after the loop: its default port depends on `protocol`, which may come later.
      bind: (o) => {
        bind = o;
      },
      external_media_address: (o) => {
        transport.externalMediaAddress = parseHost(o);
      },
      external_signaling_address: (o) => {
        transport.externalSignalingAddress = parseHost(o);
      },
      ...transportNatHandlers(transport),
      cert_file: (o) => {
        transport.certFile = resolve(confDir, requireNonEmpty(o));
      },
      priv_key_file: (o) => {
        transport.privKeyFile = resolve(confDir, requireNonEmpty(o));
      },
      max_connections_per_address: (o) => {
        transport.maxConnectionsPerAddress = parseInteger(o, 1, 1_000_000);
      },
      idle_timeout: (o) => {
        transport.idleTimeoutMs = parseInteger(o, 1, 86_400) * 1000;
      },
      unauthenticated_idle_timeout: (o) => {
        transport.unauthenticatedIdleTimeoutMs = parseInteger(o, 1, 86_400) * 1000;
      },
      message_timeout: (o) => {
        transport.messageTimeoutMs = parseInteger(o, 1, 3600) * 1000;
      },
      native_socket: (o) => {
        transport.nativeSocket = parseBool(o);
      },
    },
  });
  const defaultPort = transport.protocol === 'tls' ? 5061 : 5060;
  transport.bindPort = defaultPort;
  if (bind) {
    const parsed = parseBindAddress(bind, defaultPort);
    transport.bindAddress = parsed.address;
    transport.bindPort = parsed.port;
  }
  if (transport.protocol === 'tls' && (!transport.certFile || !transport.privKeyFile)) {
    throw new ConfigError(section.file, section.line, `tls transport '${section.name}' needs cert_file and priv_key_file`);
  }
  return transport;
}

function readEndpoint(section: IniSection, refs: References, confDir: string, log: Logger): SipEndpointConfig {
  const endpoint: SipEndpointConfig = {
    name: section.name,
    context: 'default',
    codecs: [...DEFAULT_ENDPOINT_CODECS],
    aors: [],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: true,
    rewriteContact: false,
    rtpSymmetric: false,
    directMedia: false,
  };
  // The default codec list applies only until the first allow/disallow; from then on they decide.
  let codecsWritten = false;
  /** `max_video_streams = 0`: no video whatever `allow` says. */
  let videoStreamsOff = false;
  const codecOption = (allowing: boolean) => (o: IniOption) => {
    endpoint.codecs = applyCodecOption(codecsWritten ? endpoint.codecs : [], o, allowing, log);
    // Written only when video codecs are named, so audio-only endpoints read as before.
    const video = applyVideoCodecOption(endpoint.videoCodecs ?? [], o, allowing);
    if (video.length > 0 || endpoint.videoCodecs !== undefined) endpoint.videoCodecs = video;
    codecsWritten = true;
  };
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      context: (o) => {
        endpoint.context = requireNonEmpty(o);
      },
      allow: codecOption(true),
      disallow: codecOption(false),
      transport: (o) => {
        endpoint.transport = requireNonEmpty(o);
        refs.endpointTransport.set(endpoint, o);
      },
      language: (o) => {
        endpoint.language = requireNonEmpty(o);
      },
      tone_zone: (o) => {
        endpoint.toneZone = requireNonEmpty(o).toLowerCase();
      },
      callerid: (o) => {
        endpoint.callerId = parseCallerId(o.value);
      },
      aors: (o) => {
        endpoint.aors = splitList(o.value);
        refs.endpointAors.set(endpoint, o);
      },
      auth: (o) => {
        const auths = splitList(o.value);
        if (auths.length > 1) {
          log.warn({ file: o.file, line: o.line }, `endpoint '${section.name}': only the first auth (${auths[0]}) is used`);
        }
        endpoint.auth = auths[0];
        if (endpoint.auth !== undefined) refs.endpointAuth.set(endpoint, o);
      },
      mailboxes: (o) => {
        endpoint.mailboxes = splitList(o.value);
      },
      dtmf_mode: (o) => {
        const mode = o.value.trim().toLowerCase();
        if (mode === 'auto_info') {
          log.warn({ file: o.file, line: o.line }, "dtmf_mode 'auto_info' is not supported yet; using 'auto'");
          endpoint.dtmfMode = 'auto';
          return;
        }
        const known = DTMF_MODES.find((m) => m === mode);
        if (!known) throw invalid(o, `expected one of ${DTMF_MODES.join(', ')}`);
        endpoint.dtmfMode = known;
      },
      force_rport: (o) => {
        endpoint.forceRport = parseBool(o);
      },
      rewrite_contact: (o) => {
        endpoint.rewriteContact = parseBool(o);
      },
      rtp_symmetric: (o) => {
        endpoint.rtpSymmetric = parseBool(o);
      },
      direct_media: (o) => {
        endpoint.directMedia = parseBool(o);
      },
      allow_transfer: (o) => {
        endpoint.allowTransfer = parseBool(o);
      },
      max_video_streams: (o) => {
        // One video stream per call is carried (the first m=video line); more are answered with port 0.
        const streams = parseInteger(o, 0, 64);
        videoStreamsOff = streams === 0;
        if (streams > 1) {
          log.warn({ file: o.file, line: o.line }, `max_video_streams = ${streams}: only one video stream per call is supported; using 1`);
        }
      },
      timers: (o) => {
        const mode = o.value.trim().toLowerCase();
        // `forced` is the older Asterisk spelling of `always`.
        const known = mode === 'forced' ? 'always' : TIMER_MODES.find((m) => m === mode);
        if (known === undefined) throw invalid(o, `expected one of ${TIMER_MODES.join(', ')}`);
        endpoint.timers = known;
      },
      timers_min_se: (o) => {
        // RFC 4028 §4: Min-SE is never below 90 s.
        endpoint.timersMinSe = parseInteger(o, 90, 86_400);
      },
      timers_sess_expires: (o) => {
        endpoint.timersSessExpires = parseInteger(o, 90, 86_400);
      },
      subscribe_context: (o) => {
        endpoint.subscribeContext = requireNonEmpty(o);
      },
      ...endpointIdentityHandlers(endpoint),
      ...rtpTimeoutHandlers(endpoint),
      ...webrtcHandlers(endpoint, confDir, log),
      media_encryption: (o) => {
        const mode = o.value.trim().toLowerCase();
        const known = MEDIA_ENCRYPTIONS.find((m) => m === mode);
        if (known === undefined) throw invalid(o, `expected one of ${MEDIA_ENCRYPTIONS.join(', ')}`);
        endpoint.mediaEncryption = known;
      },
      media_encryption_optimistic: (o) => {
        endpoint.mediaEncryptionOptimistic = parseBool(o);
      },
      outbound_auth: (o) => {
        const auths = splitList(o.value);
        if (auths.length > 1) {
          log.warn({ file: o.file, line: o.line }, `endpoint '${section.name}': only the first outbound_auth (${auths[0]}) is used`);
        }
        endpoint.outboundAuth = auths[0];
        if (endpoint.outboundAuth !== undefined) refs.endpointOutboundAuth.set(endpoint, o);
      },
    },
  });
  if ((endpoint.timersSessExpires ?? 1800) < (endpoint.timersMinSe ?? 90)) {
    const where = lastOption(section, 'timers_sess_expires') ?? section;
    throw new ConfigError(
      where.file,
      where.line,
      `endpoint '${section.name}': timers_sess_expires (${endpoint.timersSessExpires ?? 1800}) is below timers_min_se (${endpoint.timersMinSe ?? 90})`,
    );
  }
  if (endpoint.codecs.length === 0) {
    log.warn({ file: section.file, line: section.line }, `endpoint '${section.name}' allows no supported codec: calls will fail`);
  }
  if (videoStreamsOff) delete endpoint.videoCodecs;
  applyWebrtcImplications(endpoint, section, log);
  return endpoint;
}

function readIdentify(section: IniSection, refs: References, log: Logger): SipIdentifyConfig {
  const identify: SipIdentifyConfig = { name: section.name, endpoint: '', match: [] };
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      endpoint: (o) => {
        identify.endpoint = requireNonEmpty(o);
        refs.identifyEndpoint.set(identify, o);
      },
      ...identifyHeaderHandlers(identify),
      match: (o) => {
        for (const item of splitList(o.value)) {
          const range = parseMatch(o, item, log);
          if (range !== undefined) identify.match.push(range);
        }
      },
    },
  });
  if (identify.endpoint === '') {
    throw new ConfigError(section.file, section.line, `identify '${section.name}' has no endpoint =`);
  }
  if (identify.match.length === 0 && identify.matchHeader === undefined) {
    log.warn({ file: section.file, line: section.line }, `identify '${section.name}' matches no address`);
  }
  return identify;
}

/**
 * One `match` item: an IP address, `ADDR/PREFIX` or `ADDR/NETMASK` (normalised to a prefix).
 * Asterisk also resolves host names here; we do not yet, so those are skipped with a warning.
 */
function parseMatch(option: IniOption, item: string, log: Logger): string | undefined {
  const [address, mask, extra] = item.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) {
    if (mask === undefined && isHostname(address)) {
      log.warn({ file: option.file, line: option.line }, `match '${item}': host names are not supported yet; ignored`);
      return undefined;
    }
    throw invalid(option, `'${item}' is not an IP address or CIDR range`);
  }
  if (mask === undefined) return address;
  const bits = family === 4 ? 32 : 128;
  if (/^\d+$/.test(mask) && Number(mask) <= bits) return `${address}/${Number(mask)}`;
  if (family === 4 && isIP(mask) === 4) {
    const prefix = netmaskToPrefix(mask);
    if (prefix !== undefined) return `${address}/${prefix}`;
  }
  throw invalid(option, `'${item}' has an invalid prefix length or netmask`);
}

function netmaskToPrefix(mask: string): number | undefined {
  const value = mask.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  const binary = value.toString(2).padStart(32, '0');
  if (!/^1*0*$/.test(binary)) return undefined;
  const firstZero = binary.indexOf('0');
  return firstZero === -1 ? 32 : firstZero;
}

function readAor(section: IniSection, log: Logger): SipAorConfig {
  const aor: SipAorConfig = {
    name: section.name,
    maxContacts: 0,
    removeExisting: false,
    defaultExpiration: 3600,
    minimumExpiration: 60,
    maximumExpiration: 7200,
    qualifyFrequency: 0,
    contacts: [],
  };
  const seconds = (o: IniOption) => parseInteger(o, 0, 31_536_000);
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      max_contacts: (o) => {
        aor.maxContacts = parseInteger(o, 0, 65535);
      },
      remove_existing: (o) => {
        aor.removeExisting = parseBool(o);
      },
      default_expiration: (o) => {
        aor.defaultExpiration = seconds(o);
      },
      minimum_expiration: (o) => {
        aor.minimumExpiration = seconds(o);
      },
      maximum_expiration: (o) => {
        aor.maximumExpiration = seconds(o);
      },
      qualify_frequency: (o) => {
        aor.qualifyFrequency = parseInteger(o, 0, 86_400);
      },
      contact: (o) => {
        for (const uri of splitList(o.value)) {
          if (!/^sips?:/i.test(uri)) throw invalid(o, `'${uri}' is not a sip: or sips: URI`);
          aor.contacts.push(uri);
        }
      },
    },
  });
  if (aor.minimumExpiration > aor.maximumExpiration) {
    const where = lastOption(section, 'minimum_expiration') ?? lastOption(section, 'maximum_expiration');
    throw new ConfigError(
      where?.file ?? section.file,
      where?.line ?? section.line,
      `aor '${section.name}': minimum_expiration (${aor.minimumExpiration}) exceeds maximum_expiration (${aor.maximumExpiration})`,
    );
  }
  return aor;
}

function readAuth(section: IniSection, log: Logger): SipAuthConfig {
  let username: string | undefined;
  let password: string | undefined;
  let realm: string | undefined;
  let algorithms: ('MD5' | 'SHA-256')[] = ['MD5'];
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      supported_algorithms_uas: (o) => {
        const names = splitList(o.value).map((name) => name.toUpperCase());
        const known = { MD5: 'MD5', 'SHA-256': 'SHA-256' } as const;
        const chosen = names.map((name) => known[name as keyof typeof known]);
        if (chosen.length === 0 || chosen.some((name) => name === undefined)) throw invalid(o, 'expected MD5 and/or SHA-256');
        algorithms = [...new Set(chosen as ('MD5' | 'SHA-256')[])];
      },
      // `digest` is the newer Asterisk name for the same thing; md5/oauth credentials are not supported.
      auth_type: (o) => {
        const type = o.value.trim().toLowerCase();
        if (type !== 'userpass' && type !== 'digest') throw invalid(o, 'only userpass (or digest) is supported');
      },
      username: (o) => {
        username = requireNonEmpty(o);
      },
      password: (o) => {
        password = o.value;
      },
      realm: (o) => {
        realm = requireNonEmpty(o);
      },
    },
  });
  if (username === undefined) throw new ConfigError(section.file, section.line, `auth '${section.name}' has no username`);
  if (password === undefined || password === '') {
    throw new ConfigError(section.file, section.line, `auth '${section.name}' has no password`);
  }
  const auth: SipAuthConfig = { name: section.name, authType: 'userpass', username, password, supportedAlgorithmsUas: algorithms };
  if (realm !== undefined) auth.realm = realm;
  return auth;
}

function readRegistration(section: IniSection, refs: References, log: Logger): SipRegistrationConfig {
  const registration: SipRegistrationConfig = {
    name: section.name,
    serverUri: '',
    clientUri: '',
    expiration: 3600,
    retryInterval: 60,
    forbiddenRetryInterval: 0,
    maxRetries: 10,
  };
  const sipUri = (o: IniOption) => {
    const value = requireNonEmpty(o);
    if (!/^sips?:[^\s]+$/i.test(value)) throw invalid(o, 'expected a sip: or sips: URI');
    return value;
  };
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      server_uri: (o) => {
        registration.serverUri = sipUri(o);
      },
      client_uri: (o) => {
        registration.clientUri = sipUri(o);
      },
      contact_user: (o) => {
        const user = requireNonEmpty(o);
        if (!/^[A-Za-z0-9._~+!$&'()*,;=-]+$/.test(user)) throw invalid(o, 'not a valid SIP user part');
        registration.contactUser = user;
      },
      outbound_auth: (o) => {
        registration.outboundAuth = splitList(o.value)[0];
        if (registration.outboundAuth !== undefined) refs.registrationAuth.set(registration, o);
      },
      transport: (o) => {
        registration.transport = requireNonEmpty(o);
        refs.registrationTransport.set(registration, o);
      },
      expiration: (o) => {
        registration.expiration = parseInteger(o, 1, 86_400);
      },
      retry_interval: (o) => {
        registration.retryInterval = parseInteger(o, 1, 86_400);
      },
      forbidden_retry_interval: (o) => {
        registration.forbiddenRetryInterval = parseInteger(o, 0, 86_400);
      },
      max_retries: (o) => {
        registration.maxRetries = parseInteger(o, 0, 1_000_000);
      },
      line: (o) => {
        registration.line = parseBool(o);
      },
      endpoint: (o) => {
        registration.endpoint = requireNonEmpty(o);
        refs.registrationEndpoint.set(registration, o);
      },
    },
  });
  if (registration.line === true && registration.endpoint === undefined) {
    throw new ConfigError(section.file, section.line, `registration '${section.name}' has line = yes but no endpoint`);
  }
  if (registration.serverUri === '' || registration.clientUri === '') {
    throw new ConfigError(section.file, section.line, `registration '${section.name}' needs server_uri and client_uri`);
  }
  return registration;
}

function checkReferences(config: SipConfig, refs: References, log: Logger): void {
  const transports = new Set(config.transports.map((t) => t.name));
  const auths = new Set(config.auths.map((a) => a.name));
  const aors = new Set(config.aors.map((a) => a.name));
  const endpoints = new Set(config.endpoints.map((e) => e.name));

  for (const [endpoint, option] of refs.endpointTransport) {
    if (endpoint.transport !== undefined && !transports.has(endpoint.transport)) {
      throw invalid(option, `endpoint '${endpoint.name}' names a transport that does not exist`);
    }
  }
  // A dangling auth must stop startup: silently skipping it would let unauthenticated calls in.
  for (const [endpoint, option] of refs.endpointAuth) {
    if (endpoint.auth !== undefined && !auths.has(endpoint.auth)) {
      throw invalid(option, `endpoint '${endpoint.name}' names an auth that does not exist`);
    }
  }
  for (const [registration, option] of refs.registrationAuth) {
    if (registration.outboundAuth !== undefined && !auths.has(registration.outboundAuth)) {
      throw invalid(option, `registration '${registration.name}' names an outbound_auth that does not exist`);
    }
  }
  for (const [registration, option] of refs.registrationEndpoint) {
    if (registration.endpoint !== undefined && !endpoints.has(registration.endpoint)) {
      throw invalid(option, `registration '${registration.name}' names an endpoint that does not exist`);
    }
  }
  for (const [registration, option] of refs.registrationTransport) {
    if (registration.transport !== undefined && !transports.has(registration.transport)) {
      throw invalid(option, `registration '${registration.name}' names a transport that does not exist`);
    }
  }
  for (const [endpoint, option] of refs.endpointOutboundAuth) {
    if (endpoint.outboundAuth !== undefined && !auths.has(endpoint.outboundAuth)) {
      throw invalid(option, `endpoint '${endpoint.name}' names an outbound_auth that does not exist`);
    }
  }
  for (const [endpoint, option] of refs.endpointAors) {
    for (const aor of endpoint.aors) {
      if (!aors.has(aor)) {
        log.warn({ file: option.file, line: option.line }, `endpoint '${endpoint.name}' names aor '${aor}', which does not exist`);
      }
    }
  }
  for (const [identify, option] of refs.identifyEndpoint) {
    if (!endpoints.has(identify.endpoint)) {
      throw invalid(option, `identify '${identify.name}' names an endpoint that does not exist`);
    }
  }
}
