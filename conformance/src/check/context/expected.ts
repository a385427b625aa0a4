/**
 * The oracle's answer to one request (fixture mode): what `CheckContext.expected` compares an
 * implementation's answer with.
 */
import {
  type Answer,
  type EndpointId,
  endpointById,
  type PathParamName,
  parseQuery,
} from '@tagtrack/core';
import type { Credential } from '../../http/client.ts';
import type { Oracle } from '../types.ts';

/**
 * Parses `query` with core's `parseQuery` and asks the plain rules (`Oracle.answer`) as the
 * caller of `credential`. Throws when there is no oracle (not fixture mode) or the credential
 * is not in the dataset.
 */
export function oracleAnswer(
  oracle: Oracle | undefined,
  credential: Credential,
  endpoint: EndpointId,
  pathParams: Partial<Record<PathParamName, string>>,
  query: readonly (readonly [string, string])[],
): Answer {
  if (oracle === undefined) throw new Error('expected() needs fixture mode');
  const caller = oracle.callerOf(credential);
  if (caller === undefined) throw new Error(`credential ${credential.label} is not in the dataset`);
  const e = endpointById(endpoint);
  const parsed = parseQuery(query, { allowed: e.query, required: e.requiredQuery });
  return oracle.answer(caller, { endpoint, pathParams, query: parsed });
}
