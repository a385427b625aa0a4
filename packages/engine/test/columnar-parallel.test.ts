import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test as fcTest } from '@fast-check/vitest';
import type { Dataset } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import { generateDataset, scaleForEvents } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDatasetJsonFile } from '../src/memory/columnar/parallel.ts';

const dir = mkdtempSync(join(tmpdir(), 'tagtrack-parallel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** `text` written to a new file of the temp dir. */
function fileOf(text: string): string {
  const path = join(dir, `d${files++}.json`);
  writeFileSync(path, text);
  return path;
}

/** The dataset and answers of a load, as plain data. */
async function load(path: string, options: Parameters<typeof loadDatasetJsonFile>[1]) {
  const source = await loadDatasetJsonFile(path, options);
  const { index } = source.finish();
  return { dataset: JSON.parse(JSON.stringify(index.dataset)) as Dataset, index, source };
}

describe('loadDatasetJsonFile: events read on two threads', { timeout: 120_000 }, () => {
  fcTest.prop([arbDataset, fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 2)], {
    numRuns: 40,
  })(
    'law: wherever the split falls (and whitespace), the two-thread load equals the one-thread load',
    async (d, split, indent) => {
      const path = fileOf(JSON.stringify(d, null, indent));
      const one = await load(path, { parallel: false });
      const two = await load(path, { parallel: 'in-process', minBytes: 0, split });
      expect(two.dataset).toEqual(one.dataset);
      expect(two.dataset).toEqual(JSON.parse(JSON.stringify(d)));
    },
  );

  it('takes most events from the worker on a generated dataset, and answers as one thread does', async () => {
    const d = generateDataset({ seed: 3, scale: scaleForEvents(20_000) });
    const path = fileOf(JSON.stringify(d));
    const one = await load(path, { parallel: false });
    const two = await load(path, { parallel: 'in-process', minBytes: 0 });
    expect(two.source.workerEvents).toBeGreaterThan((d.opens.length + d.clicks.length) / 3);
    expect(two.dataset).toEqual(one.dataset);
    const admin = d.teams[0]!.members.find((m) => m.accountType === 'admin')!;
    const a = one.index.callerOf(admin.memberID)!;
    const b = two.index.callerOf(admin.memberID)!;
    expect(two.index.contacts(b)).toEqual(one.index.contacts(a));
    expect(two.index.stats(b, { subject: { kind: 'team' } })).toEqual(
      one.index.stats(a, { subject: { kind: 'team' } }),
    );
  });

  it('ignores a guessed start that is not an element: `},{` inside a string', async () => {
    const d = structuredClone(canonicalDataset);
    d.tags[0]!.subject = `x},{${'y'.repeat(64)}`;
    const text = JSON.stringify(d);
    const path = fileOf(text);
    const at = text.indexOf('},{y');
    const one = await load(path, { parallel: false });
    const two = await load(path, { parallel: 'in-process', minBytes: 0, split: at / text.length });
    expect(two.source.workerEvents).toBe(0);
    expect(two.dataset).toEqual(one.dataset);
  });

  it('names the same bad record as one thread when the worker stops before it', async () => {
    const d = generateDataset({ seed: 5, scale: scaleForEvents(5_000) });
    const bad = d.opens.length - 3;
    (d.opens[bad] as { date: string }).date = '2024-02-30T00:00:00Z';
    const path = fileOf(JSON.stringify(d));
    const problems = async (parallel: 'in-process' | false) => {
      const source = await loadDatasetJsonFile(path, { parallel, minBytes: 0 });
      try {
        source.finish();
      } catch (e) {
        return (e as { problems: string[] }).problems;
      }
      return [];
    };
    const one = await problems(false);
    expect(one.some((p) => p.startsWith(`opens[${bad}].date`))).toBe(true);
    expect(await problems('in-process')).toEqual(one);
  });

  it('reads on a worker thread when one can start (else on this one), with the same result', async () => {
    const d = generateDataset({ seed: 7, scale: scaleForEvents(5_000) });
    const path = fileOf(JSON.stringify(d));
    const one = await load(path, { parallel: false });
    const two = await load(path, { parallel: 'auto', minBytes: 0 });
    expect(two.dataset).toEqual(one.dataset);
    // vitest runs this file through its own loader: the worker still starts (through tsx)
    expect(two.source.workerEvents).toBeGreaterThan(0);
  });
});
