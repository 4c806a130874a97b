/**
 * Address ranges for `type=identify` `match`, endpoint `deny`/`permit` and `local_net`: core's one
 * parser and matcher (security/address-range.ts), under the names this package has always used.
 */
export { type AddressRange, parseAddressRange, rangeContains } from '@switchboard/core';
