#!/usr/bin/env node
// The `tagtrack-server` CLI (src/main.ts), started by the launcher every tagtrack bin shares.
import { launch } from '@tagtrack/core/launch';

await launch({
  name: 'tagtrack-server',
  packageUrl: new URL('..', import.meta.url),
  entry: 'main',
  start: async (server, argv) => {
    await server.run(argv.slice(2));
  },
});
