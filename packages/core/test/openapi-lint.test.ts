import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/openapi.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');
const OPENAPI = fileURLToPath(new URL('../openapi.json', import.meta.url));

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/** Runs `redocly lint` (the repository's redocly.yaml: recommended rules) on `file`. */
function lint(
  file: string,
): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(REDOCLY, ['lint', '--format=json', '--max-problems=1000', file], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`redocly lint exited ${code} without a JSON report: ${stderr}`));
      }
    });
  });
}

const summary = (problems: Problem[]) =>
  problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);

describe('openapi.json under redocly lint (recommended rules)', { timeout: 120_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tagtrack-openapi-lint-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the committed openapi.json is the generated document', async () => {
    expect(JSON.parse(await readFile(OPENAPI, 'utf8'))).toEqual(openApiDocument());
  });

  it('has 0 errors and 0 warnings', async () => {
    const report = await lint(OPENAPI);
    expect(summary(report.problems)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('reports a warning for a tag without a description, so the check above can fail', async () => {
    const broken = openApiDocument() as { tags: { name: string; description?: string }[] };
    delete broken.tags[0]!.description;
    const file = join(dir, 'broken.json');
    await writeFile(file, JSON.stringify(broken));
    const report = await lint(file);
    expect(report.totals.warnings).toBe(1);
    expect(report.problems.map((p) => p.ruleId)).toEqual(['tag-description']);
  });
});

describe('field descriptions of the record schemas (from the zod schemas)', () => {
  // biome-ignore lint/suspicious/noExplicitAny: walks a plain JSON document
  const schemas = (openApiDocument() as any).components.schemas as Record<string, any>;
  const RECORDS = [
    'TeamMember',
    'Tag',
    'Recipient',
    'TagCounters',
    'StatsSummary',
    'ClickDetails',
    'OpenDetails',
    'Click',
    'Open',
    'EventRecipient',
    'ClickGroup',
    'OpenGroup',
    'DailyCounts',
    'Contact',
    'ContactStats',
    'Paging',
  ];
  /** The description of a property: its own, or the one of the component it references. */
  // biome-ignore lint/suspicious/noExplicitAny: a JSON Schema node
  const describedBy = (property: any): string | undefined =>
    property.description ??
    (typeof property.$ref === 'string'
      ? schemas[property.$ref.split('/').pop()]?.description
      : undefined);

  it('every field of every record schema has a description', () => {
    const missing = RECORDS.flatMap((id) =>
      Object.entries(schemas[id].properties as Record<string, unknown>)
        .filter(([, property]) => !describedBy(property))
        .map(([name]) => `${id}.${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('every counter (integer field) says what it counts and cites a law id', () => {
    const counters = RECORDS.flatMap((id) =>
      // biome-ignore lint/suspicious/noExplicitAny: a JSON Schema node
      Object.entries(schemas[id].properties as Record<string, any>)
        .filter(([, property]) => property.type === 'integer')
        .map(([name, property]) => [`${id}.${name}`, property.description as string] as const),
    );
    expect(counters.length).toBeGreaterThanOrEqual(24);
    const uncited = counters
      .filter(([, description]) => !/\blaws? [A-Z]+-[A-Z-]+/.test(description))
      .map(([name]) => name);
    expect(uncited).toEqual([]);
    expect(schemas.TagCounters.properties.uniqueOpens.description).toMatch(
      /^Distinct recipients with at least one open of the tag.*REL-TAG-COUNTERS-EVENTS/,
    );
  });
});
