/** `pjsip show …` and `pjsip set logger`: the SIP side as operators look at it. */
import { isIP } from 'node:net';
import type { SipEndpointConfig } from '@switchboard/core';
import { type ConsoleCommands, ConsoleUsageError } from './registry.js';
import type { ConsoleServices } from './services.js';
import { fields, table } from './table.js';

export function registerPjsipCommands(commands: ConsoleCommands, services: ConsoleServices): void {
  const { core } = services;
  const endpoints = () => core.config.sip.endpoints;
  const endpointNames = () => endpoints().map((e) => e.name);
  const contactsByAor = async () => {
    const byAor = new Map<string, number>();
    for (const c of await services.sip.contacts()) if (c.expiresAt > Date.now()) byAor.set(c.aor, (byAor.get(c.aor) ?? 0) + 1);
    return byAor;
  };
  /**
   * The original's endpoint states: In use with a channel; Not in use when reachable (a live
   * registration, or the endpoint is online); Unavailable otherwise.
   */
  const stateOf = (endpoint: SipEndpointConfig, liveContacts: number) => {
    const snapshot = core.endpoints.get('SIP', endpoint.name);
    const channels = snapshot?.channel_ids.length ?? 0;
    const state = channels > 0 ? 'In use' : liveContacts > 0 || snapshot?.state === 'online' ? 'Not in use' : 'Unavailable';
    return { state, channels };
  };

  commands.register({
    words: ['pjsip', 'show', 'endpoints'],
    summary: 'List the SIP endpoints with their state, contacts and channels',
    run: async () => {
      const list = endpoints();
      if (list.length === 0) return 'No objects found.';
      const contacts = await contactsByAor();
      const rows = list.map((e) => {
        const live = e.aors.reduce((n, aor) => n + (contacts.get(aor) ?? 0), 0);
        const { state, channels } = stateOf(e, live);
        const cid = e.callerId ? `${e.name}/${e.callerId.number}` : e.name;
        return [cid, state, String(channels), e.aors.join(',') || '-', String(live), e.auth ?? '-', e.context, e.codecs.join(',')];
      });
      return `${table(['Endpoint/CID', 'State', 'Channels', 'Aors', 'Contacts', 'Auth', 'Context', 'Codecs'], rows)}\n\nObjects found: ${list.length}`;
    },
  });

  commands.register({
    words: ['pjsip', 'show', 'endpoint'],
    args: '<name>',
    summary: 'Show one SIP endpoint in detail',
    completeArg: (i) => (i === 0 ? endpointNames() : []),
    run: async (args) => {
      if (args.length !== 1) throw new ConsoleUsageError();
      const e = endpoints().find((x) => x.name === args[0]);
      if (e === undefined) return `Unable to find object ${args[0]}.`;
      const contacts = (await services.sip.contacts()).filter((c) => e.aors.includes(c.aor) && c.expiresAt > Date.now());
      const { state, channels } = stateOf(e, contacts.length);
      const identifies = core.config.sip.identifies.filter((i) => i.endpoint === e.name);
      const head = fields([
        ['Endpoint', e.name],
        ['State', state],
        ['Channels', String(channels)],
        ['context', e.context],
        ['allow', e.codecs.join(',')],
        ['allow (video)', (e.videoCodecs ?? []).join(',') || '-'],
        ['aors', e.aors.join(',') || '-'],
        ['auth', e.auth ?? '-'],
        ['callerid', e.callerId ? `"${e.callerId.name}" <${e.callerId.number}>` : '-'],
        ['dtmf_mode', e.dtmfMode],
        ['transport', e.transport ?? '-'],
        ['mailboxes', e.mailboxes.join(',') || '-'],
        ['language', e.language ?? core.config.general.defaultLanguage],
        ['direct_media', e.directMedia ? 'yes' : 'no'],
        ['force_rport', e.forceRport ? 'yes' : 'no'],
        ['rewrite_contact', e.rewriteContact ? 'yes' : 'no'],
        ['identify', identifies.map((i) => i.match.join(',')).join('; ') || '-'],
      ]);
      const contactTable =
        contacts.length === 0
          ? 'No contacts.'
          : table(
              ['Contact', 'Expires(s)', 'User-Agent'],
              contacts.map((c) => [`${c.aor}/${c.uri}`, String(Math.round((c.expiresAt - Date.now()) / 1000)), c.userAgent ?? '']),
            );
      return `${head}\n\n${contactTable}`;
    },
  });

  commands.register({
    words: ['pjsip', 'show', 'contacts'],
    summary: 'List the registered contacts',
    run: async () => {
      const now = Date.now();
      const live = (await services.sip.contacts()).filter((c) => c.expiresAt > now);
      if (live.length === 0) return 'No objects found.';
      const rows = live.map((c) => [
        `${c.aor}/${c.uri}`,
        c.endpoint ?? '-',
        String(Math.round((c.expiresAt - now) / 1000)),
        c.viaAddress === undefined ? '-' : `${c.viaAddress}:${c.viaPort ?? ''}`,
        c.userAgent ?? '',
      ]);
      return `${table(['Aor/ContactUri', 'Endpoint', 'Expires(s)', 'Received', 'User-Agent'], rows)}\n\nObjects found: ${live.length}`;
    },
  });

  commands.register({
    words: ['pjsip', 'show', 'registrations'],
    summary: 'List the outbound registrations and their state',
    run: () => {
      const list = services.sip.registrations();
      if (list.length === 0) return 'No objects found.';
      const rows = list.map((r) => [
        r.name,
        r.serverUri,
        r.clientUri,
        r.outboundAuth ?? 'n/a',
        r.state[0]?.toUpperCase() + r.state.slice(1),
      ]);
      return `${table(['Registration', 'ServerURI', 'ClientURI', 'Auth', 'Status'], rows)}\n\nObjects found: ${list.length}`;
    },
  });

  commands.register({
    words: ['pjsip', 'show', 'transports'],
    summary: 'List the SIP transports and their bound addresses',
    run: () => {
      const list = services.sip.listening();
      if (list.length === 0) return 'No objects found.';
      const rows = list.map((t) => [t.transport, t.protocol, `${t.address}:${t.port}`]);
      return `${table(['Transport', 'Type', 'BindAddress'], rows)}\n\nObjects found: ${list.length}`;
    },
  });

  commands.register({
    words: ['pjsip', 'set', 'logger'],
    args: 'on|off|host <ip>',
    summary: 'Log every SIP message in full (or only those from/to one address)',
    completeArg: (i) => (i === 0 ? ['on', 'off', 'host'] : []),
    run: (args) => {
      const mode = args[0]?.toLowerCase();
      if (mode === 'on' && args.length === 1) {
        services.sipTrace.enable();
        return 'PJSIP Logging enabled';
      }
      if (mode === 'off' && args.length === 1) {
        services.sipTrace.disable();
        return 'PJSIP Logging disabled';
      }
      if (mode === 'host' && args.length === 2) {
        const host = args[1] as string;
        if (isIP(host) === 0) return `${host} is not a valid IP address`;
        services.sipTrace.enable(host);
        return `PJSIP Logging Enabled for host: ${host}`;
      }
      throw new ConsoleUsageError();
    },
  });
}
