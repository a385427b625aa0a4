import { fc, test as fcTest } from '@fast-check/vitest';
import type { Dataset } from '@tagtrack/core';
import { DatasetError } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import { datasetToTables, TABLES } from '@tagtrack/dataset';
import { CANONICAL_CREDENTIALS, canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../src/memory/build.ts';
import { JsonObjectStream, JsonStreamError } from '../src/memory/columnar/json-stream.ts';
import {
  columnarIndexOf,
  columnsOf,
  csvCell,
  loadDatasetJsonSync,
  TableFormatError,
  TablesLoader,
} from '../src/memory/columnar/load.ts';
import { expectCanonicalAnswers } from './indexes.ts';

const encoder = new TextEncoder();

/** Generous: the machine is shared, and the property tests parse hundreds of documents. */
const TIMEOUT = { timeout: 120_000 };

/** `text` as UTF-8 chunks of `size` bytes (cutting characters, strings and escapes). */
function chunksOf(text: string, size: number): Uint8Array[] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** What a {@link JsonObjectStream} reports: each key's elements, or its non-array value. */
function streamed(text: string, size: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const stream = new JsonObjectStream({
    // defineProperty: a key such as __proto__ is an own property, as JSON.parse makes it
    array: (key) => {
      Object.defineProperty(out, key, { value: [], enumerable: true, writable: true });
      return undefined;
    },
    elements: (key, values, first) => {
      const list = out[key] as unknown[];
      expect(first).toBe(list.length);
      list.push(...values);
    },
    value: (key, value) => {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true });
    },
  });
  for (const chunk of chunksOf(text, size)) stream.feed(chunk);
  stream.end();
  return out;
}

/** The problems `f` throws as a `DatasetError`. */
function problemsOf(f: () => unknown): readonly string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof DatasetError) return e.problems;
    throw e;
  }
  throw new Error('no DatasetError thrown');
}

function jsonLoad(dataset: unknown, size = 4096) {
  return loadDatasetJsonSync(chunksOf(JSON.stringify(dataset), size));
}

describe('JsonObjectStream', TIMEOUT, () => {
  fcTest.prop([
    fc.dictionary(
      fc.string({ unit: 'grapheme' }),
      fc.oneof(fc.array(fc.jsonValue({ maxDepth: 3 })), fc.jsonValue({ maxDepth: 2 })),
    ),
    fc.integer({ min: 1, max: 64 }),
    fc.boolean(),
  ])(
    'law: for any object, whitespace and chunking, the reported elements and values are JSON.parse of the document',
    (doc, size, pretty) => {
      const text = JSON.stringify(doc, null, pretty ? 2 : undefined);
      expect(streamed(text, size)).toEqual(JSON.parse(text));
    },
  );

  it('reads escapes and non-ASCII text cut anywhere', () => {
    const doc = { opens: [{ city: 'São Paulo "x" \\ \u2028 😀', n: [1, { a: '}' }] }, 'a\\"b'] };
    for (let size = 1; size < 12; size++) expect(streamed(JSON.stringify(doc), size)).toEqual(doc);
  });

  it.each([
    ['[1, 2]', /expected '\{' \(a JSON object\) at byte 0, got '\['/],
    ['{"opens": [1, 2', /unexpected end of the document at byte 15 \(in "opens"\)/],
    ['{"opens": [1,, 2]}', /expected an array element at byte 13, got ','/],
    ['{"opens": [1] "clicks": []}', /expected ',' or '}' at byte 14/],
    ['{"opens": [{"a": 1}, {"a": nope}]}', /opens\[1\]: not JSON/],
    ['{"opens": []} x', /unexpected data after the end of the document at byte 14/],
    ['{nope', /expected a key \(a JSON string\) at byte 1/],
  ])('refuses %j naming the byte or element', (text, message) => {
    expect(() => streamed(text, 5)).toThrow(JsonStreamError);
    expect(() => streamed(text, 5)).toThrow(message);
  });
});

describe('columnar loading of the dataset JSON', TIMEOUT, () => {
  it('names the record and field of a schema problem (opens[i].date, tags[i].recipients[j].email)', () => {
    const bad = structuredClone(canonicalDataset) as unknown as Record<
      'opens' | 'clicks' | 'tags',
      unknown[]
    >;
    (bad.opens[3] as Record<string, unknown>).date = '2024-13-01T00:00:00Z';
    (bad.clicks[1] as Record<string, unknown>).device = 'toaster';
    (bad.clicks[2] as Record<string, unknown>).latitude = '91';
    (bad.tags[2] as { recipients: Record<string, unknown>[] }).recipients[0]!.email = 7;
    bad.opens[5] = 'not an event' as never;
    const problems = problemsOf(() => jsonLoad(bad).index);
    expect(problems.some((p) => p.startsWith('opens[3].date: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('clicks[1].device: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('clicks[2].latitude: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('tags[2].recipients[0].email: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('opens[5]: '))).toBe(true);
    expect(problems).toHaveLength(5);
  });

  it('names missing, repeated and non-array top-level keys', () => {
    const { clicks: _clicks, ...rest } = canonicalDataset;
    expect(problemsOf(() => jsonLoad(rest))).toEqual(['clicks: missing (expected an array)']);
    expect(problemsOf(() => jsonLoad({ ...canonicalDataset, teams: 3 }))).toEqual([
      'teams: expected an array, got number',
    ]);
    const twice = `${JSON.stringify(canonicalDataset).slice(0, -1)},"tags":[]}`;
    expect(problemsOf(() => loadDatasetJsonSync(chunksOf(twice, 999)))).toEqual([
      'tags: the key appears twice',
    ]);
  });

  it('reports referential problems in the words of validateDataset', () => {
    const bad = structuredClone(canonicalDataset);
    bad.opens[0]!.tagID = 'nosuchtag';
    bad.clicks[0]!.email = 'stranger@example.com';
    const problems = problemsOf(() => jsonLoad(bad));
    expect(problems).toContain("open #0 refers to unknown tagID 'nosuchtag'");
    expect(
      problems.some((p) =>
        /^click #0 of tag '.*': email 'stranger@example.com' is not a recipient$/.test(p),
      ),
    ).toBe(true);
    expect(problemsOf(() => buildIndex(bad))).toEqual(expect.arrayContaining([...problems]));
  });

  it('keeps the dataset as written: events materialise with their fields, dates and emails', () => {
    const { index } = jsonLoad(canonicalDataset, 1000);
    expect(index.dataset.opens).toEqual(canonicalDataset.opens);
    expect(index.dataset.clicks).toEqual(canonicalDataset.clicks);
    expect(index.dataset.tags).toEqual(canonicalDataset.tags);
    expect(index.dataset.teams).toEqual(canonicalDataset.teams);
  });

  it('tells apart strings the bytes cannot: a lone surrogate (an escape) and U+FFFD, escaped and plain spellings', () => {
    const d = structuredClone(canonicalDataset);
    const tag = d.tags[0]!;
    const lone = 'x\ud800@example.com';
    tag.recipients.push(
      { name: 'Lone', email: lone },
      { name: 'Replaced', email: 'x\ufffd@example.com' },
    );
    d.opens.push({ ...d.opens.find((o) => o.tagID === tag.tagID)!, email: lone });
    // the same recipient name written plain and escaped (`\u0041` is `A`) is one value
    const text = JSON.stringify(d).replace('"name":"Lone"', '"name":"\\u004cone"');
    const { index } = loadDatasetJsonSync(chunksOf(text, 97));
    const got = index.dataset.tags[0]!.recipients.slice(-2);
    expect(got).toEqual([
      { name: 'Lone', email: lone },
      { name: 'Replaced', email: 'x\ufffd@example.com' },
    ]);
    expect(index.dataset.opens.at(-1)!.email).toBe(lone);
    const ref = buildIndex(d);
    const caller = ref.callerOf(CANONICAL_CREDENTIALS[0]!.memberID)!;
    expect(index.contacts(caller)).toEqual(ref.contacts(caller));
  });

  it('reads a repeated event tail once, and only as the same bytes ending at the same brace (a `}` inside a string is not the end)', () => {
    const d = structuredClone(canonicalDataset);
    // the tail: what follows tagID, email and date when they come first (as tagtrack writes)
    const { tagID, email, date, ...tail } = d.opens[0]!;
    const base = { tagID, email, date, ...tail };
    // the bytes of these tails agree up to the first `}`, inside `city`; they differ after it
    const cities = ['Zü}rich', 'Zü}rich 2', 'Zü}rich', 'Zü}', 'Zü}rich 2', 'Zü}rich", "x'];
    for (const city of cities) d.opens.push({ ...base, city });
    // and tails that repeat, compact and with whitespace
    for (let k = 0; k < 6; k++) d.opens.push({ ...base, browser: k % 2 ? 'a\\"b' : 'c' });
    for (const text of [JSON.stringify(d), JSON.stringify(d, null, 2)]) {
      for (const size of [7, 64, 1 << 16]) {
        const { index } = loadDatasetJsonSync(chunksOf(text, size));
        expect(index.dataset.opens).toEqual(d.opens);
      }
    }
  });

  it('loads events whose tails are all distinct (the tail memo pauses) as written', () => {
    const d = structuredClone(canonicalDataset);
    const { tagID, email, date, ...tail } = d.opens[0]!;
    const base = { tagID, email, date, ...tail };
    for (let k = 0; k < 40_000; k++) d.opens.push({ ...base, city: `city ${k % 30_000}` });
    const { index } = jsonLoad(d, 1 << 16);
    expect(index.dataset.opens).toEqual(d.opens);
  });

  it('finds the recipient entry of events on a tag of more than 32 recipients, spelled otherwise and repeated', () => {
    const d = structuredClone(canonicalDataset);
    const tag = d.tags[0]!;
    const extra = Array.from({ length: 40 }, (_, k) => ({
      name: `R${k}`,
      // every fifth repeats an earlier one, spelled otherwise
      email: k % 5 === 4 ? ` R${k - 1}@Example.com ` : `r${k}@example.com`,
    }));
    tag.recipients.push(...extra);
    const open = d.opens.find((o) => o.tagID === tag.tagID)!;
    for (let k = 0; k < 40; k += 3) {
      const n = k % 5 === 4 ? k - 1 : k;
      d.opens.push({ ...open, email: k % 2 ? `R${n}@EXAMPLE.com` : `r${n}@example.com` });
    }
    const { index } = jsonLoad(d);
    const ref = buildIndex(d);
    for (const cred of CANONICAL_CREDENTIALS) {
      const caller = ref.callerOf(cred.memberID)!;
      expect(index.contacts(caller)).toEqual(ref.contacts(caller));
      expect(index.openGroups(caller, {})).toEqual(ref.openGroups(caller, {}));
    }
  });

  it('keeps non-canonical dates (fractions of seconds) as written and answers with them canonical', () => {
    const d = structuredClone(canonicalDataset);
    const raw = `${d.opens[0]!.date.slice(0, 19)}.250Z`;
    d.opens[0]!.date = raw;
    const { index } = jsonLoad(d);
    expect(index.dataset.opens[0]!.date).toBe(raw);
    const ref = buildIndex(d);
    const caller = ref.callerOf(CANONICAL_CREDENTIALS[0]!.memberID)!;
    expect(index.openGroups(caller, {})).toEqual(ref.openGroups(caller, {}));
  });
});

/** The per-table form of `dataset` as NDJSON text per table, rows in `order` per event table. */
function ndjsonTables(dataset: Dataset, shuffle?: (n: number) => number[]): Record<string, string> {
  const tables = datasetToTables(dataset) as unknown as Record<string, object[]>;
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    let rows = tables[t.name]!;
    if (shuffle && (t.name === 'opens' || t.name === 'clicks')) {
      rows = shuffle(rows.length).map((i) => rows[i]!);
    }
    out[t.name] = rows.map((r) => `${JSON.stringify(r)}\n`).join('');
  }
  return out;
}

async function loadNdjson(files: Record<string, string>, size = 777) {
  const loader = new TablesLoader();
  for (const t of TABLES) {
    if (files[t.name] !== undefined) await loader.addNdjson(t.name, chunksOf(files[t.name]!, size));
  }
  return loader;
}

describe('columnar loading of the per-table form (fixture --format ndjson|csv)', TIMEOUT, () => {
  fcTest.prop([arbDataset, fc.integer({ min: 1, max: 2048 }), fc.boolean()], { numRuns: 60 })(
    'law: loading datasetToTables(d) as NDJSON, events in any position order, gives d back',
    async (dataset, size, reversed) => {
      const shuffle = reversed
        ? (n: number) => Array.from({ length: n }, (_, i) => n - 1 - i)
        : undefined;
      const { index } = (await loadNdjson(ndjsonTables(dataset, shuffle), size)).finish();
      expect(index.dataset.opens).toEqual(dataset.opens);
      expect(index.dataset.clicks).toEqual(dataset.clicks);
      expect(index.dataset.tags).toEqual(dataset.tags);
      expect(index.dataset.teams).toEqual(dataset.teams);
      expect(index.dataset.credentials).toEqual(dataset.credentials);
    },
  );

  it('answers every endpoint as buildIndex does on the canonical dataset', async () => {
    const { index } = (await loadNdjson(ndjsonTables(canonicalDataset))).finish();
    const ref = buildIndex(canonicalDataset);
    expectCanonicalAnswers(index, ref);
  });

  it('names the table, row and field of a bad row, and refuses repeated positions', async () => {
    const files = ndjsonTables(canonicalDataset);
    const opens = files.opens!.split('\n');
    opens[2] = opens[2]!.replace(/"date":"[^"]*"/, '"date":"yesterday"');
    opens[4] = opens[4]!.replace(/"position":4/, '"position":3');
    const members = files.members!.split('\n');
    members[1] = members[1]!.replace(/"teamID":"[^"]*"/, '"teamID":"t9"');
    const loader = await loadNdjson({
      ...files,
      opens: opens.join('\n'),
      members: members.join('\n'),
    });
    const problems = problemsOf(() => loader.finish());
    expect(problems).toContain('members[1].teamID: no team "t9"');
    expect(problems.some((p) => p.startsWith('opens[2].date: '))).toBe(true);
    expect(problems).toContain('opens[4].position: position 3 repeated');
  });

  it('reads event rows from their bytes or, otherwise written, as parsed rows: the same dataset, the same errors', async () => {
    const files = ndjsonTables(canonicalDataset);
    const lines = files.opens!.trimEnd().split('\n');
    const odd = lines.map((l, i) =>
      i === 1
        ? l.replace(/"position":1/, '"position":1.0') // a number written otherwise
        : i === 2
          ? `  ${l.replaceAll('":', '" : ')}\r` // spaces and a CRLF line end
          : i === 3
            ? `${l.slice(0, -1)},"extra":true}` // an unknown field (stripped by the schema)
            : l,
    );
    // blank lines and a last line without a newline
    const text = `\n${odd.slice(0, 4).join('\n')}\n\n${odd.slice(4).join('\n')}`;
    for (const size of [5, 97, 1 << 16]) {
      const { index } = (await loadNdjson({ ...files, opens: text }, size)).finish();
      expect(index.dataset.opens).toEqual(canonicalDataset.opens);
    }
    const bad = lines.map((l, i) =>
      i === 1 ? l.replace(/"position":1/, '"position":"1"') : i === 2 ? `${l} {}` : l,
    );
    const withString = await loadNdjson({
      ...files,
      opens: [bad[0], bad[1], ...lines.slice(2)].join('\n'),
    });
    const problems = problemsOf(() => withString.finish());
    expect(problems.some((p) => p.startsWith('opens[1].position: '))).toBe(true);
    await expect(loadNdjson({ ...files, opens: bad.join('\n') })).rejects.toThrow(
      /opens\.ndjson line 3: not JSON/,
    );
  });

  it('refuses a line that is not JSON and a missing table', async () => {
    const files = ndjsonTables(canonicalDataset);
    await expect(loadNdjson({ ...files, tags: `${files.tags}{oops\n` })).rejects.toThrow(
      new RegExp(`tags\\.ndjson line ${canonicalDataset.tags.length + 1}: not JSON`),
    );
    const { groups: _groups, ...rest } = files;
    const loader = await loadNdjson(rest);
    expect(() => loader.finish()).toThrow(TableFormatError);
    expect(() => loader.finish()).toThrow('missing tables: groups');
  });

  it('csvCell: positions as numbers, an unquoted empty nullable field as null, "" as ""', () => {
    const members = columnsOf('members');
    const opens = columnsOf('opens');
    expect(csvCell(opens.get('position')!, '12', false)).toBe(12);
    expect(csvCell(opens.get('position')!, '1x', false)).toBe('1x');
    expect(csvCell(members.get('groupID')!, '', false)).toBeNull();
    expect(csvCell(members.get('groupID')!, '', true)).toBe('');
    expect(csvCell(members.get('firstname')!, '', false)).toBe('');
  });
});

describe('columnarIndexOf', TIMEOUT, () => {
  it('indexes a dataset in memory as the JSON loader does', () => {
    const a = columnarIndexOf(canonicalDataset).index;
    const b = jsonLoad(canonicalDataset).index;
    const caller = a.callerOf(CANONICAL_CREDENTIALS[0]!.memberID)!;
    expect(a.contacts(caller)).toEqual(b.contacts(caller));
    expect(a.tags(caller, {})).toEqual(buildIndex(canonicalDataset).tags(caller, {}));
  });
});
