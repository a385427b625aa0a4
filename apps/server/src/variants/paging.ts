import type { PagingLayer } from '../paging.ts';
import type { VariantSet } from './index.ts';

/**
 * The paging layer's variants: `paging-query-empty-pieces-dropped`, paging URLs whose query
 * leaves out the request's empty pieces (`rtn=json&&` links to `rtn=json&cursor=250`), a
 * freedom of spec §5 Revision 3 addendum; and `huge-cursor-clamp`, the huge-cursor rule of Revision 2 kept as
 * a variant (spec §12): a cursor above 2^53 − 1 is read as 2^53 − 1, so the page is past the
 * end and `previous`, `previousURL` and `Link` rel="prev" are 2^53 − 1 − pageSize
 * (`cursor=99999999999999999999` links to `cursor=9007199254740741`). It conforms only under a
 * profile pinned to revision 2; the current revision requires exact arithmetic (spec §5).
 * Below 2^53 − 1 every page is the clean layer's.
 */
export function withPagingVariants(layer: PagingLayer, variants: VariantSet): PagingLayer {
  let out = layer;
  if (variants.has('huge-cursor-clamp')) {
    const inner = out;
    out = {
      ...inner,
      window: (req) => {
        const w = inner.window(req);
        return w.cursor > Number.MAX_SAFE_INTEGER ? { ...w, cursor: Number.MAX_SAFE_INTEGER } : w;
      },
    };
  }
  if (variants.has('paging-query-empty-pieces-dropped')) {
    const inner = out;
    // empty pieces are no parameters (spec §5 Revision 3 addendum): dropping them is free
    out = {
      ...inner,
      urlQuery: (req, cursor) =>
        inner
          .urlQuery(req, cursor)
          .split('&')
          .filter((piece) => piece !== '')
          .join('&'),
    };
  }
  return out;
}
