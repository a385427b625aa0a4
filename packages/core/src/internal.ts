/**
 * `@tagtrack/core/internal`: the helpers core's rules share with `@tagtrack/engine` (the
 * dataset resolved into columns, byte-level timestamp parsing, contact ids of normalised
 * emails). Not part of the public API: no semver promise, may change in any release; a team
 * imports `@tagtrack/core`. Browser-safe like the rest of core.
 */
export { contactIdOfNormalised } from './aggregate/contact-id.ts';
export { INDEX_RULES } from './aggregate/dispatch.ts';
export { PLAIN_RULES, type PlainContext } from './aggregate/plain-answer.ts';
export {
  DEVICE_DESKTOP,
  DEVICE_MOBILE,
  DEVICE_NONE,
  type EventColumns,
  type EventSource,
  MAX_PROBLEMS,
  type RecipientSource,
  type ResolvedDataset,
  recipientsOfTags,
  resolveDataset,
} from './aggregate/resolve.ts';
export { canonicalTimestampMsOfBytes, dayOf } from './aggregate/time.ts';
