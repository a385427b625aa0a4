export { type AppDeps, createApp } from './app.ts';
export { FAULT_NAMES, FAULTS, type FaultInfo, type FaultName, isFaultName } from './faults.ts';
export { parseRate, type RateLimit, RateLimiter } from './rate-limit.ts';
export { createServer, type ServerOptions, type TagtrackServer } from './server.ts';
