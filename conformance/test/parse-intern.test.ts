import { fileURLToPath } from 'node:url';
import { fc, test as fcTest } from '@fast-check/vitest';
import { expect, test } from 'vitest';
import { Violation } from '../src/check/failure.ts';
import { parseJson } from '../src/check/walk.ts';
import type { Exchange } from '../src/http/types.ts';
import { inOwnProcess } from './helpers.ts';

/**
 * Runs `script` (an ES module printing `{ plain, parsed }`, the MB each parse keeps) in a
 * process of its own with --expose-gc, so the heap is measured after full collections.
 */
function heldInProcess(script: string): Promise<{ plain: number; parsed: number }> {
  return inOwnProcess(script);
}

/** An exchange of `body` (what parseJson reads of it). */
const answer = (body: string, id = 1) =>
  ({
    id,
    method: 'GET',
    target: '/opens',
    url: 'http://x.invalid/opens',
    status: 200,
    body,
  }) as unknown as Exchange;

test('a parsed body equals JSON.parse of it, deeply frozen, whatever its short strings', () => {
  const value = {
    data: [
      { email: 'a@x.test', name: 'Ünïcödé 日本語', list: ['mobile', 'mobile', 'x'.repeat(80)] },
      { email: 'a@x.test', n: 1, nested: { city: 'Kraków', empty: '' } },
    ],
    paging: null,
  };
  const body = JSON.stringify(value);
  const parsed = parseJson(answer(body)) as typeof value;
  expect(parsed).toEqual(JSON.parse(body));
  expect(Object.isFrozen(parsed)).toBe(true);
  expect(Object.isFrozen(parsed.data[0]!.list)).toBe(true);
  expect(Object.isFrozen(parsed.data[1]!.nested)).toBe(true);
});

test('event lists that repeat emails, names and cities hold each short string once: well under what JSON.parse alone keeps', async () => {
  // in a process of its own with --expose-gc: the heap is measured after a full collection
  const module = fileURLToPath(new URL('../src/check/walk.ts', import.meta.url));
  const script = `
    const { parseJson } = await import(${JSON.stringify(module)});
    const body = (page) => JSON.stringify({ data: Array.from({ length: 8000 }, (_, i) => ({
      tagID: 'T' + ((page * 8000 + i) % 500),
      opens: Array.from({ length: 6 }, (_, j) => {
        const r = (i * 7 + j * 13 + page * 31) % 2000;
        return { recipient: { email: 'user.' + r + '@example.test', name: 'Name ' + r },
          openDate: '2026-03-0' + (1 + (j % 9)) + 'T12:' + String(i % 60).padStart(2, '0') + ':00.000Z',
          details: { device: ['mobile', 'desktop', 'tablet'][j % 3], city: 'City' + (r % 40), os: 'OS' + (r % 5) } };
      }),
    })), paging: null });
    const held = (parse) => {
      const kept = [];
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      // bodies over the parse cache's 4 M characters: only the parsed values stay
      for (let p = 0; p < 3; p++) {
        const text = body(p);
        kept.push(parse({ id: p, method: 'GET', target: '/opens', url: 'x', status: 200, body: text }));
      }
      globalThis.gc();
      return kept.length > 0 ? (process.memoryUsage().heapUsed - before) / 1048576 : 0;
    };
    console.log(JSON.stringify({ plain: held((ex) => JSON.parse(ex.body)), parsed: held(parseJson) }));
  `;
  const mb = await heldInProcess(script);
  expect(mb.parsed).toBeLessThan(0.8 * mb.plain);
}, 60_000);

test('a parse kept for sharing does not keep the body it was read from alive: records held cost what JSON.parse of them costs', async () => {
  // in a process of its own with --expose-gc: the heap is measured after a full collection;
  // long unique strings, so that interning saves nothing and only the bodies could differ
  const module = fileURLToPath(new URL('../src/check/walk.ts', import.meta.url));
  const script = `
    const { parseJson } = await import(${JSON.stringify(module)});
    const body = (page) => JSON.stringify({ data: Array.from({ length: 4000 }, (_, i) => ({
      note: 'note ' + page + ' ' + i + ' ' + 'x'.repeat(60), n: i,
    })), paging: { cursors: { next: 1 }, previousURL: null, nextURL: '/contacts?p=' + page } });
    const held = (parse) => {
      const kept = [];
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      for (let p = 0; p < 12; p++) {
        const text = body(p);
        kept.push(parse({ id: p, method: 'GET', target: '/contacts', url: 'x', status: 200, body: text }).data);
      }
      globalThis.gc();
      return kept.length > 0 ? (process.memoryUsage().heapUsed - before) / 1048576 : 0;
    };
    console.log(JSON.stringify({ plain: held((ex) => JSON.parse(ex.body)), parsed: held(parseJson) }));
  `;
  const mb = await heldInProcess(script);
  expect(mb.parsed).toBeLessThan(1.15 * mb.plain);
}, 60_000);

/** `value` and everything in it frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

// list bodies long enough for their data to be parsed on its own: the reference form, with
// spaces, with a nested `paging` member in the records, a second `data` member after paging,
// other members, or broken anywhere
const arbRecords = fc.array(
  fc.record({
    email: fc.constantFrom('a@x.test', 'b@x.test'),
    note: fc.constantFrom('', ',"paging":', '\\"', 'x'.repeat(60)),
    paging: fc.option(fc.record({ next: fc.nat(3) }), { nil: undefined }),
  }),
  { minLength: 40, maxLength: 60 },
);
const arbBody = fc
  .tuple(
    arbRecords,
    fc.record({
      cursors: fc.record({ next: fc.nat(9) }),
      nextURL: fc.constantFrom(null, '/x?a=1'),
    }),
    fc.constantFrom('', ' ', '\n'),
    fc.constantFrom('', ',"data":[]', ',"total":3', ',"paging":{"again":true}'),
    fc.constantFrom('', 'truncate', 'trail'),
  )
  .map(([data, paging, space, more, broken]) => {
    const text = `{"data":${space}${JSON.stringify(data)}${space},"paging":${JSON.stringify(paging)}${more}}`;
    return broken === 'truncate' ? text.slice(0, -2) : broken === 'trail' ? `${text}]` : text;
  });

let nextId = 100;
fcTest.prop([arbBody], { numRuns: 200 })(
  'parseJson of any body is JSON.parse of it (members and their order included), deeply frozen, or a schema violation when JSON.parse throws',
  (body) => {
    let expected: unknown;
    try {
      expected = JSON.parse(body);
    } catch {
      expect(() => parseJson(answer(body, nextId++))).toThrow(Violation);
      return;
    }
    const parsed = parseJson(answer(body, nextId++));
    expect(parsed).toEqual(expected);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(expected));
    expect(deeplyFrozen(parsed)).toBe(true);
  },
);

test('two list answers with the same records under different paging URLs share one parse of the records', () => {
  const data = Array.from({ length: 200 }, (_, i) => ({ email: `u${i}@x.test`, n: i }));
  const body = (url: string) =>
    JSON.stringify({ data, paging: { cursors: { next: 50 }, previousURL: null, nextURL: url } });
  const a = parseJson(answer(body('/contacts?cursor=50'), 1)) as { data: unknown; paging: unknown };
  const b = parseJson(answer(body('/contacts?CURSOR=50'), 2)) as { data: unknown; paging: unknown };
  expect(b.data).toBe(a.data);
  expect(b).toEqual(JSON.parse(body('/contacts?CURSOR=50')));
  expect(b.paging).not.toEqual(a.paging);
});

test('records still held elsewhere are shared after the parse cache moved on to other bodies', () => {
  const list = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ email: `${tag}${i}@x.test`, n: i }));
  const body = (data: unknown, url: string) =>
    JSON.stringify({ data, paging: { cursors: { next: 1 }, previousURL: null, nextURL: url } });
  const data = list('held', 300);
  const first = parseJson(answer(body(data, '/contacts?a=1'), 9001)) as { data: unknown };
  // more than the cache's 4 M characters of other lists in between
  for (let k = 0; k < 12; k++) parseJson(answer(body(list(`other${k}`, 20_000), '/x'), 9100 + k));
  const again = parseJson(answer(body(data, '/contacts?A=1'), 9002)) as { data: unknown };
  expect(again.data).toBe(first.data);
  expect(again).toEqual(JSON.parse(body(data, '/contacts?A=1')));
});
