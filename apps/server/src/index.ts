export { type AppDeps, createApp } from './app.ts';
export {
  FAULT_NAMES,
  FAULTS,
  type FaultArea,
  type FaultInfo,
  type FaultName,
  isFaultName,
} from './faults/index.ts';
export { type AppLayers, CLEAN_LAYERS } from './layers.ts';
export {
  LIVE_BASE_TAGS_PER_TEAM,
  LiveAppender,
  type LiveHandle,
  type LiveOptions,
  type LiveVersion,
  liveRate,
  MAX_RECORDS_PER_TICK,
} from './live.ts';
export { parseRate, type RateLimit, RateLimiter } from './rate-limit.ts';
export {
  createServer,
  DEFAULT_PUBLIC_URL,
  normalisePublicUrl,
  type ServerOptions,
  ServerOptionsError,
  type TagtrackServer,
} from './server.ts';
export {
  isVariantName,
  VARIANT_NAMES,
  VARIANTS,
  type VariantInfo,
  type VariantName,
  type VariantServerOptions,
} from './variants/index.ts';
export { alternativeContactId, extraFieldsOf } from './variants/records.ts';
export { EXTRA_HEADERS, REASON_PHRASE_VARIANT } from './variants/transport.ts';
