import type { Check } from '../../check/define.ts';
import { checks as cursors } from './cursors.ts';
import { checks as end } from './end.ts';
import { checks as follow } from './follow.ts';
import { checks as ignored } from './ignored.ts';
import { checks as links } from './links.ts';
import { checks as order } from './order.ts';

/** Requirement id prefix of this folder's checks (area `page`). */
export const prefix = 'PAGE';

/**
 * Pagination (spec §5 and its Revision 2): walking and cursor arithmetic
 * (`cursors.ts`), the declared paging end (`end.ts`), paging URLs and headers (`links.ts`),
 * walking by the paging URLs (`follow.ts`), `total`, `next` and a single object's `cursor`
 * (`ignored.ts`), the stable order of lists (`order.ts`).
 */
export const checks: readonly Check[] = [
  ...cursors,
  ...end,
  ...links,
  ...follow,
  ...ignored,
  ...order,
];
