/** Errors of the run's configuration. A leaf: imports nothing of the suite. */

/** The options are unusable (no credential, unknown expected-failure id, rejected credential). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_configuration' as const;
}
