import { fc, test as fcTest } from '@fast-check/vitest';
import type { Dataset } from '@tagtrack/core';
import { DatasetError } from '@tagtrack/core';
import { arbDataset } from '@tagtrack/core/testing';
import { datasetToTables, TABLES, type TableName } from '@tagtrack/dataset';
import { canonicalDataset } from '@tagtrack/dataset/canonical';
import { describe, expect, it } from 'vitest';
import { ColumnarBuilder } from '../src/memory/columnar/builder.ts';
import { loadDatasetJson, TablesLoader } from '../src/memory/columnar/load.ts';
import {
  encodeSnapshot,
  isSnapshot,
  parseSnapshot,
  SNAPSHOT_VERSION,
  SnapshotError,
  type SnapshotParts,
} from '../src/memory/columnar/snapshot.ts';
import { expectCanonicalAnswers } from './indexes.ts';

const TIMEOUT = { timeout: 120_000 };
const encoder = new TextEncoder();

/** The dataset's JSON loaded and finished; its builder (a `ColumnarSource`). */
async function loaded(dataset: unknown) {
  const source = await loadDatasetJson([encoder.encode(JSON.stringify(dataset))]);
  const finished = source.finish();
  return { source, finished };
}

/** One buffer of a snapshot's chunks. */
function bytesOf(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** `dataset` through a snapshot: loaded, finished, encoded, parsed, restored, finished. */
async function roundTrip(dataset: unknown) {
  const { source } = await loaded(dataset);
  const bytes = bytesOf(encodeSnapshot(source.snapshotParts()));
  return { bytes, index: ColumnarBuilder.fromSnapshot(parseSnapshot(bytes)).finish().index };
}

/** The outcome of finishing a snapshot's bytes: the error's class, or 'loaded'. */
function outcomeOf(bytes: Uint8Array): string {
  try {
    ColumnarBuilder.fromSnapshot(parseSnapshot(bytes)).finish();
    return 'loaded';
  } catch (e) {
    if (e instanceof SnapshotError || e instanceof DatasetError) return e.name;
    throw e;
  }
}

describe('columnar snapshot', TIMEOUT, () => {
  fcTest.prop([arbDataset], { numRuns: 80 })(
    'law: for any dataset, the snapshot of its loaded columns loads back to the same dataset',
    async (dataset) => {
      const { index } = await roundTrip(dataset);
      const d: Dataset = index.dataset;
      expect(d.opens).toEqual(dataset.opens);
      expect(d.clicks).toEqual(dataset.clicks);
      expect(d.tags).toEqual(dataset.tags);
      expect(d.teams).toEqual(dataset.teams);
      expect(d.credentials).toEqual(dataset.credentials);
    },
  );

  it('answers every endpoint as the JSON it was made from, for every canonical credential', async () => {
    const { finished } = await loaded(canonicalDataset);
    const { index } = await roundTrip(canonicalDataset);
    const ref = finished.index;
    expectCanonicalAnswers(index, ref);
  });

  it('is the same bytes for the same dataset, and of the per-table form as of the JSON', async () => {
    const a = (await roundTrip(canonicalDataset)).bytes;
    const b = (await roundTrip(structuredClone(canonicalDataset))).bytes;
    expect(b).toEqual(a);
    const tables = new TablesLoader();
    const rows = datasetToTables(canonicalDataset) as unknown as Record<TableName, object[]>;
    for (const t of TABLES) {
      await tables.addNdjson(t.name, [
        encoder.encode(rows[t.name].map((r) => JSON.stringify(r)).join('\n')),
      ]);
    }
    tables.finish();
    const fromTables = ColumnarBuilder.fromSnapshot(
      parseSnapshot(bytesOf(encodeSnapshot(tables.snapshotParts()))),
    ).finish().index.dataset;
    expect(fromTables.opens).toEqual(canonicalDataset.opens);
    expect(fromTables.tags).toEqual(canonicalDataset.tags);
  });

  it('keeps strings with a lone surrogate (no UTF-8 form) and non-canonical dates as written', async () => {
    const d = structuredClone(canonicalDataset);
    const tag = d.tags[0]!;
    const lone = 'x\ud800@example.com';
    tag.recipients.push({ name: 'Lone \udc00', email: lone });
    const open = d.opens.find((o) => o.tagID === tag.tagID)!;
    d.opens.push({ ...open, email: lone, city: 'Zü\ud83d', date: `${open.date.slice(0, 19)}.5Z` });
    const { index } = await roundTrip(d);
    expect(index.dataset.tags[0]!.recipients.at(-1)).toEqual({ name: 'Lone \udc00', email: lone });
    expect(index.dataset.opens.at(-1)).toEqual(d.opens.at(-1));
  });

  it('refuses what is not a snapshot of this version, naming why', async () => {
    const { bytes } = await roundTrip(canonicalDataset);
    expect(isSnapshot(bytes)).toBe(true);
    expect(isSnapshot(encoder.encode(JSON.stringify(canonicalDataset)))).toBe(false);
    expect(() => parseSnapshot(encoder.encode('{"teams": []}'))).toThrow(
      /not a tagtrack columnar snapshot/,
    );
    const other = bytes.slice();
    new DataView(other.buffer).setUint32(32, SNAPSHOT_VERSION + 1, true);
    expect(() => parseSnapshot(other)).toThrow(
      new RegExp(`format version ${SNAPSHOT_VERSION + 1}, this version reads ${SNAPSHOT_VERSION}`),
    );
    expect(() => parseSnapshot(bytes.subarray(0, bytes.length - 9))).toThrow(
      /section .* is damaged \(type or bounds\)/,
    );
    expect(() => parseSnapshot(bytes.subarray(0, 50))).toThrow(/cut short \(header\)/);
  });

  it('refuses an email dictionary that repeats a value, and checks values with the dataset schemas', async () => {
    const { source } = await loaded(canonicalDataset);
    const parts = source.snapshotParts();
    const withDicts = (name: keyof SnapshotParts['dicts'], values: string[]): SnapshotParts => ({
      ...parts,
      dicts: { ...parts.dicts, [name]: values },
    });
    // emails are compared by code (distinct normalised emails): a repeat is refused
    const emails = parts.dicts.email;
    expect(() => ColumnarBuilder.fromSnapshot(withDicts('email', [...emails, emails[0]!]))).toThrow(
      new SnapshotError(`snapshot dictionary email: value ${emails.length} repeated`),
    );
    const devices = parts.dicts.device.map((v, i) => (i === 0 ? 'toaster' : v));
    const err = (() => {
      try {
        ColumnarBuilder.fromSnapshot(withDicts('device', devices)).finish();
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DatasetError);
    expect((err as DatasetError).problems.some((p) => p.startsWith('snapshot device[0]: '))).toBe(
      true,
    );
  });

  fcTest.prop([
    fc.integer({ min: 0, max: 1 << 30 }),
    fc.oneof(fc.constant('cut' as const), fc.constant('flip' as const)),
    fc.integer({ min: 1, max: 255 }),
  ])(
    'law: a cut or damaged snapshot is refused with SnapshotError or DatasetError, or loads; it never crashes',
    async (at, how, xor) => {
      const { bytes } = await canonicalBytes;
      const i = at % bytes.length;
      const damaged = how === 'cut' ? bytes.slice(0, i) : bytes.slice();
      if (how === 'flip') damaged[i]! ^= xor;
      expect(['loaded', 'SnapshotError', 'DatasetError']).toContain(outcomeOf(damaged));
    },
  );
});

const canonicalBytes = roundTrip(canonicalDataset);
