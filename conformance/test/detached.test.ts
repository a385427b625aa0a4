import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { detached } from '../src/http/detached.ts';

const run = promisify(execFile);

test('a detached copy has the same text, whole or cut, any characters', () => {
  for (const s of ['', 'a', '{"data":[]}', 'é✓ 𝄞 text', 'x'.repeat(100_000)]) {
    expect(detached(s)).toBe(s);
    expect(detached(s.slice(0, 7))).toBe(s.slice(0, 7).replace(/[\uD800-\uDFFF]$/, '\uFFFD'));
  }
});

test('16 KB kept of each of 200 bodies of 200 KB keeps about 3 MB alive, where slices keep every body (40 MB)', async () => {
  // in a process of its own with --expose-gc: the heap is measured after a full collection
  const module = fileURLToPath(new URL('../src/http/detached.ts', import.meta.url));
  const script = `
    const { detached } = await import(${JSON.stringify(module)});
    const body = (i) => JSON.stringify(Array.from({ length: 3000 }, (_, j) => ({ a: 'x'.repeat(50) + i, b: j })));
    const held = (keep) => {
      const kept = [];
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 200; i++) kept.push(keep(body(i).slice(0, 16384)));
      globalThis.gc();
      const after = process.memoryUsage().heapUsed;
      return kept.length > 0 ? (after - before) / 1048576 : 0;
    };
    console.log(JSON.stringify({ slices: held((s) => s), copies: held(detached) }));
  `;
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  const mb = JSON.parse(stdout) as { slices: number; copies: number };
  expect(mb.slices).toBeGreaterThan(30);
  expect(mb.copies).toBeLessThan(10);
}, 60_000);
