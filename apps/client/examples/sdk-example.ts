// Run against the demo server (`pnpm --filter @tagtrack/server start` prints the credentials):
//   TAGTRACK_AUTH_ID=... TAGTRACK_ACCESS_KEY=... node --conditions=@tagtrack/source --import tsx examples/sdk-example.ts
import { createClient } from '@tagtrack/client';

const client = createClient({
  baseUrl: process.env.TAGTRACK_BASE_URL ?? 'http://127.0.0.1:8080',
  authId: process.env.TAGTRACK_AUTH_ID!,
  accessKey: process.env.TAGTRACK_ACCESS_KEY!,
});
const {
  data: [year],
} = await client.stats.team({ start: '2025-01-01', end: '2025-12-31', aggregateData: true });
console.log('2025:', year);
for await (const tag of client.teams.tags.all({ isOpened: true }))
  console.log(tag.dateSent, tag.stats.uniqueOpens, tag.subject);
