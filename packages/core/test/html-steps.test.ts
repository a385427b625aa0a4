import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  HTML_CHUNK_CHARS,
  htmlDocumentProblemsSteps,
  parseHtmlSteps,
  renderHtml,
  type Table,
} from '../src/formats.ts';
import { runAtOnce, runInSlices, type Steps, TimeSlice } from '../src/slices.ts';

/*
 * An HTML body parsed in chunks (parse5's tokenizer fed a chunk at a time, a yield after
 * each) reads as the body parsed whole: one chunk of the whole body is exactly parse5's
 * `parse`. Order of events is asserted, never wall time.
 */

/** Pieces that a chunk boundary may cut: tags, entities, CR LF, a surrogate pair, a comment. */
const piece = fc.constantFrom(
  '<td>',
  '</td>',
  '<tr>',
  '</tr>',
  '<th>',
  '&amp;',
  '&#13;',
  '&eacute',
  '&notit;',
  '\r\n',
  '\r',
  '😀',
  '<!-- c -->',
  '<b>x</b>',
  'é',
  '<',
  '>',
  ' ',
  'text',
  '</table>',
);

/** Bodies: rendered tables, then cut and spliced with the pieces above (so also broken ones). */
const arbBody = fc
  .record({
    columns: fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 }),
    rows: fc.array(fc.array(fc.string({ maxLength: 6 }), { minLength: 4, maxLength: 4 }), {
      maxLength: 6,
    }),
    inserts: fc.array(fc.tuple(fc.nat(), fc.array(piece, { maxLength: 3 })), { maxLength: 4 }),
  })
  .map(({ columns, rows, inserts }) => {
    const table: Table = {
      columns,
      rows: rows.map((r) => r.slice(0, columns.length).map((c) => c.replace(/\0/g, ''))),
    };
    let html = renderHtml(table, 't');
    for (const [at, parts] of inserts) {
      const i = at % (html.length + 1);
      html = html.slice(0, i) + parts.join('') + html.slice(i);
    }
    return html;
  });

/** The value of `steps`, or the error it throws, as one comparable value. */
function outcome<T>(steps: Steps<T>): { value: T } | { error: string } {
  try {
    return { value: runAtOnce(steps) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

/** How many times `steps` yields before it ends (or throws). */
function yields(steps: Steps<unknown>): number {
  let n = 0;
  try {
    while (!steps.next().done) n++;
  } catch {
    // counted up to the throw
  }
  return n;
}

/** A table of `rows` rows of three cells, as the reference server renders it. */
function bigTable(rows: number): Table {
  return {
    columns: ['openDate', 'email', 'city'],
    rows: Array.from({ length: rows }, (_, i) => [
      `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
      `person${i}@example.org`,
      'San Francisco',
    ]),
  };
}

describe('html bodies parsed in chunks', () => {
  fcTest.prop([arbBody, fc.integer({ min: 1, max: 40 })])(
    'parseHtmlSteps in chunks of any size gives the table (or error) of the body parsed whole',
    (html, chunk) => {
      expect(outcome(parseHtmlSteps(html, chunk))).toEqual(
        outcome(parseHtmlSteps(html, html.length + 1)),
      );
    },
  );

  fcTest.prop([arbBody, fc.integer({ min: 1, max: 40 }), fc.boolean()])(
    'htmlDocumentProblemsSteps in chunks of any size gives the problems of the body parsed whole',
    (html, chunk, declared) => {
      const contentType = declared ? 'text/html; charset=utf-8' : 'text/html';
      expect(outcome(htmlDocumentProblemsSteps(html, contentType, chunk))).toEqual(
        outcome(htmlDocumentProblemsSteps(html, contentType, html.length + 1)),
      );
    },
  );

  it('a long body yields after every chunk and every row, the default chunk included', () => {
    const table = bigTable(400);
    const html = renderHtml(table, 'opens');
    const chunks = Math.ceil(html.length / HTML_CHUNK_CHARS);
    expect(chunks).toBeGreaterThan(3);
    expect(yields(parseHtmlSteps(html))).toBe(chunks + table.rows.length);
    expect(yields(htmlDocumentProblemsSteps(html, 'text/html; charset=utf-8'))).toBe(chunks);
    expect(runAtOnce(parseHtmlSteps(html))).toEqual(table);
  });

  it('run in slices, a long body lets a timer set before it fire before the table is read', async () => {
    const html = renderHtml(bigTable(400), 'opens');
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    const slice = new TimeSlice({ budgetMs: 0, stride: 1 });
    const table = await runInSlices(parseHtmlSteps(html), slice);
    order.push('parsed');
    expect(order).toEqual(['timer', 'parsed']);
    expect(table.rows).toHaveLength(400);
    expect(slice.pauses).toBeGreaterThan(Math.ceil(html.length / HTML_CHUNK_CHARS));
  });
});
