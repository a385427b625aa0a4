import type { Table } from './table.ts';

/** Options of {@link compareTables}. */
export interface CompareTablesOptions {
  /**
   * Compare the rows as a multiset instead of in order (for lists whose profile order leaves
   * ties free, e.g. events with the same timestamp; spec §5 Revision 2).
   */
  readonly unordered?: boolean;
}

/**
 * Compares two tables by meaning (spec §8 and its Revision 2): columns are identified by
 * their header names, in any order. A column of `expected` that `actual` lacks is accepted
 * when every one of its cells is empty (a field absent from every record may be an empty
 * column or no column); a column only `actual` has is ignored (records may carry extra
 * fields). Rows are compared in order, or as a multiset with `unordered`. Returns `undefined`
 * when equal, else a sentence naming the first difference (a missing column, the row count,
 * or the row and column of the first differing cell).
 */
export function compareTables(
  expected: Table,
  actual: Table,
  options: CompareTablesOptions = {},
): string | undefined {
  const duplicate = actual.columns.find((c, i) => actual.columns.indexOf(c) !== i);
  if (duplicate !== undefined) return `column '${duplicate}' appears twice in the header row`;
  const position = new Map(actual.columns.map((c, i) => [c, i]));
  const shared: { name: string; e: number; a: number }[] = [];
  for (let e = 0; e < expected.columns.length; e++) {
    const name = expected.columns[e]!;
    const a = position.get(name);
    if (a !== undefined) {
      shared.push({ name, e, a });
      continue;
    }
    const row = expected.rows.findIndex((r) => (r[e] ?? '') !== '');
    if (row >= 0) {
      return `column '${name}' is missing, but row ${row + 1} has a value for it (${JSON.stringify(expected.rows[row]![e])})`;
    }
  }
  if (expected.rows.length !== actual.rows.length) {
    return `row count differs: expected ${expected.rows.length}, got ${actual.rows.length}`;
  }
  const project = (row: readonly string[], side: 'e' | 'a') =>
    shared.map((c) => row[c[side]] ?? '');
  const want = expected.rows.map((r) => project(r, 'e'));
  const got = actual.rows.map((r) => project(r, 'a'));
  if (options.unordered) {
    const key = (r: readonly string[]) => JSON.stringify(r);
    const counts = new Map<string, number>();
    for (const r of want) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
    for (let i = 0; i < got.length; i++) {
      const k = key(got[i]!);
      const n = counts.get(k) ?? 0;
      if (n === 0) {
        return `row ${i + 1} (${describeRow(shared, got[i]!)}) matches no expected row`;
      }
      counts.set(k, n - 1);
    }
    return undefined;
  }
  for (let r = 0; r < want.length; r++) {
    for (let c = 0; c < shared.length; c++) {
      if (want[r]![c] !== got[r]![c]) {
        return `row ${r + 1}, column '${shared[c]!.name}': expected ${JSON.stringify(want[r]![c])}, got ${JSON.stringify(got[r]![c])}`;
      }
    }
  }
  return undefined;
}

function describeRow(columns: readonly { name: string }[], row: readonly string[]): string {
  const s = columns
    .slice(0, 4)
    .map((c, i) => `${c.name}=${JSON.stringify(row[i])}`)
    .join(', ');
  return columns.length > 4 ? `${s}, …` : s;
}
