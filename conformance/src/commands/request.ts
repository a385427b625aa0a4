import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  ConnectionError,
  type Credential,
  DEFAULT_MAX_BODY_BYTES,
  type FetchLike,
  HttpClient,
} from '../http/client.ts';
import { TlsConfigError, tlsFetch } from '../http/transport.ts';
import { canonicalProfile } from '../profile/fixtures.ts';
import { loadProfile, type Profile, ProfileError, parseProfile } from '../profile/profile.ts';
import {
  applyNoColor,
  extraHeadersOf,
  headerOption,
  INSECURE_WARNING,
  noColorOption,
  quietOption,
  strictBoolean,
  tlsOptions,
} from './options.ts';

/**
 * `tagtrack-conformance request METHOD TARGET`: sends one request as the suite sends it
 * (signed over the query string exactly as written, spec §3) and prints the response
 * like `curl -i`. Failures in reports carry such a line as their reproduction: it names the
 * credential by its label and signs when run, so no report ever holds a replayable header.
 *
 * Credentials come from the environment or the profile, never from the line itself:
 * `--credential LABEL` picks a credential of `--profile` (`TAGTRACK_PROFILE`; default the
 * canonical profile of fixture mode) or `given`, the pair of `--auth-id`/`--access-key`
 * (`TAGTRACK_AUTH_ID`/`TAGTRACK_ACCESS_KEY`), which is also the default when set; else the
 * profile's first admin (the run's primary). Exit 0 when a response came (any status), 2 for
 * a usage error or no response (unreachable, timeout, body over the cap).
 */

/** The options of the `request` command as commander parses them. */
interface RequestOptions {
  readonly baseUrl?: string;
  readonly credential?: string | false;
  readonly profile?: string;
  readonly authId?: string;
  readonly accessKey?: string;
  readonly header?: readonly string[];
  readonly caFile?: string;
  readonly insecure?: boolean;
  readonly timeout: number;
  readonly maxBodyBytes: number;
  /** Print the response body only, without the status line and headers. */
  readonly quiet?: boolean;
  readonly color?: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

function positive(name: string) {
  return (v: string): number => {
    if (!/^[1-9][0-9]*$/.test(v.trim()))
      throw new InvalidArgumentError(`--${name} must be a positive integer`);
    return Number(v);
  };
}

/** Registers `request` on the `tagtrack-conformance` program; `done` receives its exit code. */
export function addRequestCommand(program: Command, done: (code: number) => void): void {
  program
    .command('request')
    .description(
      'send one signed request as the suite does and print the response (reproduces a failure; credentials from the environment or the profile)',
    )
    .argument('<method>', `HTTP method (${METHODS.join(', ')})`, (m: string) => {
      const up = m.toUpperCase();
      if (!(METHODS as readonly string[]).includes(up))
        throw new InvalidArgumentError(`method must be one of ${METHODS.join(', ')}`);
      return up;
    })
    .argument('<target>', "path and query below the base URL, e.g. '/teams/tags?isOpened=true'")
    .addOption(
      new Option('--base-url <url>', 'base URL of the implementation').env('TAGTRACK_BASE_URL'),
    )
    .addOption(
      new Option(
        '--credential <label>',
        "label of the credential to sign with: one of the profile's, or 'given' (--auth-id/--access-key)",
      ),
    )
    .addOption(new Option('--no-credential', 'send no Authorization header'))
    .addOption(
      new Option('--profile <file>', 'JSON profile listing the credentials').env(
        'TAGTRACK_PROFILE',
      ),
    )
    .addOption(new Option('--auth-id <id>', 'authentication id').env('TAGTRACK_AUTH_ID'))
    .addOption(new Option('--access-key <key>', 'access key').env('TAGTRACK_ACCESS_KEY'))
    .addOption(headerOption())
    .addOption(tlsOptions()[0]!)
    .addOption(tlsOptions()[1]!)
    .addOption(
      new Option('--timeout <ms>', 'timeout in milliseconds')
        .argParser(positive('timeout'))
        .default(10_000)
        .env('TAGTRACK_TIMEOUT'),
    )
    .addOption(
      new Option('--max-body-bytes <n>', 'largest response body read')
        .argParser(positive('max-body-bytes'))
        .default(DEFAULT_MAX_BODY_BYTES)
        .env('TAGTRACK_MAX_BODY_BYTES'),
    )
    .addOption(quietOption('print the response body only (no status line, no headers)'))
    .addOption(noColorOption())
    .action(async (method: string, target: string, opts: RequestOptions, cmd: Command) => {
      applyNoColor(opts);
      done(await requestCommand(method as (typeof METHODS)[number], target, opts, cmd));
    });
}

async function requestCommand(
  method: (typeof METHODS)[number],
  target: string,
  opts: RequestOptions,
  cmd: Command,
): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tagtrack-conformance request: ${message}\n`);
    return 2;
  };
  if (opts.baseUrl === undefined) return fail('missing --base-url (or TAGTRACK_BASE_URL)');
  if (!target.startsWith('/')) return fail(`the target must start with '/': ${target}`);
  let profile: Profile;
  try {
    profile =
      opts.profile === undefined
        ? parseProfile(canonicalProfile(), 'canonical profile')
        : await loadProfile(opts.profile);
  } catch (e) {
    if (e instanceof ProfileError) return fail(e.message);
    throw e;
  }
  const credential = pickCredential(opts, profile);
  if (typeof credential === 'string') return fail(credential);
  const extra = extraHeadersOf(opts as unknown as Record<string, unknown>, cmd);
  if (typeof extra === 'string') return fail(extra);
  const insecure = strictBoolean(
    opts as unknown as Record<string, unknown>,
    cmd,
    'insecure',
    'TAGTRACK_INSECURE',
  );
  if (typeof insecure === 'string') return fail(insecure);
  if (insecure) process.stderr.write(INSECURE_WARNING);
  const question = target.indexOf('?');
  let transport: FetchLike | undefined;
  try {
    transport = await tlsFetch({ caFile: opts.caFile, insecure });
  } catch (e) {
    if (e instanceof TlsConfigError) return fail(e.message);
    throw e;
  }
  const http = new HttpClient({
    baseUrl: opts.baseUrl,
    auth: profile.auth,
    timeoutMs: opts.timeout,
    maxBodyBytes: opts.maxBodyBytes,
    credentials: profile.credentials,
    fetch: transport,
    ownFetch: false,
  });
  try {
    const ex = await http.request({
      method,
      path: question < 0 ? target : target.slice(0, question),
      ...(question < 0 ? {} : { rawQuery: target.slice(question + 1) }),
      credential,
      headers: extra.headers,
      cache: false,
    });
    const lines = [`HTTP ${ex.status}`];
    for (const [k, v] of Object.entries(ex.responseHeaders)) lines.push(`${k}: ${v}`);
    const head = opts.quiet === true ? '' : `${lines.join('\n')}\n\n`;
    process.stdout.write(`${head}${ex.body}${ex.body.endsWith('\n') ? '' : '\n'}`);
    return 0;
  } catch (e) {
    if (e instanceof ConnectionError) return fail(e.message);
    if (e instanceof TypeError) return fail(`cannot build the URL: ${e.message}`);
    throw e;
  }
}

/**
 * The credential of `opts`: `null` for `--no-credential`; the profile's credential named by
 * `--credential`, or `given` (the `--auth-id`/`--access-key` pair, matched to a profile
 * credential of the same pair when there is one); by default `given` when set, else the
 * profile's first admin, else its first. A usage message (no secret in it) when none fits.
 */
export function pickCredential(
  opts: Pick<RequestOptions, 'credential' | 'authId' | 'accessKey'>,
  profile: Profile,
): Credential | null | string {
  if (opts.credential === false) return null;
  const declared = profile.credentials;
  let given: Credential | undefined;
  if (opts.authId !== undefined || opts.accessKey !== undefined) {
    if (!opts.authId || !opts.accessKey)
      return 'give both --auth-id and --access-key (or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY)';
    given = declared.find((c) => c.authId === opts.authId && c.accessKey === opts.accessKey) ?? {
      label: 'given',
      authId: opts.authId,
      accessKey: opts.accessKey,
    };
  }
  const label = opts.credential;
  if (label === undefined)
    return (
      given ??
      declared.find((c) => c.accountType === 'admin') ??
      declared[0] ??
      'no credential: set TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY or pass --profile'
    );
  // `given` names the pair of the environment even when the profile lists it under a label
  const found =
    given !== undefined && (given.label === label || label === 'given')
      ? given
      : declared.find((c) => c.label === label);
  if (found !== undefined) return found;
  const known = [...declared.map((c) => c.label), ...(given === undefined ? [] : [given.label])];
  return label === 'given'
    ? '--credential given needs --auth-id and --access-key (or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY)'
    : `no credential labelled ${JSON.stringify(label)}${known.length === 0 ? '' : `; known: ${known.join(', ')}`} (pass --profile or TAGTRACK_PROFILE)`;
}
