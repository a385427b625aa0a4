#!/usr/bin/env node
// Launcher of the `tagtrack-server` CLI. An installed package (no src/) runs the built
// dist/main.js (its `run`). In a checkout of the monorepo (src/ present and tsx resolvable)
// it runs src/main.ts through tsx with the `@tagtrack/source` condition instead, so a stale
// dist/ is never run there.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/main.js', import.meta.url);
const source = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The tsx loader's URL when this is a checkout with tsx installed, else undefined. */
function tsxLoader() {
  if (!existsSync(source)) return undefined;
  try {
    return import.meta.resolve('tsx');
  } catch {
    return undefined;
  }
}

// `--version` (or `-V`) alone prints the package's version without loading the CLI or tsx:
// the same line the CLI prints, in the time node takes to start
const args = process.argv.slice(2);
const versionOnly = args.length === 1 && (args[0] === '--version' || args[0] === '-V');
const tsx = versionOnly ? undefined : tsxLoader();
if (versionOnly) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (tsx !== undefined) {
  const child = spawn(
    process.execPath,
    ['--conditions=@tagtrack/source', '--import', tsx, source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
  });
} else if (existsSync(fileURLToPath(dist))) {
  const { run } = await import(dist.href);
  await run(process.argv.slice(2));
} else {
  process.stderr.write(
    'tagtrack-server: dist/main.js is missing; build the package first (pnpm build) or install tsx\n',
  );
  process.exitCode = 1;
}
