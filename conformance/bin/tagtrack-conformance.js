#!/usr/bin/env node
// The `tagtrack-conformance` CLI (src/cli.ts), started by the launcher every tagtrack bin shares.
import { launch } from '@tagtrack/core/launch';

await launch({
  name: 'tagtrack-conformance',
  packageUrl: new URL('..', import.meta.url),
  entry: 'cli',
  start: (cli, argv) => cli.main(argv),
});
