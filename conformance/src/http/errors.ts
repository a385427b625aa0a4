/** Errors of the HTTP layer. A leaf: imports nothing of the suite. */

/**
 * The base URL could not be reached or gave no usable answer: DNS, refused, reset, timeout
 * (headers or body), or a body over the `maxBodyBytes` cap. `message` is one line. (A redirect
 * is never followed: it is an exchange with its 3xx status.)
 */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  readonly code = 'connection_failed' as const;
  /** `options.cause`: what the transport threw (e.g. the run guard's refusal, runner's `RunStopped`). */
  constructor(
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
