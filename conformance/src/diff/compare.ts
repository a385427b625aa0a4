import { isDeepStrictEqual } from 'node:util';
import { type Endpoint, matchEndpoint, type Table, tableColumns } from '@tagtrack/core';
import type { FailureKind } from '../check/failure.ts';
import { type Observation, tieOrderColumns } from './observe.ts';

/** One difference between the two sides' answers to the same request, in domain words. */
export interface Difference {
  readonly kind: FailureKind;
  /** E.g. `tag 123 stats.uniqueOpens: 4 on A, 5 on B`. */
  readonly message: string;
}

/** Options of {@link differences}. */
export interface CompareOptions {
  /** Compare error messages word for word (their wording is free; default false). */
  readonly compareMessages?: boolean | undefined;
  /** Differences listed per response before the rest are counted (default 10). */
  readonly maxPerResponse?: number | undefined;
}

const show = (v: unknown): string =>
  v === undefined ? 'absent' : typeof v === 'bigint' ? String(v) : JSON.stringify(v);

/**
 * Every difference between observation `a` (side A) and `b` (side B) of the same request to
 * `path`: status, what the status fixes of `Content-Type` (media type and charset on a 200,
 * media type on an error, nothing on a 204), `X-Total-Count`, `Link`, `paging` (cursors
 * exactly, URLs in compared form), the headers an error status fixes, the error body, and the records
 * (by column name; rows by their identity, e.g. `tag 123`; events with equal timestamps as a
 * set, spec §5 Revision 2). Empty when the two answers mean the same.
 */
export function differences(
  path: string,
  a: Observation,
  b: Observation,
  options: CompareOptions = {},
): Difference[] {
  const out: Difference[] = [];
  const add = (kind: FailureKind, message: string) => out.push({ kind, message });
  if (a.status !== b.status) add('status', `status: ${a.status} on A, ${b.status} on B`);
  // compared where the status fixes it (see Observation.contentType): never on a 204
  if (a.status === b.status && a.contentType !== b.contentType)
    add('header', `Content-Type: ${a.contentType || 'none'} on A, ${b.contentType || 'none'} on B`);
  if (a.xTotalCount !== b.xTotalCount)
    add('header', `X-Total-Count: ${show(a.xTotalCount)} on A, ${show(b.xTotalCount)} on B`);
  if (a.status === b.status)
    for (const [name, va] of Object.entries(a.errorHeaders)) {
      const vb = b.errorHeaders[name];
      if (va !== vb) add('header', `${name}: ${show(va)} on A, ${show(vb)} on B`);
    }
  for (const rel of new Set([...Object.keys(a.link), ...Object.keys(b.link)])) {
    if (a.link[rel] !== b.link[rel])
      add('url', `Link rel="${rel}": ${show(a.link[rel])} on A, ${show(b.link[rel])} on B`);
  }
  if (!isDeepStrictEqual(a.paging, b.paging)) {
    for (const d of objectDifferences('paging', a.paging, b.paging))
      add(d.startsWith('paging.cursors') ? 'value' : 'url', d);
  }
  if (a.unreadable !== b.unreadable)
    add('schema', `body: ${a.unreadable ?? 'readable'} on A, ${b.unreadable ?? 'readable'} on B`);
  if (a.error !== undefined || b.error !== undefined) {
    const ea = a.error ?? { statusCode: undefined, error: undefined, message: undefined };
    const eb = b.error ?? { statusCode: undefined, error: undefined, message: undefined };
    for (const field of [
      'statusCode',
      'error',
      ...(options.compareMessages ? ['message'] : []),
    ] as const) {
      const va = ea[field as keyof typeof ea];
      const vb = eb[field as keyof typeof eb];
      if (!isDeepStrictEqual(va, vb))
        add('format', `error ${field}: ${show(va)} on A, ${show(vb)} on B`);
    }
  }
  if (a.table !== undefined && b.table !== undefined) {
    const endpoint = matchEndpoint(path.split('?')[0]!)?.endpoint;
    for (const d of tableDifferences(endpoint, a.table, b.table)) out.push(d);
  } else if ((a.table === undefined) !== (b.table === undefined) && a.status === b.status) {
    add(
      'missing',
      `records: ${a.table ? 'present' : 'none'} on A, ${b.table ? 'present' : 'none'} on B`,
    );
  }
  const max = options.maxPerResponse ?? 10;
  if (out.length > max) {
    const rest = out.length - max;
    out.length = max;
    out.push({ kind: 'summary', message: `and ${rest} more difference(s) in this answer` });
  }
  return out;
}

/** `path.to.field: x on A, y on B` for every leaf where two JSON values differ. */
function objectDifferences(path: string, a: unknown, b: unknown): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  if (
    typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].flatMap((k) =>
      objectDifferences(`${path}.${k}`, ra[k], rb[k]),
    );
  }
  return [`${path}: ${show(a)} on A, ${show(b)} on B`];
}

/** How a row is named in a message: `tag 123`, `member 7`, `contact a@x.org`, `day 2024-01-02`. */
function rowName(table: Table, row: readonly string[], index: number): string {
  const cell = (c: string) => {
    const i = table.columns.indexOf(c);
    return i < 0 ? undefined : row[i];
  };
  const time = table.columns.find((c) => /(^|\.)(openDate|clickDate)$/.test(c));
  if (time !== undefined) {
    const tag = cell('tagID');
    return `event ${index + 1} (${tag === undefined ? '' : `tag ${tag}, `}${cell(time)})`;
  }
  for (const [column, noun] of [
    ['tagID', 'tag'],
    ['memberID', 'member'],
  ] as const) {
    const v = cell(column);
    if (v !== undefined && v !== '') return `${noun} ${v}`;
  }
  const contact = cell('contactID');
  if (contact !== undefined && contact !== '') return contact;
  const date = cell('date');
  if (date !== undefined) return date === '' ? 'the aggregate record' : `day ${date}`;
  return `row ${index + 1}`;
}

/** A column is comparable when both sides have it; a one-sided column must be all empty. */
function tableDifferences(endpoint: Endpoint | undefined, a: Table, b: Table): Difference[] {
  const out: Difference[] = [];
  // columns outside the endpoint's record schema are extra fields (free, spec §9)
  const known = endpoint === undefined ? undefined : new Set(tableColumns(endpoint));
  const keep = (t: Table): Table => {
    if (known === undefined) return t;
    const idx = t.columns.flatMap((c, i) => (known.has(c) ? [i] : []));
    return {
      columns: idx.map((i) => t.columns[i]!),
      rows: t.rows.map((r) => idx.map((i) => r[i] ?? '')),
    };
  };
  a = keep(a);
  b = keep(b);
  for (const [has, lacks, name] of [
    [a, b, 'A'],
    [b, a, 'B'],
  ] as const) {
    for (const [i, column] of has.columns.entries()) {
      if (lacks.columns.includes(column)) continue;
      const row = has.rows.findIndex((r) => (r[i] ?? '') !== '');
      if (row >= 0)
        out.push({
          kind: 'missing',
          message: `column ${column}: only on ${name} (${rowName(has, has.rows[row]!, row)} has ${JSON.stringify(has.rows[row]![i])})`,
        });
    }
  }
  const shared = a.columns.filter((c) => b.columns.includes(c));
  const project = (t: Table, row: readonly string[]) =>
    shared.map((c) => row[t.columns.indexOf(c)] ?? '');
  const ra = a.rows.map((r) => project(a, r));
  const rb = b.rows.map((r) => project(b, r));
  const view: Table = { columns: shared, rows: [] };
  const ties = endpoint === undefined ? undefined : tieOrderColumns(endpoint);
  if (ra.length !== rb.length)
    out.push({ kind: 'missing', message: `records: ${ra.length} on A, ${rb.length} on B` });
  if (ties?.every((c) => shared.includes(c))) {
    // events with the same timestamp may come in any order: compare the order keys in order
    // and the rows as a multiset
    const keyOf = (r: readonly string[]) => ties.map((c) => r[shared.indexOf(c)]).join(' at ');
    const first = ra.findIndex((r, i) => rb[i] !== undefined && keyOf(r) !== keyOf(rb[i]!));
    if (first >= 0)
      out.push({
        kind: 'order',
        message: `order: event ${first + 1} is ${keyOf(ra[first]!)} on A, ${keyOf(rb[first]!)} on B`,
      });
    const count = new Map<string, number>();
    for (const r of rb) count.set(JSON.stringify(r), (count.get(JSON.stringify(r)) ?? 0) + 1);
    for (const [i, r] of ra.entries()) {
      const k = JSON.stringify(r);
      const n = count.get(k) ?? 0;
      if (n > 0) count.set(k, n - 1);
      else
        out.push({
          kind: 'value',
          message: `${rowName(view, r, i)}: only on A (${describe(shared, r)})`,
        });
    }
    for (const [k, n] of count)
      for (let i = 0; i < n; i++) {
        const r = JSON.parse(k) as string[];
        out.push({
          kind: 'value',
          message: `${rowName(view, r, 0)}: only on B (${describe(shared, r)})`,
        });
      }
    return out;
  }
  const names = (rows: string[][]) => rows.map((r, i) => rowName(view, r, i));
  const na = names(ra);
  const nb = names(rb);
  const unique = new Set(na).size === na.length && new Set(nb).size === nb.length;
  if (unique && !isDeepStrictEqual(na, nb)) {
    const onlyA = na.filter((n) => !nb.includes(n));
    const onlyB = nb.filter((n) => !na.includes(n));
    for (const n of onlyA) out.push({ kind: 'extra', message: `${n}: only on A` });
    for (const n of onlyB) out.push({ kind: 'missing', message: `${n}: only on B` });
    const common = na.filter((n) => nb.includes(n));
    const orderB = nb.filter((n) => na.includes(n));
    if (!isDeepStrictEqual(common, orderB))
      out.push({
        kind: 'order',
        message: `order: ${common.slice(0, 3).join(', ')}… on A, ${orderB.slice(0, 3).join(', ')}… on B`,
      });
  }
  const pairs: [string[], string[], string][] = unique
    ? na.flatMap((n, i) => {
        const j = nb.indexOf(n);
        return j < 0 ? [] : [[ra[i]!, rb[j]!, n] as [string[], string[], string]];
      })
    : ra.flatMap((r, i) =>
        rb[i] === undefined ? [] : [[r, rb[i]!, na[i]!] as [string[], string[], string]],
      );
  for (const [x, y, name] of pairs) {
    for (const [c, column] of shared.entries()) {
      if (x[c] !== y[c])
        out.push({
          kind: /^stats\.|^total|^unique|Opens$|Clicks$/.test(column) ? 'counter' : 'value',
          message: `${name} ${column}: ${JSON.stringify(x[c])} on A, ${JSON.stringify(y[c])} on B`,
        });
    }
  }
  return out;
}

function describe(columns: readonly string[], row: readonly string[]): string {
  return columns
    .map((c, i) => `${c}=${row[i]}`)
    .filter((s) => !s.endsWith('='))
    .slice(0, 6)
    .join(', ');
}
