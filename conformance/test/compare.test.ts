import { fileURLToPath } from 'node:url';
import { fc, test as fcTest } from '@fast-check/vitest';
import { FormatParseError, parseHtml, parseText, renderHtml, renderText } from '@tagtrack/core';
import { describe, expect, test } from 'vitest';
import {
  bodyTable,
  bodyTableInSlices,
  canonicalTies,
  comparable,
  comparableData,
  instantOf,
  linksOf,
  mediaType,
  normaliseTable,
} from '../src/check/compare.ts';
import { type CheckScope, inScope } from '../src/check/failure.ts';
import {
  differenceEitherWay,
  firstDifference,
  firstDifferenceInSlices,
} from '../src/check/sample.ts';
import { comparableInSlices } from '../src/check/slices.ts';
import { inOwnProcess } from './helpers.ts';

/** The suite compares meaning, never incidental form (spec introduction, §5, §8, §9 Revision 2). */

describe('comparing by meaning', () => {
  test('timestamps are instants: fractional seconds equal whole ones at the same instant', () => {
    expect(instantOf('2024-03-05T14:22:01Z')).toBe(instantOf('2024-03-05T14:22:01.000Z'));
    expect(instantOf('2024-03-05T14:22:01.5Z')).toBe(Date.UTC(2024, 2, 5, 14, 22, 1, 500));
    expect(instantOf('2024-03-05')).toBeUndefined();
    expect(firstDifference({ d: '2024-03-05T14:22:01Z' }, { d: '2024-03-05T14:22:01.000Z' })).toBe(
      undefined,
    );
    expect(firstDifference({ d: '2024-03-05T14:22:01Z' }, { d: '2024-03-05T14:22:02Z' })).toMatch(
      /^d: expected/,
    );
  });

  test('fields only the implementation sends are ignored; a missing field is named', () => {
    expect(firstDifference({ a: 1 }, { b: 2, a: 1 })).toBeUndefined();
    expect(firstDifference({ a: 1, b: 2 }, { a: 1 })).toBe('b: missing (expected 2)');
    expect(firstDifference([{ a: 1 }], [{ a: 1 }, { a: 2 }])).toBe(
      '(list): expected 1 records, got 2',
    );
  });

  test("a tag's recipients compare as a set of normalised emails, each once", () => {
    const tag = (recipients: { name: string; email: string }[]) => [{ tagID: 't', recipients }];
    const a = comparable(
      'teams.tags',
      tag([
        { name: 'A', email: 'a@x.io' },
        { name: 'B', email: 'b@x.io' },
      ]),
    );
    const b = comparable(
      'teams.tags',
      tag([
        { name: 'B', email: ' B@X.io ' },
        { name: 'A', email: 'a@x.io' },
      ]),
    );
    expect(firstDifference(a, b)).toBeUndefined();
    const twice = comparable(
      'teams.tags',
      tag([
        { name: 'A', email: 'a@x.io' },
        { name: 'A', email: 'A@x.io' },
        { name: 'B', email: 'b@x.io' },
      ]),
    );
    expect(firstDifference(a, twice)).toMatch(/recipients/);
  });

  test('by-email drops contact ids; keep compares them', () => {
    const c = (id: string) => [{ contactID: id, email: 'A@x.io', name: 'A' }];
    expect(
      firstDifference(
        comparable('contacts.list', c('1'), 'by-email'),
        comparable('contacts.list', c('2'), 'by-email'),
      ),
    ).toBeUndefined();
    expect(
      firstDifference(comparable('contacts.list', c('1')), comparable('contacts.list', c('2'))),
    ).toMatch(/contactID/);
  });

  test('events of the same instant may come in any order; the date order still counts', () => {
    const e = (date: string, city: string) => ({ tagID: 't', openDate: date, city });
    const t1 = '2024-01-01T00:00:01Z';
    const t2 = '2024-01-01T00:00:02Z';
    const dateOf = (x: Record<string, unknown>) => x.openDate;
    expect(canonicalTies([e(t1, 'b'), e(t1, 'a'), e(t2, 'c')], dateOf)).toEqual(
      canonicalTies([e(t1, 'a'), e(t1, 'b'), e(t2, 'c')], dateOf),
    );
    // out of date order stays out of order
    expect(canonicalTies([e(t2, 'c'), e(t1, 'a')], dateOf)).toEqual([e(t2, 'c'), e(t1, 'a')]);
    const groups = (events: unknown[]) => [{ tagID: 't', opens: events }];
    const ev = (email: string, id: string) => ({
      recipient: { recipientID: id, name: 'n', email },
      details: { openDate: t1, city: 'x' },
    });
    expect(
      firstDifference(
        comparable('opens.list', groups([ev('a@x.io', '1'), ev('b@x.io', '2')]), 'by-email'),
        comparable('opens.list', groups([ev('B@x.io', 'q'), ev('a@x.io', 'p')]), 'by-email'),
      ),
    ).toBeUndefined();
  });

  test('text and html cells holding timestamps compare as instants', () => {
    const t = normaliseTable({ columns: ['d', 's'], rows: [['2024-03-05T14:22:01Z', 'x']] });
    const u = normaliseTable({ columns: ['d', 's'], rows: [['2024-03-05T14:22:01.000Z', 'x']] });
    expect(t).toEqual(u);
  });

  test('Link headers parse by relation type, any order, quoted or not', () => {
    expect(
      linksOf('<http://a/x?a=1&cursor=2>; rel="next", <http://a/x?cursor=0>; rel="prev"'),
    ).toEqual({
      next: 'http://a/x?a=1&cursor=2',
      prev: 'http://a/x?cursor=0',
    });
    expect(linksOf('<u>;title="a, b";rel=prev,<v>; rel="next last"')).toEqual({
      prev: 'u',
      next: 'v',
      last: 'v',
    });
    expect(linksOf(undefined)).toEqual({});
  });

  test('a media type is compared without its parameters, in any case', () => {
    expect(mediaType('Application/JSON; charset=UTF-8; v=2')).toBe('application/json');
    expect(mediaType('text/plain')).toBe('text/plain');
    expect(mediaType(undefined)).toBe('');
  });

  // small records: a field changed, dropped or added anywhere, lists of unequal length
  const arbRecord = fc.record(
    { id: fc.nat(5), d: fc.constantFrom('2024-03-05T14:22:01Z', '2024-03-05T14:22:01.000Z') },
    { requiredKeys: ['id'] },
  );
  fcTest.prop([fc.array(arbRecord, { maxLength: 30 }), fc.array(arbRecord, { maxLength: 30 })])(
    'firstDifferenceInSlices of two lists is firstDifference of them, words included',
    async (a, b) => {
      expect(await firstDifferenceInSlices(a, b)).toBe(firstDifference(a, b));
    },
  );

  test('comparableInSlices is comparable, record by record and for event lists whose ties span records', async () => {
    const tags = [
      {
        tagID: 't1',
        recipients: [
          { name: 'B', email: 'B@x.test' },
          { name: 'A', email: 'a@x.test' },
        ],
      },
      { tagID: 't2', recipients: [] },
    ];
    expect(await comparableInSlices('teams.tags', tags)).toEqual(comparable('teams.tags', tags));
    const events = [
      { openDate: '2024-03-05T14:22:01Z', device: 'b' },
      { openDate: '2024-03-05T14:22:01Z', device: 'a' },
    ];
    expect(await comparableInSlices('opens.tag', events)).toEqual(comparable('opens.tag', events));
  });

  // JSON-like values and a second value that is often alike: the same, with a timestamp
  // written another way, a field dropped, added or changed, an item more, or anything else
  const arbLeaf = fc.oneof(
    fc.constantFrom('2024-03-05T14:22:01Z', '2024-03-05T14:22:01.000Z', '2024-03-05T14:22:02Z'),
    fc.constantFrom('a', 'b', '', 0, 1, null, true),
  );
  const arbKey = fc.constantFrom('', 'id', 'd', 'toString', 'x');
  const { json: arbJson } = fc.letrec((tie) => ({
    json: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      arbLeaf,
      fc.array(tie('json'), { maxLength: 4 }),
      fc.dictionary(arbKey, tie('json'), { maxKeys: 4 }),
    ),
  }));
  const retimed = (v: unknown): unknown =>
    v === '2024-03-05T14:22:01Z'
      ? '2024-03-05T14:22:01.000Z'
      : Array.isArray(v)
        ? v.map(retimed)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, retimed(x)]))
          : v;
  const arbPair = arbJson.chain((a) =>
    fc.tuple(
      fc.constant(a),
      fc.oneof(
        fc.constant(structuredClone(a)),
        fc.constant(retimed(a)),
        arbJson,
        fc.constant(
          Array.isArray(a) ? [...a, 1] : typeof a === 'object' && a !== null ? { ...a, x: 1 } : a,
        ),
        fc.constant(
          typeof a === 'object' && a !== null && !Array.isArray(a)
            ? Object.fromEntries(Object.entries(a).slice(1))
            : a,
        ),
      ),
    ),
  );
  /** The result of `f` and the comparisons it counted in a scope of its own. */
  const counted = <T>(f: () => T): [T, number] => {
    const scope: CheckScope = { comparisons: 0, log: [] };
    const out = inScope(scope, f);
    return [out, scope.comparisons];
  };
  fcTest.prop([arbPair], { numRuns: 500 })(
    'differenceEitherWay(a, b) is firstDifference(a, b) ?? firstDifference(b, a), words and comparisons counted included',
    ([a, b]) => {
      expect(counted(() => differenceEitherWay(a, b))).toEqual(
        counted(() => firstDifference(a, b) ?? firstDifference(b, a)),
      );
    },
  );

  test('comparableData is comparable of the records (a single record as a list of one), computed once per frozen answer and endpoint', () => {
    const tags = Object.freeze([
      Object.freeze({
        tagID: 't1',
        recipients: Object.freeze([
          Object.freeze({ name: 'B', email: 'B@x.test' }),
          Object.freeze({ name: 'A', email: 'a@x.test' }),
        ]),
      }),
    ]);
    const once = comparableData('teams.tags', tags);
    expect(once).toEqual(comparable('teams.tags', tags));
    expect(comparableData('teams.tags', tags)).toBe(once);
    // another endpoint's form of the same data is its own
    expect(comparableData('teams.memberTags', tags)).toEqual(once);
    expect(comparableData('teams.memberTags', tags)).not.toBe(once);
    const contact = Object.freeze({ contactID: 'c', email: 'A@X.test', name: 'A' });
    expect(comparableData('contacts.get', contact)).toEqual(comparable('contacts.get', [contact]));
    expect(comparableData('contacts.get', contact)).toBe(comparableData('contacts.get', contact));
    // data that may still change is put in form at every call
    const open = [{ tagID: 't', recipients: [] }];
    expect(comparableData('teams.tags', open)).toEqual(comparable('teams.tags', open));
    expect(comparableData('teams.tags', open)).not.toBe(comparableData('teams.tags', open));
    expect(comparableData('teams.tags', undefined)).toEqual([undefined]);
  });

  test('bodyTable is the normalised table of a text or html body, parsed once per body and read-only; a body that does not parse throws the parser error', () => {
    const table = {
      columns: ['tagID', 'openDate'],
      rows: [
        ['t1', '2024-03-05T14:22:01Z'],
        ['t2', 'x\ty'],
      ],
    };
    for (const [rtn, body, parse] of [
      ['text', renderText(table), parseText],
      ['html', renderHtml(table, 'opens'), parseHtml],
    ] as const) {
      const once = bodyTable(rtn, body);
      expect(once).toEqual(normaliseTable(parse(body)));
      expect(once.rows[0]![1]).toBe('2024-03-05T14:22:01.000Z');
      expect(bodyTable(rtn, body)).toBe(once);
      expect(Object.isFrozen(once.rows) && Object.isFrozen(once.rows[0])).toBe(true);
    }
    expect(() => bodyTable('html', '<p>no table</p>')).toThrow(FormatParseError);
  });

  test('tableHeapBytes counts what a kept table holds: at least 0.8 and at most 4.5 times the heap 20 page tables of each format take, body included', async () => {
    // in a process of its own with --expose-gc: the heap is measured after full collections
    const module = fileURLToPath(new URL('../src/check/compare.ts', import.meta.url));
    const script = `
      const { normaliseTable, tableHeapBytes } = await import(${JSON.stringify(module)});
      const { parseHtml, parseText, renderHtml, renderText } = await import('@tagtrack/core');
      const out = {};
      for (const rtn of ['text', 'html']) {
        // pages as the reference server renders them: 250 events of ids, emails and timestamps
        const page = (p) => {
          const table = {
            columns: ['tagID', 'email', 'name', 'openDate'],
            rows: Array.from({ length: 250 }, (_, i) => [
              't' + p + '-' + i, 'recipient' + (p * 1000 + i) + '@example.com', 'Name ' + i,
              '2024-03-' + String(1 + (i % 28)).padStart(2, '0') + 'T14:22:' + String(i % 60).padStart(2, '0') + 'Z',
            ]),
          };
          return rtn === 'text' ? renderText(table) : renderHtml(table, 'page ' + p);
        };
        // parsed once first, so the parser's code and caches are not counted
        normaliseTable(rtn === 'text' ? parseText(page(99)) : parseHtml(page(99)));
        globalThis.gc();
        const before = process.memoryUsage().heapUsed;
        const kept = Array.from({ length: 20 }, (_, p) => {
          const body = page(p);
          return { body, table: normaliseTable(rtn === 'text' ? parseText(body) : parseHtml(body)) };
        });
        globalThis.gc();
        const held = process.memoryUsage().heapUsed - before;
        out[rtn] = { held, counted: kept.reduce((n, k) => n + tableHeapBytes(k.table, k.body), 0), n: kept.length };
      }
      console.log(JSON.stringify(out));
    `;
    const measured =
      await inOwnProcess<Record<string, { held: number; counted: number; n: number }>>(script);
    for (const rtn of ['text', 'html']) {
      const { held, counted, n } = measured[rtn]!;
      expect(n).toBe(20);
      expect(counted, rtn).toBeGreaterThan(held * 0.8);
      // an over-count only keeps fewer tables: html's cells cost less than the estimate (measured 1.4 to 2.9 times; text 1.0)
      expect(counted, rtn).toBeLessThan(held * 4.5);
    }
  }, 60_000);

  test('bodyTableInSlices is bodyTable: the same table, from the same cache, and the same parser error', async () => {
    const table = {
      columns: ['tagID', 'openDate'],
      rows: Array.from({ length: 300 }, (_, i) => [`t${i}`, '2024-03-05T14:22:01Z']),
    };
    for (const [rtn, body] of [
      ['text', renderText(table)],
      ['html', renderHtml(table, 'sliced')],
    ] as const) {
      const sliced = await bodyTableInSlices(rtn, body);
      expect(sliced).toEqual(normaliseTable(rtn === 'text' ? parseText(body) : parseHtml(body)));
      expect(bodyTable(rtn, body)).toBe(sliced);
      expect(await bodyTableInSlices(rtn, body)).toBe(sliced);
    }
    const broken = '<table><tr><td>1</td></tr></table>';
    await expect(bodyTableInSlices('html', broken)).rejects.toThrow(FormatParseError);
    await expect(bodyTableInSlices('html', broken)).rejects.toThrow(
      (() => {
        try {
          bodyTable('html', broken);
        } catch (e) {
          return (e as Error).message;
        }
        return 'parsed';
      })(),
    );
  });
});
