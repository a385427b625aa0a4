#!/usr/bin/env node
// The `tagtrack-conformance` CLI (src/cli.ts), started by the launcher every tagtrack bin shares.
import { launch } from '@tagtrack/core/launch';

await launch({
  name: 'tagtrack-conformance',
  packageUrl: new URL('..', import.meta.url),
  entry: 'cli',
  start: (cli, argv) => cli.main(argv),
  // a run's live data is bounded (caches capped by bytes, long lists sampled): a heap of this
  // size makes V8 collect garbage before the process grows (peak RSS per data size in
  // docs/bench.md); NODE_OPTIONS=--max-old-space-size=N overrides it
  heapMB: (args) => (args[0] === 'run' ? 384 : undefined),
});
