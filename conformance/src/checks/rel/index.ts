import type { Check } from '../../check/define.ts';
import { checks as callers } from './callers.ts';
import { checks as contacts } from './contacts.ts';
import { checks as events } from './events.ts';
import { checks as forms } from './forms.ts';
import { checks as stats } from './stats.ts';
import { checks as tags } from './tags.ts';

/** Requirement id prefix of this folder's checks (area `rel`). */
export const prefix = 'REL';

/**
 * Metamorphic and cross-endpoint relations (spec §4, §5, §6, §8, §9, §10), generated with
 * fast-check and shrunk on failure: tag filters and windows (`tags.ts`), stats merged and
 * split (`stats.ts`), counters against their events (`events.ts`), the same records in
 * another form (`forms.ts`), contacts across endpoints (`contacts.ts`), and between two
 * callers' answers (`callers.ts`).
 */
export const checks: readonly Check[] = [
  ...tags,
  ...stats,
  ...events,
  ...forms,
  ...contacts,
  ...callers,
];
