import { readFileSync } from 'node:fs';

/**
 * The version of `@tagtrack/conformance` (its package.json, one level above src/ and dist/):
 * what `--version` prints and every report names as the tool's version.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
