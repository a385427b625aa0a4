/**
 * Regenerates the committed artefacts of @tagtrack/dataset:
 * - `src/canonical.json` from `CANONICAL_SEED` at `CANONICAL_SCALE` with its edge
 *   cases (`generateCanonicalDataset`; deterministic:
 *   two runs write byte-identical files);
 * - `dataset.schema.json` and `tables.schema.json`, the JSON Schemas of a dataset document and
 *   of its tables, from the zod schemas (src/json-schema.ts).
 *
 * Usage: `pnpm generate` (at the root: this and core's openapi.json) writes them; `pnpm generate --check` writes nothing and exits 1 when
 * a committed file differs from what would be generated (for CI).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Dataset } from '@tagtrack/core';
import { generateCanonicalDataset } from '../src/generate.ts';
import { datasetJsonSchema, tablesJsonSchema } from '../src/json-schema.ts';

const CANONICAL_PATH = fileURLToPath(new URL('../src/canonical.json', import.meta.url));
const DATASET_SCHEMA_PATH = fileURLToPath(new URL('../dataset.schema.json', import.meta.url));
const TABLES_SCHEMA_PATH = fileURLToPath(new URL('../tables.schema.json', import.meta.url));

/**
 * Serialises a dataset diff-friendly: teams indented by one space, and every tag, event and
 * credential as one compact JSON object per line. Ends with a newline.
 */
function datasetJson(dataset: Dataset): string {
  const keys = ['teams', 'tags', 'opens', 'clicks', 'credentials'] as const;
  const fields = keys.map((key) => {
    const value = dataset[key];
    let body: string;
    if (key === 'teams') body = JSON.stringify(value, null, 1).replaceAll('\n', '\n ');
    else if (value.length === 0) body = '[]';
    else body = `[\n${value.map((v) => `  ${JSON.stringify(v)}`).join(',\n')}\n ]`;
    return ` ${JSON.stringify(key)}: ${body}`;
  });
  return `{\n${fields.join(',\n')}\n}\n`;
}

async function currentText(path: string): Promise<string | undefined> {
  return existsSync(path) ? readFile(path, 'utf8') : undefined;
}

async function main(): Promise<number> {
  // `pnpm generate -- --check` forwards the `--` separator; drop it.
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const { values } = parseArgs({ args, options: { check: { type: 'boolean', default: false } } });
  const outputs: [path: string, text: string | undefined][] = [
    [CANONICAL_PATH, datasetJson(generateCanonicalDataset())],
    [DATASET_SCHEMA_PATH, `${JSON.stringify(datasetJsonSchema(), null, 2)}\n`],
    [TABLES_SCHEMA_PATH, `${JSON.stringify(tablesJsonSchema(), null, 2)}\n`],
  ];
  let stale = 0;
  for (const [path, text] of outputs) {
    if (text === undefined) continue;
    const same = (await currentText(path)) === text;
    if (values.check) {
      if (!same) {
        stale++;
        console.error(`${path} is out of date: run \`pnpm generate\``);
      } else console.log(`${path} is up to date`);
    } else if (same) console.log(`${path} unchanged`);
    else {
      await writeFile(path, text);
      console.log(`${path} written (${text.length} characters)`);
    }
  }
  return stale === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
