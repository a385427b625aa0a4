import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { RunGuard, RunStopped } from '../src/run/guard.ts';

const run = promisify(execFile);

test('a stop ends a request in flight whose transport never answers, and a later request is refused', async () => {
  const guard = new RunGuard({});
  const fetch = guard.fetch(() => new Promise<Response>(() => {}));
  const inFlight = fetch(new Request('http://x.test/teams'));
  guard.stop('SIGTERM');
  await expect(inFlight).rejects.toBeInstanceOf(RunStopped);
  await expect(inFlight).rejects.toThrow('interrupted: SIGTERM');
  await expect(fetch(new Request('http://x.test/teams'))).rejects.toBeInstanceOf(RunStopped);
});

test('the guarded transport holds no answer once it is handed on: 200 answers of 800 KB leave the heap as it was', async () => {
  // in a process of its own with --expose-gc: the heap is measured after a full collection
  const module = fileURLToPath(new URL('../src/run/guard.ts', import.meta.url));
  const script = `
    const { RunGuard } = await import(${JSON.stringify(module)});
    const guard = new RunGuard({});
    const fetch = guard.fetch(async () => ({ body: new Float64Array(100_000) }));
    globalThis.gc();
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 200; i++) await fetch({});
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      globalThis.gc();
    }
    const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    console.log(JSON.stringify({ mb: (after - before) / 1048576 }));
  `;
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  const { mb } = JSON.parse(stdout) as { mb: number };
  expect(mb).toBeLessThan(20);
}, 60_000);

test('any number of requests in flight add no listener to an AbortSignal: no MaxListenersExceededWarning, and a stop still ends each of them', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const guard = new RunGuard({});
    const answers: ((r: Response) => void)[] = [];
    const fetch = guard.fetch(() => new Promise<Response>((resolve) => answers.push(resolve)));
    // 40 answered, then 40 left in flight when the run stops
    const answered = Array.from({ length: 40 }, () => fetch(new Request('http://x.test/teams')));
    await new Promise((r) => setTimeout(r, 0));
    for (const answer of answers.splice(0)) answer(new Response('{}'));
    await Promise.all(answered);
    const pending = Array.from({ length: 40 }, () => fetch(new Request('http://x.test/teams')));
    await new Promise((r) => setTimeout(r, 0));
    guard.stop('SIGINT');
    const settled = await Promise.allSettled(pending);
    expect(settled.every((s) => s.status === 'rejected' && s.reason instanceof RunStopped)).toBe(
      true,
    );
    // a warning is emitted on the next turn
    await new Promise((r) => setTimeout(r, 10));
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
  }
});
