/**
 * Regenerates the committed artefact of @tagtrack/core: `openapi.json` from
 * `openApiDocument()` (src/openapi.ts). The dataset artefacts (canonical dataset, JSON
 * Schemas) are @tagtrack/dataset's (packages/dataset/scripts/generate.ts); the root
 * `pnpm generate` runs both.
 *
 * Usage: `pnpm generate` writes it; `pnpm generate --check` writes nothing and exits 1 when
 * the committed file differs from what would be generated (for CI).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openApiDocument } from '../src/openapi.ts';

const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));

async function main(): Promise<number> {
  // `pnpm generate -- --check` forwards the `--` separator; drop it.
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const { values } = parseArgs({ args, options: { check: { type: 'boolean', default: false } } });
  const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  const same = existsSync(OPENAPI_PATH) && (await readFile(OPENAPI_PATH, 'utf8')) === text;
  if (values.check) {
    if (!same) {
      console.error(`${OPENAPI_PATH} is out of date: run \`pnpm generate\``);
      return 1;
    }
    console.log(`${OPENAPI_PATH} is up to date`);
  } else if (same) console.log(`${OPENAPI_PATH} unchanged`);
  else {
    await writeFile(OPENAPI_PATH, text);
    console.log(`${OPENAPI_PATH} written (${text.length} characters)`);
  }
  return 0;
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
