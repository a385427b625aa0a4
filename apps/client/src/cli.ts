import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CalendarDate,
  ENDPOINT_LIST,
  type Endpoint,
  PARAM_NAMES,
  type ParamName,
  type PathParamName,
  QUERY_PARAMS,
  toTable,
  valueSchema,
  wireSchema,
} from '@tagtrack/core';
import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import {
  Command,
  InvalidArgumentError as CommanderArgumentError,
  CommanderError,
  Option,
} from 'commander';
import { stringify } from 'csv-stringify/sync';
import * as z from 'zod';
import { createClient } from './client.ts';
import {
  ApiError,
  InvalidArgumentError,
  ResponseValidationError,
  TagtrackError,
} from './errors.ts';
import type { ListPage } from './paginate.ts';
import type { Clock, EndpointCall, TagtrackClient } from './types.ts';

/**
 * `tagtrack`: the command-line client. One subcommand per endpoint of the catalogue
 * (`tagtrack <resource> <action> [ids] [options]`), credentials from flags or the
 * environment (flags win), output as JSON, NDJSON, a table or CSV.
 * Exit codes: 0 success, 1 API/network/response error, 2 usage error.
 */

/** A writable text stream (process.stdout or a test double). */
export interface CliStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean | undefined;
}

/** What {@link runCli} reads and writes; injectable for tests. */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  /** Environment: `TAGTRACK_BASE_URL`, `TAGTRACK_AUTH_ID`, `TAGTRACK_ACCESS_KEY`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `fetch` and clock handed to the SDK (tests). */
  readonly fetch?: typeof fetch | undefined;
  readonly clock?: Clock | undefined;
}

/** Output formats of `--output`. */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'table', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface GlobalOptions {
  baseUrl?: string;
  authId?: string;
  accessKey?: string;
  output: OutputFormat;
  rtn?: 'text' | 'html';
  all?: boolean;
  cursor?: number;
  rateLimit?: number;
  timeout?: number;
  maxPages?: number;
  maxBodyBytes?: number;
  validate: boolean;
}

/** A usage problem found after parsing (missing credentials, conflicting flags). */
class UsageError extends Error {}

/**
 * Flag names that differ from the parameter's name in kebab case: the boolean filters drop
 * their `is` (`--opened`), `aggregateData` is `--aggregate`. Everything else about a flag
 * comes from the parameter's schema in core's catalogue.
 */
function flagName(name: ParamName): string {
  if (name === 'aggregateData') return 'aggregate';
  return kebab(name.replace(/^is([A-Z])/, (_, c: string) => c.toLowerCase()));
}

/** The option of a query parameter, derived from its schema (`QUERY_PARAMS`). */
function queryFlag(name: ParamName): { readonly flags: string; readonly description: string } {
  const field: z.ZodType = QUERY_PARAMS[name];
  const wire = wireSchema(field);
  const placeholder =
    wire === CalendarDate ? 'YYYY-MM-DD' : wire instanceof z.ZodEnum ? name : 'value';
  const switchOnly = valueSchema(field) instanceof z.ZodBoolean;
  return {
    flags: `--${flagName(name)}${switchOnly ? '' : ` <${placeholder}>`}`,
    description: field.description ?? name,
  };
}

/**
 * Flag of each query parameter of core's catalogue, derived from its schema (switch for a
 * boolean, `<YYYY-MM-DD>` for a day, choices for an enum, the schema's description);
 * `cursor` (`--cursor`) and `rtn` (`--rtn`) are global options instead. `total` and `next`
 * are sent as given, on every page of `--all`.
 */
export const QUERY_FLAGS: Readonly<
  Partial<Record<ParamName, { readonly flags: string; readonly description: string }>>
> = Object.fromEntries(
  PARAM_NAMES.filter((name) => name !== 'cursor' && name !== 'rtn').map((name) => [
    name,
    queryFlag(name),
  ]),
);

function parseDay(value: string): string {
  if (!CalendarDate.safeParse(value).success) {
    throw new CommanderArgumentError('expected a real calendar day as YYYY-MM-DD');
  }
  return value;
}

function parseNonNegative(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new CommanderArgumentError('expected a number >= 0');
  return Number(value);
}

function parseInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new CommanderArgumentError('expected an integer >= 0');
  return Number(value);
}

function parsePositive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new CommanderArgumentError('expected an integer >= 1');
  return Number(value);
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function queryOption(name: ParamName, required: boolean): Option | undefined {
  const spec = QUERY_FLAGS[name];
  if (spec === undefined) return undefined;
  const option = new Option(spec.flags, spec.description);
  const wire = wireSchema(QUERY_PARAMS[name]);
  if (wire instanceof z.ZodEnum) option.choices(wire.options.map(String));
  if (wire === CalendarDate) option.argParser(parseDay);
  if (required) option.makeOptionMandatory();
  return option;
}

function writeLine(stream: CliStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Renders records in one output format, page by page (header once for CSV). */
class Printer {
  #count = 0;
  #collected: unknown[] = [];
  constructor(
    readonly endpoint: Endpoint,
    readonly format: OutputFormat,
    readonly out: CliStream,
    /** JSON: print an array (list) or the one object (single). */
    readonly asArray: boolean,
    /** CSV and table: columns left out (`date` of aggregated stats, which no record has). */
    readonly omit: readonly string[] = [],
  ) {}

  /** The records as a table (core's `toTable`) without the {@link omit} columns. */
  #table(records: readonly unknown[]): { columns: string[]; rows: string[][] } {
    const t = toTable(this.endpoint, records);
    const keep = t.columns.map((c) => !this.omit.includes(c));
    return {
      columns: t.columns.filter((_, i) => keep[i]),
      rows: t.rows.map((r) => r.filter((_, i) => keep[i])),
    };
  }

  page(records: readonly unknown[]): void {
    switch (this.format) {
      case 'json':
        if (!this.asArray) {
          writeLine(this.out, JSON.stringify(records[0], null, 2));
          break;
        }
        for (const r of records) {
          const body = JSON.stringify(r, null, 2).replace(/\n/g, '\n  ');
          this.out.write(`${this.#count === 0 ? '[\n' : ',\n'}  ${body}`);
          this.#count++;
        }
        break;
      case 'ndjson':
        for (const r of records) writeLine(this.out, JSON.stringify(r));
        break;
      case 'csv': {
        const table = this.#table(records);
        this.out.write(
          stringify(table.rows, {
            header: this.#count === 0,
            columns: table.columns,
          }),
        );
        this.#count += records.length;
        break;
      }
      case 'table':
        this.#collected.push(...records);
        break;
    }
  }

  end(): void {
    if (this.format === 'json' && this.asArray) {
      this.out.write(this.#count === 0 ? '[]\n' : '\n]\n');
    } else if (this.format === 'table') {
      const t = this.#table(this.#collected);
      const table = new Table({ head: t.columns, style: { head: [], border: [] } });
      table.push(...t.rows);
      writeLine(this.out, table.toString());
    } else if (this.format === 'csv' && this.#count === 0) {
      this.page([]);
    }
  }
}

async function runEndpoint(
  client: TagtrackClient,
  endpoint: Endpoint,
  call: EndpointCall,
  g: GlobalOptions,
  io: CliIo,
): Promise<void> {
  if (g.rtn !== undefined) {
    if (g.all) throw new UsageError('--all cannot be combined with --rtn (one page of text)');
    const body = (await client.request(endpoint.id, call, { rtn: g.rtn })) as string;
    io.stdout.write(body);
    return;
  }
  if (endpoint.response === 'single') {
    if (g.all) throw new UsageError(`--all: ${endpoint.id} returns a single record`);
    const { data } = (await client.request(endpoint.id, call)) as { data: unknown };
    const printer = new Printer(endpoint, g.output, io.stdout, false);
    printer.page([data]);
    printer.end();
    return;
  }
  // aggregated stats carry no date (spec §5 Revision 2): no empty date column
  const omit = call.query?.aggregateData === true ? ['date'] : [];
  const printer = new Printer(endpoint, g.output, io.stdout, true, omit);
  if (!g.all) {
    const page = (await client.request(endpoint.id, call)) as ListPage<unknown>;
    printer.page(page.data);
    printer.end();
    const { next, total } = page.paging.cursors;
    if (page.data.length > 0 && next < total) {
      writeLine(
        io.stderr,
        `tagtrack: ${page.data.length} of ${total} records; more with --cursor ${next} or --all`,
      );
    }
    return;
  }
  const bar = io.stderr.isTTY
    ? new SingleBar({
        stream: io.stderr as NodeJS.WritableStream,
        format: `${endpoint.id} {bar} {value}/{total} records`,
        clearOnComplete: true,
        hideCursor: true,
      })
    : undefined;
  let seen = 0;
  try {
    for await (const page of client.pages(endpoint.id, call)) {
      seen += page.data.length;
      if (bar !== undefined) {
        if (seen === page.data.length) bar.start(page.paging.cursors.total, 0);
        bar.update(Math.min(seen + (g.cursor ?? 0), page.paging.cursors.total));
      }
      printer.page(page.data);
    }
  } finally {
    bar?.stop();
  }
  printer.end();
}

/** The version of this package (its package.json, one level above src/ and dist/). */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

function buildProgram(io: CliIo, run: (action: () => Promise<void>) => void): Command {
  const program = new Command('tagtrack')
    .description(
      'Query the Tag Tracking Reporting API (profile tagtrack/v1).\n' +
        'Credentials: --base-url/--auth-id/--access-key or TAGTRACK_BASE_URL, TAGTRACK_AUTH_ID, TAGTRACK_ACCESS_KEY (flags win).',
    )
    .version(VERSION, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showSuggestionAfterError()
    .option('--base-url <url>', 'base URL of the API')
    .option('--auth-id <id>', 'authentication identifier')
    .option('--access-key <key>', 'access key')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('json'),
    )
    .addOption(
      new Option('--rtn <rtn>', "print the server's own text or html rendering").choices([
        'text',
        'html',
      ]),
    )
    .option('--all', 'follow pagination to the last page')
    .option('--cursor <n>', 'offset of the first record', parseInteger)
    .option(
      '--rate-limit <n>',
      'requests per second (default 1 remote, none local)',
      parseNonNegative,
    )
    .option('--timeout <ms>', 'time limit per request in ms', parseInteger)
    .option('--max-pages <n>', 'most pages --all fetches (default 100000)', parsePositive)
    .option('--max-body-bytes <n>', 'largest response body read (default 32 MiB)', parsePositive)
    .option('--no-validate', 'do not validate responses against the schemas');

  const resources = new Map<string, Command>();
  for (const endpoint of ENDPOINT_LIST) {
    if (endpoint.id === 'stats.teamAlias') continue; // same answer as `stats team`
    const [resource, action] = endpoint.id.split('.') as [string, string];
    let parent = resources.get(resource);
    if (parent === undefined) {
      parent = program.command(resource).description(`${resource} endpoints`);
      resources.set(resource, parent);
    }
    const cmd = parent
      .command(kebab(action), { isDefault: endpoint.id === 'stats.team' })
      .description(`${endpoint.summary} (GET ${endpoint.path})`);
    for (const p of endpoint.pathParams)
      cmd.argument(`<${p}>`, p === 'group' ? 'group id or name' : p);
    for (const q of endpoint.query) {
      const option = queryOption(q, endpoint.requiredQuery.includes(q));
      if (option !== undefined) cmd.addOption(option);
    }
    cmd.action((...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      run(() => callFromCommand(endpoint, self, args.slice(0, endpoint.pathParams.length), io));
    });
  }
  return program;
}

async function callFromCommand(
  endpoint: Endpoint,
  cmd: Command,
  positional: unknown[],
  io: CliIo,
): Promise<void> {
  const g = cmd.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
  const baseUrl = g.baseUrl ?? io.env.TAGTRACK_BASE_URL;
  const authId = g.authId ?? io.env.TAGTRACK_AUTH_ID;
  const accessKey = g.accessKey ?? io.env.TAGTRACK_ACCESS_KEY;
  const missing = [
    baseUrl ? undefined : '--base-url (or TAGTRACK_BASE_URL)',
    authId ? undefined : '--auth-id (or TAGTRACK_AUTH_ID)',
    accessKey ? undefined : '--access-key (or TAGTRACK_ACCESS_KEY)',
  ].filter((x) => x !== undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`);

  const pathParams: Partial<Record<PathParamName, string>> = {};
  endpoint.pathParams.forEach((name, i) => {
    pathParams[name] = String(positional[i]);
  });
  const query: Record<string, string | number | boolean | undefined> = {};
  for (const q of endpoint.query) {
    const key = queryOption(q, false)?.attributeName();
    if (key !== undefined && g[key] !== undefined) query[q] = g[key] as string | boolean;
  }
  if (g.cursor !== undefined) query.cursor = g.cursor;

  let client: TagtrackClient;
  try {
    client = createClient({
      baseUrl: baseUrl!,
      authId: authId!,
      accessKey: accessKey!,
      rateLimit: g.rateLimit,
      timeoutMs: g.timeout,
      maxPages: g.maxPages,
      maxBodyBytes: g.maxBodyBytes,
      validate: g.validate,
      fetch: io.fetch,
      clock: io.clock,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  await runEndpoint(client, endpoint, { pathParams, query }, g, io);
}

/** One line describing an SDK error for the terminal. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    return `${e.statusCode} ${e.error}: ${e.message} (${e.method} ${e.url})`;
  }
  if (e instanceof ResponseValidationError) {
    // a body that is not JSON has no issue: its message keeps the cause
    if (e.issues.length === 0) return `${e.message.split('\n')[0]} (${e.url})`;
    const issue = e.issues[0]?.message;
    return `invalid response at ${e.path === '' ? '(root)' : e.path}${issue ? `: ${issue}` : ''} (${e.url})`;
  }
  if (e instanceof Error) return e.message.split('\n')[0]!;
  return String(e);
}

/**
 * Runs the CLI on `argv` (the arguments after the program name, e.g.
 * `['teams', 'list', '--type', 'manager']`) and resolves the exit code: 0 success, 1 an API,
 * network, timeout or response error (one line `tagtrack: ...` on stderr), 2 a usage error
 * (unknown command or option, bad value, missing credentials).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let pending: Promise<void> | undefined;
  const program = buildProgram(io, (action) => {
    pending = action();
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (pending === undefined) {
      // a resource without an action: show its help, a usage error
      program.outputHelp({ error: true });
      return 2;
    }
    await pending;
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version succeed; help shown for a missing subcommand is a usage error
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      return 2;
    }
    if (e instanceof UsageError || e instanceof InvalidArgumentError) {
      writeLine(io.stderr, `error: ${e.message}`);
      return 2;
    }
    if (e instanceof TagtrackError) {
      writeLine(io.stderr, `tagtrack: ${describeError(e)}`);
      return 1;
    }
    writeLine(io.stderr, `tagtrack: unexpected error: ${describeError(e)}`);
    return 1;
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** Runs the CLI on the process's arguments and sets the exit code. */
export async function main(): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}

if (isMain()) await main();
