import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { parseJson } from '../src/check/walk.ts';
import type { Exchange } from '../src/http/types.ts';

const run = promisify(execFile);

/** An exchange of `body` (what parseJson reads of it). */
const answer = (body: string) =>
  ({
    id: 1,
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
  const { stdout } = await run(
    process.execPath,
    [
      '--expose-gc',
      '--conditions=@tagtrack/source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  const mb = JSON.parse(stdout) as { plain: number; parsed: number };
  expect(mb.parsed).toBeLessThan(0.8 * mb.plain);
}, 60_000);
