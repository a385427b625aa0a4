import type { PagingLayer } from '../paging.ts';
import type { VariantSet } from './index.ts';

/**
 * The paging layer's variants: `huge-cursor-clamp`, the huge-cursor rule of Revision 2 kept as
 * a variant (spec §12): a cursor above 2^53 − 1 is read as 2^53 − 1, so the page is past the
 * end and `previous`, `previousURL` and `Link` rel="prev" are 2^53 − 1 − pageSize
 * (`cursor=99999999999999999999` links to `cursor=9007199254740741`). It conforms only under a
 * profile pinned to revision 2; the current revision requires exact arithmetic (spec §5).
 * Below 2^53 − 1 every page is the clean layer's.
 */
export function withPagingVariants(layer: PagingLayer, variants: VariantSet): PagingLayer {
  if (!variants.has('huge-cursor-clamp')) return layer;
  return {
    ...layer,
    window: (req) => {
      const w = layer.window(req);
      return w.cursor > Number.MAX_SAFE_INTEGER ? { ...w, cursor: Number.MAX_SAFE_INTEGER } : w;
    },
  };
}
