#!/usr/bin/env node
// Launcher of the `tagtrack-conformance` CLI: runs the built dist/cli.js when present, else
// src/cli.ts through tsx with the workspace's `@tagtrack/source` condition (no build needed).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/cli.js', import.meta.url);
if (existsSync(fileURLToPath(dist))) {
  const { main } = await import(dist.href);
  process.exitCode = await main(process.argv);
} else {
  const source = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      '--conditions=@tagtrack/source',
      '--import',
      import.meta.resolve('tsx'),
      source,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
  });
}
