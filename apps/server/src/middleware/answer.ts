import { type Caller, type PagingEnd, QueryParamError, type QueryParams } from '@tagtrack/core';
import type { Context } from 'hono';
import type { FaultSet } from '../faults/index.ts';
import { listPage, singleHeaders, singleNoContent } from '../paging.ts';
import type { Rendered, Renderer } from '../render.ts';
import { parseRequestQuery, queryEntries } from '../request.ts';
import type { Store } from '../store.ts';
import { type Env, respond } from './context.ts';

/** What answering needs: the store, the renderer, the faults and the paging options. */
export interface AnswerDeps {
  readonly store: Store;
  readonly renderer: Renderer;
  readonly faults: FaultSet;
  /** Records per page (decisions §3, profile option). */
  readonly pageSize: number;
  /** How a list ends (decisions §3 Revision 2, profile option). */
  readonly pagingEnd: PagingEnd;
  /** The base URL of `nextURL`/`previousURL`/`Link`, no trailing slash. */
  readonly publicUrl: () => string;
}

/**
 * The last steps of the order of checks, after route, method, auth and rate limit: query
 * parameters (decisions §4: 400), unknown or out-of-scope id (decisions §2: 404), then 200,
 * or 204 for an empty list page under pagingEnd `no-content`. A HEAD gets the headers of
 * the GET and no body. Leaves the rendered response in `rendered` for the response cache.
 * The parameter faults live in `parseRequestQuery`, the paging faults in `listPage`, the
 * store faults in the store, the render faults in the renderer; `paging-url-from-host` here.
 */
export function answer(deps: AnswerDeps): (c: Context<Env>) => Response {
  const { store, renderer, faults, pageSize, pagingEnd } = deps;

  function render(c: Context<Env>, caller: Caller, method: string): Rendered {
    const target = c.get('target');
    const { endpoint, pathParams } = c.get('match');
    let query: QueryParams;
    try {
      query = parseRequestQuery(endpoint, target.rawQuery, faults);
    } catch (e) {
      if (e instanceof QueryParamError) return renderer.error(400, e.message);
      throw e;
    }
    const answer = store.answer(
      caller,
      { endpoint: endpoint.id, pathParams, query },
      queryEntries(target.rawQuery),
    );
    const contentType = { 'Content-Type': renderer.contentType(query.rtn) };
    switch (answer.kind) {
      case 'not_found':
        return renderer.error(404, answer.message);
      case 'forbidden':
        return renderer.error(403, answer.message);
      case 'single':
        if (singleNoContent(query.cursor, faults))
          return { status: 204, headers: { ...contentType, 'X-Total-Count': '1' }, body: '' };
        return {
          status: 200,
          headers: { ...contentType, ...singleHeaders(faults) },
          body: method === 'HEAD' ? '' : renderer.singleBody(endpoint, answer.record, query.rtn),
        };
      case 'list': {
        const { page, paging, headers, noContent } = listPage(
          {
            records: answer.records,
            cursor: query.cursor,
            pageSize,
            pagingEnd,
            publicUrl: faults.has('paging-url-from-host')
              ? (hostBase(c) ?? deps.publicUrl())
              : deps.publicUrl(),
            target,
            rtn: query.rtn,
            method,
            pathForm: renderer.variants.has('paging-path-canonical') ? 'canonical' : 'as-received',
          },
          faults,
        );
        // A 204 keeps the Content-Type the body would have had, so HEAD and GET agree and
        // the HTTP layer does not add a default one.
        return {
          status: noContent ? 204 : 200,
          headers: { ...contentType, ...headers },
          body:
            method === 'HEAD' || noContent
              ? ''
              : renderer.listBody(endpoint, page.records, paging, query.rtn),
        };
      }
    }
  }

  return (c) => {
    const rendered = render(c, c.get('caller'), c.req.method);
    c.set('rendered', rendered);
    return respond(c, rendered);
  };
}

/**
 * Fault `paging-url-from-host`: the base URL of the paging URLs read from the request's
 * `X-Forwarded-Host` (and `X-Forwarded-Proto`) or `Host` header, as a server behind a proxy
 * might; `undefined` without either header.
 */
function hostBase(c: Context<Env>): string | undefined {
  // bug: the request's headers name the base URL instead of the configured public URL
  const host = c.req.header('x-forwarded-host') ?? c.req.header('host');
  if (host === undefined || host === '') return undefined;
  return `${c.req.header('x-forwarded-proto') ?? 'http'}://${host}`;
}
