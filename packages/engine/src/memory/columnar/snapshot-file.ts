import { open, readFile, rename, rm } from 'node:fs/promises';
import { ColumnarBuilder } from './builder.ts';
import type { ColumnarSource } from './load.ts';
import { encodeSnapshot, isSnapshot, parseSnapshot, type SnapshotParts } from './snapshot.ts';

/**
 * Writes the snapshot of a finished dataset (`source.snapshotParts()`, see `snapshot.ts`)
 * to `path`: written beside it first and renamed when complete, so `path` never holds part
 * of one. Returns the bytes written. Throws the file system's errors (the partial file is
 * removed).
 */
export async function writeSnapshotFile(
  path: string,
  source: { snapshotParts(): SnapshotParts },
): Promise<number> {
  const chunks = encodeSnapshot(source.snapshotParts());
  const partial = `${path}.partial-${process.pid}`;
  const file = await open(partial, 'w');
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      await file.write(chunk);
      bytes += chunk.length;
    }
    await file.close();
    await rename(partial, path);
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw e;
  }
  return bytes;
}

/** Whether the file at `path` starts as a snapshot does (reads its first 32 bytes). */
export async function isSnapshotFile(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = new Uint8Array(32);
    const { bytesRead } = await file.read(head, 0, 32, 0);
    return bytesRead === 32 && isSnapshot(head);
  } finally {
    await file.close();
  }
}

/**
 * Reads a snapshot file into a dataset to finish (`ColumnarSource`, as a loaded JSON file).
 * Throws `SnapshotError` when the file is not a snapshot of this format version or is
 * damaged; `finish` throws core's `DatasetError` for values or references that are not
 * valid, as for any dataset.
 */
export async function loadSnapshotFile(path: string): Promise<ColumnarSource> {
  const bytes = await readFile(path);
  return ColumnarBuilder.fromSnapshot(parseSnapshot(bytes));
}
