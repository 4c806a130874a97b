/**
 * Process-wide observers of the SIP messages every transport sends and receives: the metrics
 * (requests by method, responses by status) and the operator's `pjsip set logger` trace watch the
 * wire here without the transports knowing about either. With no observer the cost is one length
 * check per message.
 */
export type SipMessageDirection = 'received' | 'sent';

export interface SipWireMessage {
  direction: SipMessageDirection;
  /** The whole message as it went over the wire. */
  data: Buffer;
  /** `udp`, `tcp`, `tls`, `ws`, `wss`. */
  protocol: string;
  /** The far end. */
  remote: { address: string; port: number };
  /** Our end. */
  local: { address: string; port: number };
}

export type SipMessageObserver = (message: SipWireMessage) => void;

const observers = new Set<SipMessageObserver>();

/** Adds an observer; returns its removal. An observer that throws is ignored by the transports. */
export function observeSipMessages(observer: SipMessageObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** Called by the transports for every message (keep-alives excluded). */
export function reportSipMessage(message: SipWireMessage): void {
  if (observers.size === 0) return;
  for (const observer of observers) {
    try {
      observer(message);
    } catch {
      // Observation must never break signalling.
    }
  }
}

/** `INVITE sip:…` → `{ method: 'INVITE' }`; `SIP/2.0 486 Busy Here` → `{ status: 486 }`; else undefined. */
export function startLineOf(data: Buffer): { method: string } | { status: number } | undefined {
  const end = data.indexOf(13);
  const line = data.toString('latin1', 0, end < 0 ? Math.min(data.length, 200) : Math.min(end, 200));
  if (line.startsWith('SIP/2.0 ')) {
    const status = Number(line.slice(8, 11));
    return Number.isInteger(status) && status >= 100 && status <= 699 ? { status } : undefined;
  }
  const space = line.indexOf(' ');
  const method = space > 0 ? line.slice(0, space) : '';
  return /^[A-Z]{2,16}$/.test(method) ? { method } : undefined;
}
