/**
 * The page of browser-bundle.test.ts: what a team's browser app does with `@tagtrack/core` and
 * the client SDK. esbuild bundles it for the browser (`platform: 'browser'`) and
 * headless Chromium runs it; the page leaves {@link runPage} on `globalThis.tagtrackPage`.
 * It imports core's public entry and the SDK's `createClient` only: no dataset, no engine.
 */
import { authorizationHeader, parseJsonExact, SIGNING_VECTORS, Tag } from '@tagtrack/core';
import { createClient } from '../../src/index.ts';

/** What the test hands the page: JSON text as a server would send it. */
export interface PageInput {
  /** One tag record (endpoint 2's record), as JSON text. */
  readonly tagJson: string;
  /** A whole `/teams/tags` response body (`data` and `paging`), as JSON text. */
  readonly tagsBody: string;
}

/** What the page did, for the test to compare with values computed in Node. */
export interface PageOutcome {
  /** `authorizationHeader` of every signing vector over its signed string (spec §3). */
  readonly signatures: readonly { readonly name: string; readonly authorization: string }[];
  /** The tag record parsed by core's `Tag` zod schema. */
  readonly parsed: { readonly tagID: string; readonly uniqueOpens: number };
  /** The `Authorization` header the SDK sent on `teams.tags()` (no query string). */
  readonly clientAuthorization: string | null;
  /** How many records the SDK's validated answer held. */
  readonly clientRecords: number;
}

/**
 * Signs every vector, parses the record with core's schema and calls `teams.tags()` through
 * the SDK over a `fetch` that answers `tagsBody`, signing as the first vector's reader.
 */
export async function runPage(input: PageInput): Promise<PageOutcome> {
  const signatures = SIGNING_VECTORS.map((v) => ({
    name: v.name,
    authorization: authorizationHeader(v.authId, v.accessKey, v.signed),
  }));
  const tag = Tag.parse(parseJsonExact(input.tagJson));
  const reader = SIGNING_VECTORS[0]!;
  let clientAuthorization: string | null = null;
  const client = createClient({
    baseUrl: 'http://localhost:9',
    authId: reader.authId,
    accessKey: reader.accessKey,
    fetch: async (_url, init) => {
      clientAuthorization = new Headers(init?.headers).get('authorization');
      return new Response(input.tagsBody, { headers: { 'content-type': 'application/json' } });
    },
  });
  const answer = await client.teams.tags();
  return {
    signatures,
    parsed: { tagID: tag.tagID, uniqueOpens: tag.stats.uniqueOpens },
    clientAuthorization,
    clientRecords: answer.data.length,
  };
}

(globalThis as { tagtrackPage?: typeof runPage }).tagtrackPage = runPage;
