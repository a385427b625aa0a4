// The README's five-line SDK example. Run against the demo server
// (`pnpm --filter @tagtrack/server start` prints the credentials):
//   TAGTRACK_AUTH_ID=... TAGTRACK_ACCESS_KEY=... node --conditions=@tagtrack/source --import tsx examples/sdk-example.ts
import { createClient } from '@tagtrack/client';
const { TAGTRACK_BASE_URL: baseUrl = 'http://127.0.0.1:8080', TAGTRACK_AUTH_ID: authId = '', TAGTRACK_ACCESS_KEY: accessKey = '' } = process.env;
const client = createClient({ baseUrl, authId, accessKey });
console.log('2024:', (await client.stats.team({ start: '2024-01-01', end: '2024-12-31', aggregateData: true })).data[0]);
for await (const tag of client.teams.tags.all({ isOpened: true })) console.log(tag.dateSent, tag.stats.uniqueOpens, tag.subject);
