/**
 * The SIP listings an operator panel reads: PJSIPShowEndpoints, PJSIPShowContacts and
 * PJSIPShowRegistrationsInbound, from pjsip.conf and the registrations in the store; PJSIPQualify
 * through the SIP driver.
 */
import type { ContactRecord, DeviceStateValue } from '@switchboard/core';
import type { Field } from '../wire.js';
import { type ActionContext, type ActionDefinition, ActionError, message, type Reply } from './types.js';

/** The original's device state texts of endpoint listings. */
const DEVICE_STATE_TEXT: Record<DeviceStateValue, string> = {
  UNKNOWN: 'Unknown',
  NOT_INUSE: 'Not in use',
  INUSE: 'In use',
  BUSY: 'Busy',
  INVALID: 'Invalid',
  UNAVAILABLE: 'Unavailable',
  RINGING: 'Ringing',
  RINGINUSE: 'Ring+Inuse',
  ONHOLD: 'On Hold',
};

async function contacts(ctx: ActionContext): Promise<ContactRecord[]> {
  const store = ctx.services.store;
  if (!store) throw new ActionError('Registrations are not available');
  const now = Date.now();
  return (await store.contacts.all()).filter((c) => c.expiresAt > now);
}

function contactName(contact: ContactRecord): string {
  return `${contact.aor};@${contact.uri}`;
}

export function pjsipActions(): ActionDefinition[] {
  return [
    {
      name: 'PJSIPShowEndpoints',
      privilege: ['system'],
      run: async (ctx): Promise<Reply> => {
        const { core } = ctx.services;
        const live = await contacts(ctx);
        const items = core.config.sip.endpoints.map((endpoint) => {
          const state = core.deviceStates.endpointDeviceState(`SIP/${endpoint.name}`)?.state ?? 'UNKNOWN';
          const channels = core.channels.list().filter((c) => c.technology === 'SIP' && c.endpoint === endpoint.name);
          const fields: Field[] = [
            ['ObjectType', 'endpoint'],
            ['ObjectName', endpoint.name],
            ['Transport', endpoint.transport ?? ''],
            ['Aor', endpoint.aors.join(',')],
            ['Auths', endpoint.auth ?? ''],
            ['OutboundAuths', endpoint.outboundAuth ?? ''],
            [
              'Contacts',
              live
                .filter((c) => endpoint.aors.includes(c.aor))
                .map((c) => `${c.aor}/${c.uri}`)
                .join(','),
            ],
            ['DeviceState', DEVICE_STATE_TEXT[state]],
            ['ActiveChannels', channels.map((c) => c.id).join(',')],
          ];
          return { name: 'EndpointList', fields };
        });
        return {
          kind: 'list',
          message: 'A listing of Endpoints follows, presented as EndpointList events',
          complete: 'EndpointListComplete',
          items,
        };
      },
    },
    {
      name: 'PJSIPShowContacts',
      privilege: ['system'],
      run: async (ctx): Promise<Reply> => {
        const aors = new Map(ctx.services.core.config.sip.aors.map((a) => [a.name, a]));
        const items = (await contacts(ctx)).map((contact) => ({
          name: 'ContactList',
          fields: [
            ['ObjectType', 'contact'],
            ['ObjectName', contactName(contact)],
            ['ViaAddr', contact.viaAddress ?? ''],
            ['ViaPort', String(contact.viaPort ?? 0)],
            ['QualifyTimeout', '3.000000'],
            ['CallId', contact.callId ?? ''],
            ['RegServer', ''],
            ['PruneOnBoot', 'no'],
            ['Path', contact.path ?? ''],
            ['Endpoint', contact.endpoint ?? ''],
            ['AuthenticateQualify', 'no'],
            ['Uri', contact.uri],
            ['QualifyFrequency', String(aors.get(contact.aor)?.qualifyFrequency ?? 0)],
            ['UserAgent', contact.userAgent ?? ''],
            ['ExpirationTime', String(Math.floor(contact.expiresAt / 1000))],
            ['OutboundProxy', ''],
            ['Status', 'Unknown'],
            ['RoundtripUsec', 'N/A'],
          ] as Field[],
        }));
        return {
          kind: 'list',
          message: 'A listing of Contacts follows, presented as ContactList events',
          complete: 'ContactListComplete',
          items,
        };
      },
    },
    {
      name: 'PJSIPShowRegistrationsInbound',
      privilege: ['system', 'reporting'],
      run: async (ctx): Promise<Reply> => {
        const live = await contacts(ctx);
        const items = ctx.services.core.config.sip.aors.map((aor) => ({
          name: 'InboundRegistrationDetail',
          fields: [
            ['ObjectType', 'aor'],
            ['ObjectName', aor.name],
            ['MinimumExpiration', String(aor.minimumExpiration)],
            ['DefaultExpiration', String(aor.defaultExpiration)],
            ['MaximumExpiration', String(aor.maximumExpiration)],
            ['QualifyFrequency', String(aor.qualifyFrequency)],
            ['MaxContacts', String(aor.maxContacts)],
            ['RemoveExisting', aor.removeExisting ? 'true' : 'false'],
            [
              'Contacts',
              live
                .filter((c) => c.aor === aor.name)
                .map((c) => contactName(c))
                .join(','),
            ],
          ] as Field[],
        }));
        return {
          kind: 'list',
          message: 'Following are Events for each Inbound registration',
          complete: 'InboundRegistrationDetailComplete',
          items,
        };
      },
    },
    {
      // Answered at once, as the original does; the answers arrive as ContactStatus events when a
      // contact's reachability changes.
      name: 'PJSIPQualify',
      privilege: ['system'],
      run: (ctx) => {
        const name = ctx.message.get('Endpoint')?.trim();
        if (!name) throw new ActionError('Endpoint parameter missing.');
        const driver = ctx.services.core.driverFor('SIP');
        if (driver?.qualify === undefined) throw new ActionError('Qualify is not available');
        const work = driver.qualify(name);
        ctx.services.track(
          work.then(
            () => undefined,
            () => undefined,
          ),
        );
        return message('Endpoint found, will qualify');
      },
    },
  ];
}
