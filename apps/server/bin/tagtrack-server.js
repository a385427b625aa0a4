#!/usr/bin/env node
// Launcher of the tagtrack-server CLI. Runs the built dist/main.js when present; otherwise
// runs src/main.ts through tsx in a child Node process with the `@tagtrack/source` export
// condition, so the workspace packages resolve to their TypeScript sources without a build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/main.js', import.meta.url);
if (existsSync(fileURLToPath(dist))) {
  await import(dist.href);
} else {
  const tsx = import.meta.resolve('tsx');
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--conditions=@tagtrack/source', '--import', tsx, main, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 : 1);
  });
}
