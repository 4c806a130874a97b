/** Building responses to received requests (RFC 3261 §8.2.6). */
import { SipParseError } from '../errors.js';
import { reasonPhrase } from './status-codes.js';
import { type HeaderField, type SipRequest, SipResponse } from './sip-message.js';

export interface ResponseOptions {
  reason?: string;
  /** Tag for the To header when it has none (RFC 3261 §8.2.6.2: required on every response but 100). */
  toTag?: string;
  /** Extra headers, in order, after the copied ones. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
  contentType?: string;
}

/**
 * Copies Via (all, in order), From, Call-ID and CSeq verbatim and To with the tag added
 * (RFC 3261 §8.2.6.2); Record-Route is copied for dialog-creating responses by the caller, who
 * knows whether the response creates a dialog (§12.1.1).
 */
export function createResponse(request: SipRequest, status: number, options: ResponseOptions = {}): SipResponse {
  const headers: HeaderField[] = [];
  for (const field of request.headers) {
    switch (field.key) {
      case 'via':
      case 'from':
      case 'call-id':
      case 'cseq':
        headers.push({ name: field.name, key: field.key, value: field.value });
        break;
      case 'to':
        headers.push({ name: field.name, key: field.key, value: withToTag(field.value, options.toTag, request) });
        break;
    }
  }
  const response = new SipResponse(status, options.reason ?? reasonPhrase(status), headers);
  for (const [name, value] of options.headers ?? []) response.addHeader(name, value);
  if (options.body !== undefined && options.body.length > 0) {
    response.addHeader('Content-Type', options.contentType ?? 'application/sdp');
    response.body = options.body;
  }
  return response;
}

/** Adds `;tag=` to a To value unless it already has one (the raw text is kept otherwise). */
function withToTag(raw: string, toTag: string | undefined, request: SipRequest): string {
  if (toTag === undefined) return raw;
  let hasTag: boolean;
  try {
    hasTag = request.to.tag !== undefined;
  } catch (err) {
    // An unreadable To still gets a response (a 400); it is then echoed as it came.
    if (err instanceof SipParseError) return raw;
    throw err;
  }
  return hasTag ? raw : `${raw};tag=${toTag}`;
}

/** Record-Route values to copy into a dialog-creating response, in order (RFC 3261 §12.1.1). */
export function copyRecordRoute(request: SipRequest, response: SipResponse): void {
  for (const value of request.getHeaderFields('Record-Route')) response.addHeader('Record-Route', value);
}
