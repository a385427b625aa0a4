import { fc, test as fcTest } from '@fast-check/vitest';
import { TimeSlice } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import { readAhead } from '../src/check/context/calls.ts';
import { type CheckScope, inScope, SNIPPET_CHARS, Violation } from '../src/check/failure.ts';
import {
  parseJson,
  parseJsonInSlices,
  readEnvelope,
  readEnvelopeInSlices,
  readInSlices,
} from '../src/check/walk.ts';
import type { Exchange } from '../src/http/types.ts';

/*
 * A body parsed, frozen and checked against its envelope in time slices reads as it does at
 * once: the same value (shared as it would be), the same violation. Order of events is
 * asserted, never wall time: slices of 0 ms pause at every reading of the clock.
 */

let nextId = 50_000;

/** An exchange answering `body` with `status` (what the readers read of it). */
const answer = (body: string, status = 200) =>
  ({
    id: nextId++,
    method: 'GET',
    target: '/opens',
    url: 'http://x.invalid/opens',
    status,
    responseHeaders: {},
    body,
  }) as unknown as Exchange;

/** A slice that pauses at every step, whatever the machine's speed. */
const everyStep = () => new TimeSlice({ budgetMs: 0, stride: 1 });

/** The value a read gives, or the class, kind and message of what it throws. */
async function outcome(read: () => unknown): Promise<unknown> {
  try {
    return { value: await read() };
  } catch (e) {
    return {
      thrown: (e as Error).constructor.name,
      kind: e instanceof Violation ? e.kind : undefined,
      message: (e as Error).message,
    };
  }
}

function deeplyFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen);
}

/** One open of endpoint 11 (a recipient and the details), `i` making it distinct. */
const open = (i: number) => ({
  recipient: { recipientID: `r${i % 7}`, name: `Name ${i % 7}`, email: `n${i % 7}@x.test` },
  details: {
    openDate: `2025-11-15T23:${String(i % 60).padStart(2, '0')}:00Z`,
    counry: 'Ireland',
    region: 'Leinster',
    city: 'Dublin',
    latitude: '53.3498',
    longitude: '-6.2603',
    device: 'tablet',
    os: 'iPadOS',
    browser: 'Mobile Safari',
  },
});

/** A group of endpoint 11: a tag and `n` opens. */
const group = (tag: number, n: number) => ({
  tagID: `t${tag}`,
  opens: Array.from({ length: n }, (_, i) => open(tag * 100 + i)),
});

const paging = (url: string | null) => ({
  cursors: { previous: 0, next: 2, total: 9 },
  previousURL: null,
  nextURL: url,
});

/** Ways a page of endpoint 11 may break its envelope, or none. */
const arbBreak = fc.constantFrom(
  'none',
  'record-field-missing',
  'record-field-type',
  'event-field-type',
  'data-not-list',
  'paging-missing',
  'paging-bad',
  'body-list',
  'not-json',
  'extra-members',
);

/** The text of a page of `groups` groups, broken in the way `kind` names at record `at`. */
function pageText(groups: number, events: number, kind: string, at: number): string {
  const data: unknown[] = Array.from({ length: groups }, (_, g) => group(g, events));
  const i = at % Math.max(groups, 1);
  let body: Record<string, unknown> | unknown[] = { data, paging: paging('/opens?cursor=2') };
  if (groups > 0 && kind === 'record-field-missing') data[i] = { opens: [] };
  if (groups > 0 && kind === 'record-field-type') data[i] = { ...group(i, events), tagID: 7 };
  if (groups > 0 && events > 0 && kind === 'event-field-type') {
    const g = group(i, events);
    g.opens[0] = { ...g.opens[0]!, details: { ...g.opens[0]!.details, latitude: 'north' } };
    data[i] = g;
  }
  if (kind === 'data-not-list') body = { data: { 0: data[0] }, paging: paging(null) };
  if (kind === 'paging-missing') body = { data };
  if (kind === 'paging-bad') body = { data, paging: { ...paging(null), nextURL: 3 } };
  if (kind === 'body-list') body = data;
  if (kind === 'extra-members') body = { data, paging: paging(null), more: { x: [1, 2] } };
  const text = JSON.stringify(body);
  return kind === 'not-json' ? text.slice(0, -1) : text;
}

describe('bodies read in time slices', () => {
  fcTest.prop([fc.nat(12), fc.nat(6), arbBreak, fc.nat(), fc.constantFrom(200, 404)], {
    numRuns: 150,
  })(
    'readEnvelopeInSlices gives what readEnvelope gives: the same body, or the same violation (kind and message)',
    async (groups, events, kind, at, status) => {
      const text = pageText(groups, events, kind, at);
      // a space after the text: the same JSON read as another body (no shared parse or
      // verdict between the two reads, except the records a list body shares); a message
      // quoting a short body quotes that space too, and a body of exactly the quoted length
      // is one character too long with it, so quoted cut (`…`)
      const atOnce = (await outcome(() =>
        readEnvelope('opens.list', answer(`${text} `, status)),
      )) as { message?: string };
      if (atOnce.message !== undefined)
        atOnce.message = atOnce.message.replace(text.length === SNIPPET_CHARS ? /…$/ : / $/, '');
      const sliced = await outcome(() =>
        readEnvelopeInSlices('opens.list', answer(text, status), everyStep()),
      );
      expect(sliced).toEqual(atOnce);
      if ('value' in (sliced as object)) {
        expect(deeplyFrozen((sliced as { value: unknown }).value)).toBe(true);
        expect((sliced as { value: unknown }).value).toEqual(JSON.parse(text));
      }
    },
  );

  fcTest.prop([fc.nat(12), fc.nat(6), arbBreak, fc.nat()], { numRuns: 100 })(
    'parseJsonInSlices is parseJson: JSON.parse of the body deeply frozen, or the same violation',
    async (groups, events, kind, at) => {
      const text = pageText(groups, events, kind, at);
      const sliced = await outcome(() => parseJsonInSlices(answer(text), everyStep()));
      const atOnce = await outcome(() => parseJson(answer(text)));
      expect(sliced).toEqual(atOnce);
      if ('value' in (sliced as object)) {
        expect(deeplyFrozen((sliced as { value: unknown }).value)).toBe(true);
        expect((sliced as { value: unknown }).value).toEqual(JSON.parse(text));
      }
    },
  );

  test('two spellings of one list read in slices at the same time share one parse of the records', async () => {
    const data = Array.from({ length: 40 }, (_, g) => group(1000 + g, 3));
    const text = (url: string) => JSON.stringify({ data, paging: paging(url) });
    const [a, b] = (await Promise.all([
      parseJsonInSlices(answer(text('/opens?cursor=2')), everyStep()),
      parseJsonInSlices(answer(text('/opens?CURSOR=2')), everyStep()),
    ])) as { data: unknown; paging: unknown }[];
    expect(b!.data).toBe(a!.data);
    expect(b!.paging).not.toEqual(a!.paging);
    // and a read at once afterwards finds the same records
    const c = parseJson(answer(text('/opens?cursor=02'))) as { data: unknown };
    expect(c.data).toBe(a!.data);
  });

  test('a long page is parsed and checked with the event loop turning: a timer set before fires before it is read', async () => {
    const text = pageText(300, 5, 'none', 0);
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    const slice = everyStep();
    const body = await readEnvelopeInSlices('opens.list', answer(text), slice);
    order.push('read');
    expect(order).toEqual(['timer', 'read']);
    // at least a pause per record frozen and per record checked
    expect(slice.pauses).toBeGreaterThanOrEqual(2 * 300);
    expect(body).toEqual(JSON.parse(text));
  });

  fcTest.prop([fc.integer({ min: 80, max: 200 }), arbBreak, fc.nat()], { numRuns: 30 })(
    "reading a long answer ahead (a check's call) judges and counts nothing; the check's own read then counts and finds what it would have",
    async (groups, kind, at) => {
      const text = pageText(groups, 2, kind, at);
      const scope = (): CheckScope => ({ comparisons: 0, log: [] }) as unknown as CheckScope;
      const ahead = scope();
      const ex = answer(text);
      await inScope(ahead, async () => {
        await readInSlices('opens.list', ex, everyStep());
        expect(await readAhead('opens.list')(ex)).toBe(ex);
      });
      expect(ahead.comparisons).toBe(0);
      const [after, plain] = [scope(), scope()];
      const read = await inScope(after, () => outcome(() => readEnvelope('opens.list', ex)));
      const fresh = await inScope(plain, () =>
        outcome(() => readEnvelope('opens.list', answer(`${text} `))),
      );
      if ('message' in (fresh as object))
        (fresh as { message: string }).message = (fresh as { message: string }).message.replace(
          / $/,
          '',
        );
      expect(read).toEqual(fresh);
      expect(after.comparisons).toBe(plain.comparisons);
    },
  );
});
