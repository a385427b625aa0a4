import * as z from 'zod';

/**
 * The error body of every non-2xx response (spec §6):
 * `{ statusCode, error: <HTTP reason phrase>, message: <what was wrong> }`, always JSON.
 */
export const ErrorBody = z
  .object({
    statusCode: z.int().min(400).max(599),
    error: z.string().min(1),
    message: z.string().min(1),
  })
  .meta({ id: 'ErrorBody' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * HTTP reason phrases of the error statuses (spec §6): the ones the profile uses, and
 * 403, which the profile never sends (out-of-scope ids answer 404, spec §4) but other
 * servers may.
 */
export const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** Builds an {@link ErrorBody} for `statusCode` with its reason phrase. */
export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: REASON_PHRASES[statusCode] ?? 'Error', message };
}

/** Codes of {@link QueryParamError}. */
export type QueryParamErrorCode =
  | 'unknown_parameter'
  | 'invalid_value'
  | 'missing_parameter'
  | 'repeated_parameter'
  | 'invalid_range';

/**
 * A query parameter broke a rule of spec §6. Always answered with 400; `parameter`
 * names the offending parameter and `message` says what was wrong.
 */
export class QueryParamError extends Error {
  override readonly name = 'QueryParamError';
  readonly statusCode = 400;
  constructor(
    readonly code: QueryParamErrorCode,
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/** Codes of {@link AuthError}. */
export type AuthErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'unknown_credential'
  | 'bad_signature';

/** Authentication failed (spec §3). Always answered with 401. */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  readonly statusCode = 401;
  constructor(
    readonly code: AuthErrorCode,
    message: string,
  ) {
    super(message);
  }
}
