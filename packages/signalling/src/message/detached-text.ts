/**
 * A copy of `text` that shares no storage with the string it was cut from. V8 keeps a slice of 13
 * characters or more as a view of its parent, and every header value the parser cuts out of a
 * message is such a view of the message's whole header text: whatever outlives the message while
 * holding one (a finished transaction's key, the Via of the response it may send again, for up to
 * 32 s) keeps the whole head of the request alive with it. Going through bytes is the one way
 * JavaScript has to ask for a string of its own.
 */
export function detachedText(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
