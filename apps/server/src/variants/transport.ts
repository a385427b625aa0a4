import { deflateSync, gzipSync } from 'node:zlib';
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { VariantSet } from './index.ts';

/**
 * The transport layer's variants (spec §8 Revision 2: transfer details are free):
 * content coding, chunking, connection handling and the reason phrase change only what
 * travels on the socket, so they wrap the application's `fetch` handler where the server
 * listens ({@link withTransport}); extra response headers are also visible in memory, so they
 * are a middleware of the application ({@link extraHeaders}).
 */

/** The headers of the `extra-headers` variant. */
export const EXTRA_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'private, no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Powered-By': 'tagtrack reference server',
  'X-Tagtrack-Revision': '2',
};

/**
 * The middleware adding {@link EXTRA_HEADERS} to every response and taking the `Content-Type`
 * off a 204 (its headers beyond `X-Total-Count` and `Link` are free, and it has no body), or
 * `undefined` when the variant is off.
 */
export function extraHeaders(variants: VariantSet): MiddlewareHandler | undefined {
  if (!variants.has('extra-headers')) return undefined;
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(EXTRA_HEADERS)) c.res.headers.set(name, value);
    if (c.res.status === 204) c.res.headers.delete('Content-Type');
  };
}

/** The reason phrases of the `reason-phrase` variant; other statuses get `Status <n>`. */
export const REASON_PHRASE_VARIANT: Readonly<Record<number, string>> = {
  200: 'Here You Go',
  204: 'Nothing More',
  400: 'Check Your Parameters',
  401: 'Who Are You',
  403: 'Not For You',
  404: 'Nothing Here',
  405: 'Only GET And HEAD',
  429: 'Slow Down',
  500: 'Something Broke',
};

/** Bytes per chunk of the `chunked` variant (small, so even short bodies span chunks). */
const CHUNK_BYTES = 1024;

export type FetchHandler = (
  request: Request,
  env: HttpBindings | Http2Bindings,
) => Response | Promise<Response>;

/**
 * Wraps the application's `fetch` for a socket with the transport variants that are on:
 * `gzip` / `deflate` (the body compressed when `Accept-Encoding` accepts the coding, with
 * `Content-Encoding` and `Vary: Accept-Encoding`; gzip preferred when both are on and
 * accepted), `chunked` (`Transfer-Encoding: chunked`, no `Content-Length`), `connection-close`
 * (`Connection: close`), and `reason-phrase` (a non-standard status text on the status line,
 * set on Node's `ServerResponse` before the adapter writes the head). Empty bodies (HEAD,
 * 204) are neither compressed nor chunked. Returns `fetch` itself when no variant applies.
 */
export function withTransport(fetch: FetchHandler, variants: VariantSet): FetchHandler {
  const codings = (['gzip', 'deflate'] as const).filter((c) => variants.has(c));
  const chunked = variants.has('chunked');
  const close = variants.has('connection-close');
  const phrase = variants.has('reason-phrase');
  if (codings.length === 0 && !chunked && !close && !phrase) return fetch;

  return async (request, env) => {
    const res = await fetch(request, env);
    if (phrase) {
      env.outgoing.statusMessage = REASON_PHRASE_VARIANT[res.status] ?? `Status ${res.status}`;
    }
    if (codings.length === 0 && !chunked && !close) return res;

    const headers = new Headers(res.headers);
    let body: Uint8Array | null =
      res.body === null ? null : new Uint8Array(await res.arrayBuffer());
    if (body !== null && body.byteLength === 0) body = null;
    if (codings.length > 0) {
      headers.append('Vary', 'Accept-Encoding');
      const coding = codings.find((c) => accepts(request.headers.get('accept-encoding'), c));
      if (coding !== undefined && body !== null) {
        body = coding === 'gzip' ? gzipSync(body) : deflateSync(body);
        headers.set('Content-Encoding', coding);
      }
    }
    if (close) headers.set('Connection', 'close');
    headers.delete('Content-Length');
    if (chunked && body !== null) {
      headers.set('Transfer-Encoding', 'chunked');
      return new Response(chunks(body), { status: res.status, headers });
    }
    return new Response(body as Uint8Array<ArrayBuffer> | null, { status: res.status, headers });
  };
}

/** A stream of `body` in {@link CHUNK_BYTES} pieces. */
function chunks(body: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(body.subarray(offset, offset + CHUNK_BYTES));
      offset += CHUNK_BYTES;
    },
  });
}

/**
 * Whether an `Accept-Encoding` value accepts `coding` (RFC 9110 §12.5.3): listed by name or
 * as `*`, with a q-value above 0. An absent header accepts nothing here (identity).
 */
export function accepts(acceptEncoding: string | null, coding: string): boolean {
  if (acceptEncoding === null) return false;
  let star: boolean | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)).find((m) => m !== null);
    const ok = q === undefined || Number(q[1]) > 0;
    if (name.trim() === coding) return ok;
    if (name.trim() === '*') star = ok;
  }
  return star ?? false;
}
