/**
 * Turns what a registrar reports (bindings coming and going, endpoints with or without a
 * registered contact) into endpoint state and the ContactStatusChange / PeerStatusChange events.
 * Shaped to the SIP driver's status listener, so the server passes it as it is.
 */
import type { ContactInfoSnapshot } from '../model/snapshots.js';
import type { EndpointStateReporter } from './endpoint-registry.js';

export interface RegistrarContactChange {
  kind: 'created' | 'updated' | 'removed' | 'expired';
  aor: string;
  endpoint: string | undefined;
  uri: string;
}

export interface RegistrarStatusListener {
  contactChanged(change: RegistrarContactChange): void;
  endpointStateChanged(endpoint: string, state: 'online' | 'offline'): void;
}

export function registrarStatusListener(endpoints: EndpointStateReporter, technology = 'SIP'): RegistrarStatusListener {
  return {
    contactChanged(change) {
      if (change.endpoint === undefined) return;
      // A registration is not qualified (no OPTIONS ping yet): the reference reports NonQualified.
      const status: ContactInfoSnapshot['contact_status'] =
        change.kind === 'removed' || change.kind === 'expired' ? 'Removed' : 'NonQualified';
      endpoints.contactStatusChanged(technology, change.endpoint, { uri: change.uri, contact_status: status, aor: change.aor });
    },
    endpointStateChanged(endpoint, state) {
      endpoints.setEndpointState(technology, endpoint, state);
      endpoints.peerStatusChanged(technology, endpoint, { peer_status: state === 'online' ? 'Reachable' : 'Unreachable' });
    },
  };
}
