/**
 * The media engine's control surface as the object model and the channel drivers see it. Declared
 * once, in the types-only package @switchboard/media-control, which packages/media implements;
 * core re-exports all of it here so that its users import the seam from core (DESIGN.md: core
 * defines the interfaces the others implement). Types only: nothing of it exists at run time.
 */
export type * from '@switchboard/media-control';
