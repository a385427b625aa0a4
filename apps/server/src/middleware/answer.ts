import { type Caller, type PagingEnd, QueryParamError, type QueryParams } from '@tagtrack/core';
import type { Context } from 'hono';
import type { AppLayers } from '../layers.ts';
import { listPage } from '../paging.ts';
import type { Rendered, Renderer } from '../render.ts';
import { parseRequestQuery, queryEntries } from '../request.ts';
import type { Store } from '../store.ts';
import { type Env, respond } from './context.ts';

/** What answering needs: the store, the renderer, the layers and options. */
export interface AnswerDeps {
  readonly store: Store;
  readonly renderer: Renderer;
  /** The query parser (`params`), the paging layer (`paging`, `pageWindows`, `pagingPath`). */
  readonly layers: Pick<AppLayers, 'params' | 'paging' | 'pageWindows' | 'pagingPath'>;
  /** Records per page (spec §5, profile option). */
  readonly pageSize: number;
  /** How a list ends (spec §5 Revision 2, profile option). */
  readonly pagingEnd: PagingEnd;
  /** The base URL of `nextURL`/`previousURL`/`Link`, no trailing slash. */
  readonly publicUrl: () => string;
}

/**
 * The last steps of the order of checks, after route, method, auth and rate limit: query
 * parameters (spec §6: 400), unknown or out-of-scope id (spec §4: 404), then 200,
 * or 204 for an empty list page under pagingEnd `no-content`. A HEAD gets the headers of
 * the GET and no body. Leaves the rendered response in `rendered` for the response cache.
 *
 * With `layers.pageWindows`, the store is asked for the page's window only (`offset` the cursor, clipped to 2^53 − 1,
 * `limit` the page size): a SQL engine then answers one page (core's `AnswerSlice`), which
 * `listPage` cuts exactly as it would the whole list.
 */
export function answer(deps: AnswerDeps): (c: Context<Env>) => Promise<Response> {
  const { store, renderer, pageSize, pagingEnd } = deps;
  const { params, paging: pagingLayer, pageWindows, pagingPath } = deps.layers;

  async function render(c: Context<Env>, caller: Caller, method: string): Promise<Rendered> {
    const target = c.get('target');
    const { endpoint, pathParams } = c.get('match');
    let query: QueryParams;
    try {
      query = parseRequestQuery(endpoint, target.rawQuery, params);
    } catch (e) {
      if (e instanceof QueryParamError) return renderer.error(400, e.message);
      throw e;
    }
    const window = pageWindows
      ? { offset: Math.min(Number(query.cursor), Number.MAX_SAFE_INTEGER), limit: pageSize }
      : undefined;
    const answer = await store.answer(
      caller,
      { endpoint: endpoint.id, pathParams, query },
      queryEntries(target.rawQuery),
      window,
    );
    const contentType = { 'Content-Type': renderer.contentType(query.rtn) };
    switch (answer.kind) {
      case 'not_found':
        return renderer.error(404, answer.message);
      case 'single':
        if (pagingLayer.singleNoContent(query.cursor))
          return { status: 204, headers: { ...contentType, 'X-Total-Count': '1' }, body: '' };
        return {
          status: 200,
          headers: { ...contentType, ...pagingLayer.singleHeaders(query.cursor) },
          body: method === 'HEAD' ? '' : renderer.singleBody(endpoint, answer.record, query.rtn),
        };
      case 'list':
      case 'slice': {
        const { page, paging, headers, noContent } = listPage(
          {
            records: answer.records,
            slice: answer.kind === 'slice' ? answer : undefined,
            cursor: query.cursor,
            pageSize,
            pagingEnd,
            publicUrl: deps.publicUrl(),
            target,
            rtn: query.rtn,
            method,
            pathForm: pagingPath,
            header: (name) => c.req.header(name),
          },
          pagingLayer,
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

  return async (c) => {
    const rendered = await render(c, c.get('caller'), c.req.method);
    c.set('rendered', rendered);
    return respond(c, rendered);
  };
}
