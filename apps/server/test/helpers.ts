import { type AccountType, authorizationHeader, ErrorBody } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS, type CanonicalCredential } from '@tagtrack/dataset/canonical';
import { expect } from 'vitest';
import type { TagtrackServer } from '../src/index.ts';

/** Base URL of in-memory requests (no socket is opened). */
export const BASE = 'http://tagtrack.test';

/** The canonical credential of team `team` (1-based) and account type `accountType`. */
export function credential(team: 1 | 2, accountType: AccountType): CanonicalCredential {
  const c = CANONICAL_CREDENTIALS.find((x) => x.label === `team${team}-${accountType}`);
  if (!c) throw new Error(`no canonical credential team${team}-${accountType}`);
  return c;
}

/** Options of {@link get}. */
export interface GetOptions {
  /** Sign as this credential (default: the team 1 admin); `null`: no Authorization header. */
  as?: { authId: string; accessKey: string } | null;
  /** Sign this string instead of the query string sent. */
  signed?: string;
  method?: string;
  headers?: Record<string, string>;
}

/**
 * Sends `GET path?query` to `server` in memory, signed per spec §3 over `query` exactly
 * as given (unless `options.signed` says otherwise).
 */
export function get(
  server: TagtrackServer,
  path: string,
  query = '',
  options: GetOptions = {},
): Promise<Response> {
  const as = options.as === undefined ? credential(1, 'admin') : options.as;
  const headers: Record<string, string> = { ...options.headers };
  if (as) {
    headers.Authorization = authorizationHeader(as.authId, as.accessKey, options.signed ?? query);
  }
  const url = `${BASE}${path}${query === '' ? '' : `?${query}`}`;
  return server.fetch(new Request(url, { method: options.method ?? 'GET', headers }));
}

/** Sends a request and parses its JSON body. */
export async function getJson<T = unknown>(
  server: TagtrackServer,
  path: string,
  query = '',
  options: GetOptions = {},
): Promise<{ res: Response; body: T }> {
  const res = await get(server, path, query, options);
  return { res, body: (await res.json()) as T };
}

/**
 * Asserts that `res` is an error of spec §6: status `status`, JSON content type,
 * a valid {@link ErrorBody} whose message contains every string of `mentions`.
 */
export async function expectError(
  res: Response,
  status: number,
  mentions: readonly string[] = [],
): Promise<ErrorBody> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = ErrorBody.parse(await res.json());
  expect(body.statusCode).toBe(status);
  for (const m of mentions) expect(body.message).toContain(m);
  return body;
}

/** Statuses of a successful list answer: 200, or 204 for an empty page (spec §5 Revision 2). */
export const LIST_OK = [200, 204] as const;

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
}

/** What {@link rawRequest} resolves: the status line, the raw headers and the body bytes. */
export interface RawResponse {
  status: number;
  statusMessage: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Sends a request target exactly as given (no URL parser normalises it, no Accept-Encoding
 * is added) to a listening server at `base`, with node:http.
 */
export async function rawRequest(
  base: string,
  target: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const { request } = await import('node:http');
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: target,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
