import type { Check } from '../../check/define.ts';
import { checks as cursor } from './cursor.ts';
import { checks as fuzz } from './fuzz.ts';
import { checks as order } from './order.ts';
import { checks as paths } from './paths.ts';
import { checks as query } from './query.ts';
import { checks as values } from './values.ts';

/** Requirement id prefix of this folder's checks (area `input`). */
export const prefix = 'INPUT';

/**
 * Bad input gets the documented 400 or 404 with the error body, and nothing gets a 5xx
 * (spec §5, §6, §6): bad parameter values (`values.ts`), cursors and the ignored total
 * and next (`cursor.ts`), unknown ids and paths, decoded segments (`paths.ts`), the order of checks (`order.ts`), generated
 * input (`fuzz.ts`), the query-string syntax (`query.ts`). `same-answer.ts` compares two answers that must not differ.
 */
export const checks: readonly Check[] = [
  ...values,
  ...query,
  ...cursor,
  ...paths,
  ...order,
  ...fuzz,
];
