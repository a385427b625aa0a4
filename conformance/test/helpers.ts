import { execFile } from 'node:child_process';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Clock } from '@tagtrack/core';
import { CANONICAL_CREDENTIALS } from '@tagtrack/dataset/canonical';
import { createServer, type FaultName, type ServerOptions } from '@tagtrack/server';
import { vi } from 'vitest';
import { main } from '../src/cli.ts';
import { canonicalProfile } from '../src/profile/fixtures.ts';
import type { ProfileInput } from '../src/profile/profile.ts';
import { type RunOptions, type RunResult, runConformance } from '../src/run/runner.ts';

/** Base URL used for in-memory runs through `server.fetch` (never resolved). */
export const MEMORY_BASE_URL = 'http://tagtrack.memory';

/**
 * The canonical profile with the options a server was built with: page size, paging end,
 * members without a group, rate limit.
 */
export function profileFor(options: ServerOptions = {}): ProfileInput {
  return {
    ...canonicalProfile(),
    pageSize: options.pageSize ?? 250,
    pagingEnd: options.pagingEnd ?? 'no-content',
    memberWithoutGroup: options.memberWithoutGroup ?? 'omit',
    rateLimit: options.rateLimit ? { ...options.rateLimit, retryAfter: true } : null,
  };
}

/**
 * Runs the suite in memory (through `server.fetch`, no socket) against a reference server
 * built with `server` options (its public URL the in-memory base URL), in fixture mode with
 * the canonical profile unless overridden.
 */
export async function runInMemory(
  server: ServerOptions,
  options: Partial<RunOptions> = {},
): Promise<RunResult> {
  // paging URLs must be on the suite's base URL (spec §5 Revision 2)
  const s = createServer({ publicUrl: MEMORY_BASE_URL, ...server });
  try {
    return await runConformance({
      baseUrl: MEMORY_BASE_URL,
      fetch: (r) => s.fetch(r),
      profile: profileFor(server),
      mode: 'fixture',
      seed: 7,
      numRuns: 10,
      ...options,
    });
  } finally {
    await s.close();
  }
}

/**
 * `fetch` as seen through a reverse proxy that serves the API below the path prefix of
 * `publicUrl` (e.g. `http://tagtrack.memory/api/v1`) and strips it before the server: the
 * suite's base URL is `publicUrl`, the server's paging URLs carry the prefix (spec §5
 * Revision 2, docs/spec.md §11 "Public base URL"). Without a prefix, `fetch` itself.
 */
export function behindProxy(
  fetch: (r: Request) => Promise<Response>,
  publicUrl: string,
): (r: Request) => Promise<Response> {
  const prefix = new URL(publicUrl).pathname.replace(/\/+$/, '');
  if (prefix === '') return fetch;
  return (r) => {
    const url = new URL(r.url);
    if (!url.pathname.startsWith(`${prefix}/`))
      return Promise.resolve(new Response('not below the proxy prefix', { status: 404 }));
    url.pathname = url.pathname.slice(prefix.length);
    return fetch(new Request(url, r));
  };
}

/**
 * Each check of `r` as id, status, comparisons, coverage and the requests it relied on, in its
 * order (`METHOD target credential status`): what two runs that must send the same requests
 * compare.
 */
export function checkRequestLists(r: RunResult) {
  const byId = new Map(r.exchanges.map((e) => [e.id, e]));
  return r.checks.map((c) => ({
    id: c.id,
    status: c.status,
    comparisons: c.comparisons,
    coverage: c.coverage,
    requests: c.exchangeIds!.map((x) => {
      const e = byId.get(x)!;
      return `${e.method} ${e.target} ${e.credential ?? '-'} ${e.status}`;
    }),
  }));
}

/** Ids of the checks that failed or errored. */
export function failing(result: RunResult): string[] {
  return result.checks.filter((c) => c.status === 'fail' || c.status === 'error').map((c) => c.id);
}

/** The canonical credentials as a vendor declares them: team and account type, no memberID. */
export const DECLARED: NonNullable<ProfileInput['credentials']> = CANONICAL_CREDENTIALS.map(
  (c) => ({
    label: c.label,
    authId: c.authId,
    accessKey: c.accessKey,
    teamID: c.teamID,
    accountType: c.accountType,
  }),
);

export const team1Admin = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-admin')!;
export const team1User = CANONICAL_CREDENTIALS.find((c) => c.label === 'team1-user')!;
export type { FaultName };

/**
 * Runs `tagtrack-conformance ARGS` in-process (no `node`/program words needed) with stdout and
 * stderr captured, the TAGTRACK_* variables cleared and `env` set; resolves the exit code and
 * the output. The environment and the streams are restored afterwards.
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('TAGTRACK_')) delete process.env[k];
  Object.assign(process.env, env);
  try {
    const code = await main(['node', 'tagtrack-conformance', ...args]);
    return { code, stdout, stderr };
  } finally {
    process.env = saved;
    out.mockRestore();
    err.mockRestore();
  }
}

/** An answer, recorded: status, headers and body bytes. */
export interface RecordedAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: [string, string][];
  readonly body: Uint8Array | null;
}

/** Recorded answers by request (see {@link recordedFetch}). */
export type RecordedAnswers = Map<string, Promise<RecordedAnswer>>;

/** The name-value pairs of `headers`, in order. */
function headerEntries(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => {
    out.push([name, value]);
  });
  return out;
}

/**
 * `fetch` for a server that answers by the request alone (a reference server is read-only
 * and deterministic; not with a rate limit, whose answers depend on the requests before):
 * each distinct request (method, URL and every header, under `scope`, e.g. the server's
 * options; the suite's requests carry no body) goes to `fetch` once, and the same request
 * again gets a new Response of the recorded answer (status, headers, body bytes): the answer
 * the server would give again, without building it again. `answers` holds the recordings
 * (shared by the callers that pass the same map).
 */
export function recordedFetch(
  fetch: (r: Request) => Promise<Response>,
  scope: string,
  answers: RecordedAnswers,
): (r: Request) => Promise<Response> {
  return (r) => {
    const key = JSON.stringify([scope, r.method, r.url, headerEntries(r.headers)]);
    let recorded = answers.get(key);
    if (recorded === undefined) {
      recorded = fetch(r).then(async (res) => ({
        status: res.status,
        statusText: res.statusText,
        headers: headerEntries(res.headers),
        body: res.body === null ? null : new Uint8Array(await res.arrayBuffer()),
      }));
      answers.set(key, recorded);
    }
    return recorded.then(
      (a) =>
        new Response(a.body === null ? null : a.body.slice(), {
          status: a.status,
          statusText: a.statusText,
          headers: a.headers,
        }),
    );
  };
}

/** A clock whose sleeps return at once and are recorded (ms). */
export function fakeClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const execFileAsync = promisify(execFile);

/**
 * Runs `script`, an ES module that prints one JSON value, in a Node process of its own with
 * `--expose-gc` (`globalThis.gc`) and the workspace's sources (tsx, `@tagtrack/source`), from
 * the conformance folder, and resolves that value: memory measured there after full
 * collections is not disturbed by what other test files left in a shared worker.
 */
export async function inOwnProcess<T>(script: string): Promise<T> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--expose-gc',
      '--conditions=@tagtrack/source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  return JSON.parse(stdout) as T;
}

/** An HTTP server of `handler` on 127.0.0.1, port 0: its base URL, and `close` (connections too). */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
