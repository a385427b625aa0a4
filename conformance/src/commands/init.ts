import { chmod, readFile, writeFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import type { Credential } from '../http/client.ts';
import { suiteCommand } from '../http/invocation.ts';
import { absolutePath, shellQuote } from '../http/rerun.ts';
import { type Profile, ProfileError } from '../profile/profile.ts';
import { InitError, type InitResult, inferProfile, isObject } from './init/infer.ts';
import { applyNoColor, noColorOption, quietOption } from './options.ts';

export {
  type Inferred,
  InitError,
  type InitInput,
  type InitResult,
  inferProfile,
} from './init/infer.ts';

/**
 * `tagtrack-conformance init`: discovers what a profile (docs/spec.md §0 "Profile options")
 * can say about an implementation from its answers, and writes that profile, so that a vendor
 * does not have to guess the options the suite checks against. Every request is a signed
 * read-only GET; nothing is guessed silently: each inferred value comes with its evidence,
 * and what the answers do not show is listed as not inferred (the reference default is kept).
 *
 * What it reads (docs/spec.md §4, §5, §7, §8, §9; spec §4, §5, §7, §8, §9):
 * - `pageSize`: the first pages of `/teams`, `/teams/tags`, `/contacts`, `/opens`, `/clicks`;
 *   a list that goes on past its first page shows the size exactly.
 * - `pagingEnd`: the last page's `nextURL` and the answer at `cursor=total` (as the preflight).
 * - `memberWithoutGroup`: member records without a group: fields absent (`omit`) or `""` (`empty`).
 * - `rtn`: `/teams?rtn=text|html` answering 200 with the format's media type (400/406: not supported).
 * - `rateLimit`: `X-Rate-Limit-Limit` on any answer; the window from `X-Rate-Limit-Reset`.
 * - credentials: the members each one sees; overlapping member sets are one team (the API
 *   never shows a team id, so teams get labels `team-1`, `team-2`, …), and the account type
 *   where the list shows it (see {@link callerOf}).
 */

/** The options of `init` as commander parses them. */
interface InitOptions {
  readonly baseUrl?: string;
  readonly authId?: string;
  readonly accessKey?: string;
  /** `--credential LABEL:AUTHID`, as given (absent: none). */
  readonly credential?: readonly string[] | undefined;
  readonly credentialsFile?: string | undefined;
  readonly auth: Profile['auth'];
  readonly out: string;
  readonly force?: boolean;
  readonly timeout: number;
  /** Print only the file written and the next command, not what was inferred. */
  readonly quiet?: boolean;
  readonly color?: boolean;
}

/** The environment variable holding the access key of `--credential LABEL:AUTHID`. */
export function accessKeyVariable(label: string): string {
  return `TAGTRACK_ACCESS_KEY_${label.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/**
 * The credentials of the `init` options, or a usage message (no secret in it). Three forms,
 * none of which puts a key on the command line: `--credentials-file FILE` (a JSON array of
 * `{label, authId, accessKey}` or a profile with `credentials`), `--credential LABEL:AUTHID`
 * (repeatable; the key in `TAGTRACK_ACCESS_KEY_<LABEL>`, the label upper-cased with every
 * run of other characters than A-Z and 0-9 as `_`), and the pair of
 * `--auth-id`/`--access-key` (`TAGTRACK_AUTH_ID`/`TAGTRACK_ACCESS_KEY`), labelled `given`.
 */
/** What a credentials file declares about each credential's owner, by authId (see {@link keepDeclared}). */
const DECLARED = new Map<string, Readonly<Record<string, string>>>();

/**
 * The inferred profile's credentials with what the credentials file declared kept: its
 * `accountType` and `memberID` over the inferred ones, and its `teamID` for the whole team
 * init inferred (so `team-1` becomes the declared id for every credential of that team).
 */
export function keepDeclared(
  credentials: readonly Profile['credentials'][number][],
  declared: ReadonlyMap<string, Readonly<Record<string, string>>> = DECLARED,
): Profile['credentials'] {
  const teams = new Map<string, string>();
  for (const c of credentials) {
    const team = declared.get(c.authId)?.teamID;
    if (team !== undefined && c.teamID !== undefined && !teams.has(c.teamID))
      teams.set(c.teamID, team);
  }
  return credentials.map((c) => {
    const d = declared.get(c.authId) ?? {};
    const teamID =
      d.teamID ?? (c.teamID === undefined ? undefined : (teams.get(c.teamID) ?? c.teamID));
    return {
      ...c,
      ...(teamID === undefined ? {} : { teamID }),
      ...(d.accountType === undefined
        ? {}
        : { accountType: d.accountType as Profile['credentials'][number]['accountType'] }),
      ...(d.memberID === undefined ? {} : { memberID: d.memberID }),
    };
  });
}

export async function initCredentials(
  opts: Pick<InitOptions, 'authId' | 'accessKey' | 'credential' | 'credentialsFile'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Credential[] | string> {
  const out: Credential[] = [];
  if (opts.credentialsFile !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(opts.credentialsFile, 'utf8'));
    } catch (e) {
      return `cannot read --credentials-file ${opts.credentialsFile}: ${(e as Error).message.split('\n')[0]}`;
    }
    const list = Array.isArray(json) ? json : isObject(json) ? json.credentials : undefined;
    if (!Array.isArray(list))
      return `--credentials-file ${opts.credentialsFile}: expected a JSON array of {label, authId, accessKey} or a profile with "credentials"`;
    for (const [i, c] of list.entries()) {
      if (
        !isObject(c) ||
        typeof c.label !== 'string' ||
        typeof c.authId !== 'string' ||
        typeof c.accessKey !== 'string' ||
        c.label === '' ||
        c.authId === '' ||
        c.accessKey === ''
      )
        return `--credentials-file ${opts.credentialsFile}: entry ${i} needs non-empty label, authId and accessKey strings`;
      out.push({ label: c.label, authId: c.authId, accessKey: c.accessKey });
      // what the file declares about the credential's owner is kept over what init infers
      const declared = Object.fromEntries(
        (['teamID', 'accountType', 'memberID'] as const)
          .filter((k) => typeof c[k] === 'string' && c[k] !== '')
          .map((k) => [k, c[k] as string]),
      );
      if (Object.keys(declared).length > 0) DECLARED.set(c.authId, declared);
    }
  }
  for (const spec of opts.credential ?? []) {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1)
      return `--credential ${JSON.stringify(spec)} is not LABEL:AUTHID`;
    const label = spec.slice(0, colon);
    const variable = accessKeyVariable(label);
    const accessKey = env[variable];
    if (accessKey === undefined || accessKey === '')
      return `--credential ${label}: set its access key in ${variable}`;
    out.push({ label, authId: spec.slice(colon + 1), accessKey });
  }
  if (opts.authId !== undefined || opts.accessKey !== undefined) {
    if (!opts.authId || !opts.accessKey)
      return 'give both --auth-id and --access-key (or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY)';
    // the environment's pair is often one of the listed credentials: listed once
    if (!out.some((c) => c.authId === opts.authId))
      out.push({ label: 'given', authId: opts.authId, accessKey: opts.accessKey });
  }
  if (out.length === 0)
    return 'no credential: give --credentials-file FILE, --credential LABEL:AUTHID (key in TAGTRACK_ACCESS_KEY_<LABEL>), or TAGTRACK_AUTH_ID and TAGTRACK_ACCESS_KEY';
  const labels = out.map((c) => c.label);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice !== undefined) return `credential label ${JSON.stringify(twice)} is given twice`;
  return out;
}

const INIT_HELP = `
Credentials (no key on the command line, so none in the shell history):
  --credentials-file FILE     JSON: [{"label", "authId", "accessKey"}, ...] or a profile
  --credential LABEL:AUTHID   repeatable; the access key in TAGTRACK_ACCESS_KEY_<LABEL>
                              (LABEL upper-cased, other characters as _), e.g.
                              TAGTRACK_ACCESS_KEY_TEAM1_ADMIN for team1-admin
  TAGTRACK_AUTH_ID, TAGTRACK_ACCESS_KEY   one credential, labelled "given"

Give credentials of several account types and teams: the team grouping and the account types
come from the members each one sees. The profile written holds the access keys (the suite
signs with them): it is created with file mode 0600; keep it out of version control.

Example:
  TAGTRACK_ACCESS_KEY_ADMIN=... tagtrack-conformance init --base-url http://127.0.0.1:8080 \\
    --credential admin:MGJMG9Z56RWV3AZE12LJ --out profile.json
  tagtrack-conformance run --base-url http://127.0.0.1:8080 --profile profile.json
`;

/** Registers `init` on the `tagtrack-conformance` program; `done` receives its exit code. */
export function addInitCommand(program: Command, done: (code: number) => void): void {
  program
    .command('init')
    .description(
      'discover the profile options of an implementation from its answers and write a profile file, explaining every value',
    )
    .addOption(
      new Option('--base-url <url>', 'base URL of the implementation').env('TAGTRACK_BASE_URL'),
    )
    .addOption(
      new Option(
        '--credential <label:authId>',
        'a credential; its key in TAGTRACK_ACCESS_KEY_<LABEL> (repeatable)',
      ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]),
    )
    .addOption(
      new Option(
        '--credentials-file <file>',
        'JSON list of {label, authId, accessKey}, or a profile',
      ),
    )
    .addOption(
      new Option('--auth-id <id>', 'one credential’s authentication id').env('TAGTRACK_AUTH_ID'),
    )
    .addOption(
      new Option('--access-key <key>', 'its access key (prefer the variable)').env(
        'TAGTRACK_ACCESS_KEY',
      ),
    )
    .addOption(
      new Option('--auth <scheme>', 'how requests are signed')
        .choices(['hmac-sha1', 'bearer'])
        .default('hmac-sha1'),
    )
    .addOption(new Option('--out <file>', 'profile file to write').default('tagtrack-profile.json'))
    .addOption(new Option('--force', 'overwrite --out if it exists'))
    .addOption(
      new Option('--timeout <ms>', 'per-request timeout in milliseconds')
        .argParser((v: string) => {
          if (!/^[1-9][0-9]*$/.test(v.trim()))
            throw new Error('--timeout must be a positive integer');
          return Number(v);
        })
        .default(10_000),
    )
    .addOption(quietOption('print only the file written and the next command'))
    .addOption(noColorOption())
    .addHelpText('after', INIT_HELP)
    .action(async (opts: InitOptions) => {
      applyNoColor(opts);
      done(await initCommand(opts));
    });
}

async function initCommand(opts: InitOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tagtrack-conformance init: ${message}\n`);
    return 2;
  };
  if (opts.baseUrl === undefined) return fail('missing --base-url (or TAGTRACK_BASE_URL)');
  try {
    new URL(opts.baseUrl);
  } catch {
    return fail(`--base-url ${JSON.stringify(opts.baseUrl)} is not a URL`);
  }
  const credentials = await initCredentials(opts);
  if (typeof credentials === 'string') return fail(credentials);
  let result: InitResult;
  try {
    result = await inferProfile({
      baseUrl: opts.baseUrl,
      credentials,
      auth: opts.auth,
      timeoutMs: opts.timeout,
    });
  } catch (e) {
    if (e instanceof InitError || e instanceof ProfileError) return fail(e.message);
    throw e;
  }
  result = {
    ...result,
    profile: { ...result.profile, credentials: keepDeclared(result.profile.credentials) },
  };
  const out = process.stdout;
  if (opts.quiet !== true) out.write(`inferred from ${opts.baseUrl}:\n`);
  for (const i of opts.quiet === true ? [] : result.inferred)
    out.write(`  ${i.field}: ${JSON.stringify(i.value)}  (${i.evidence})\n`);
  if (opts.quiet !== true && result.unknown.length > 0) {
    out.write('not inferred:\n');
    for (const u of result.unknown) out.write(`  ${u}\n`);
  }
  try {
    await writeFile(opts.out, `${JSON.stringify(result.profile, null, 2)}\n`, {
      mode: 0o600,
      flag: opts.force === true ? 'w' : 'wx',
    });
    await chmod(opts.out, 0o600);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return fail(
      err.code === 'EEXIST'
        ? `${opts.out} exists: pass --force to overwrite it, or --out another file`
        : `cannot write ${opts.out}: ${err.message}`,
    );
  }
  out.write(
    `wrote ${opts.out} (file mode 0600: it holds the access keys of ${credentials.length} credential${credentials.length === 1 ? '' : 's'}; keep it out of version control)\n` +
      `next: ${suiteCommand()} run --base-url ${shellQuote(opts.baseUrl)} --profile ${shellQuote(absolutePath(opts.out))}\n`,
  );
  return 0;
}
