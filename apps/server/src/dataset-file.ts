import { readFile } from 'node:fs/promises';
import { Dataset } from '@tagtrack/core';
import * as z from 'zod';

/** A dataset file could not be used; `message` is one line naming the file and the problem. */
export class DatasetFileError extends Error {
  override readonly name = 'DatasetFileError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads and parses a JSON file of core's {@link Dataset} schema. Throws
 * {@link DatasetFileError} with a one-line message when the file is missing, is not JSON, or
 * does not match the schema (the zod issues, prettified, with the path of the bad field).
 */
export async function loadDatasetFile(file: string): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new DatasetFileError(file, `cannot read dataset file ${file}: ${reason}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DatasetFileError(file, `dataset file ${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = Dataset.safeParse(json);
  if (!parsed.success) {
    const pretty = z
      .prettifyError(parsed.error)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' ');
    throw new DatasetFileError(file, `invalid dataset file ${file}: ${pretty}`);
  }
  return parsed.data;
}
