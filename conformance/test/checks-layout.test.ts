import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { AREAS, areaOf, FORMER_AREAS } from '../src/check/define.ts';
import { ALL_CHECKS, CHECK_MODULES } from '../src/checks/index.ts';
import { matchesOnly } from '../src/run/runner.ts';

/**
 * Checks are findable by name: a requirement id's prefix names its area, and the area names
 * the file (`checks/<area>.ts`) or folder (`checks/<area>/`) that defines it. One mapping,
 * prefix -> area -> file, for every check.
 */
const CHECKS_DIR = fileURLToPath(new URL('../src/checks/', import.meta.url));

/** The check-writing API (`check/`): files that define no check. */
const CHECK_API_DIR = fileURLToPath(new URL('../src/check/', import.meta.url));

type Module = { prefix?: unknown; checks?: readonly { id: string; area: string }[] };

const load = (path: string) => import(path) as Promise<Module>;

/** The module of an area: its file, or its folder's index.ts (exactly one exists). */
function modulePath(area: string): string {
  const file = join(CHECKS_DIR, `${area}.ts`);
  const folder = join(CHECKS_DIR, area, 'index.ts');
  expect(existsSync(file) !== existsSync(folder), `${area}: a file or a folder, not both`).toBe(
    true,
  );
  return existsSync(file) ? file : folder;
}

describe('prefix -> area -> file', () => {
  test.each([...AREAS])(
    'area %s: its module exports its prefix, and all its checks, nothing else',
    async (area) => {
      const mod = await load(modulePath(area));
      expect(mod.prefix).toBe(area.toUpperCase());
      expect(CHECK_MODULES).toContain(mod);
      expect(mod.checks!.length).toBeGreaterThan(0);
      for (const c of mod.checks!) {
        expect(c.id.startsWith(`${mod.prefix}-`), c.id).toBe(true);
        expect(c.area, c.id).toBe(area);
        expect(areaOf(c.id), c.id).toBe(area);
      }
      expect(ALL_CHECKS.filter((c) => c.area === area)).toEqual(mod.checks);
    },
  );

  test.each(AREAS.filter((a) => existsSync(join(CHECKS_DIR, a))))(
    'folder %s/: every file that defines checks defines checks of its prefix, and index.ts has them all',
    async (area) => {
      const index = await load(join(CHECKS_DIR, area, 'index.ts'));
      const defined: string[] = [];
      for (const name of readdirSync(join(CHECKS_DIR, area))) {
        if (name === 'index.ts' || !name.endsWith('.ts')) continue;
        const mod = await load(join(CHECKS_DIR, area, name));
        for (const c of mod.checks ?? []) {
          expect(c.id.startsWith(`${area.toUpperCase()}-`), `${area}/${name}: ${c.id}`).toBe(true);
          defined.push(c.id);
        }
      }
      expect([...defined].sort()).toEqual(index.checks!.map((c) => c.id).sort());
    },
  );

  test('checks/ holds an area file or folder per area and the registry, nothing else', () => {
    for (const name of readdirSync(CHECKS_DIR)) {
      const path = join(CHECKS_DIR, name);
      if (statSync(path).isDirectory()) {
        expect(AREAS as readonly string[], `folder ${name}/ is no area`).toContain(name);
      } else if (name.endsWith('.ts') && name !== 'index.ts') {
        expect(AREAS as readonly string[], `${name} is no area`).toContain(name.slice(0, -3));
      }
    }
  });

  test('check/, the API a check is written with, defines no check', async () => {
    const files = readdirSync(CHECK_API_DIR, { recursive: true, encoding: 'utf8' });
    for (const name of files.filter((f) => f.endsWith('.ts'))) {
      const mod = await load(join(CHECK_API_DIR, name));
      expect(mod.checks, `check/${name} defines no check`).toBeUndefined();
    }
  });

  test('the registry runs every area once: the modules are the areas, each check in one', () => {
    expect(CHECK_MODULES.map((m) => m.prefix.toLowerCase()).sort()).toEqual([...AREAS].sort());
    expect(ALL_CHECKS).toEqual(CHECK_MODULES.flatMap((m) => m.checks));
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('--only still accepts the area names of 0.1 for what they selected', () => {
    const ids = (only: string) => ALL_CHECKS.filter((c) => matchesOnly(c, only)).map((c) => c.id);
    const inAreas = (...areas: string[]) =>
      ALL_CHECKS.filter((c) => areas.includes(c.area)).map((c) => c.id);
    expect(ids('laws')).toEqual(inAreas('agg'));
    expect(ids('relations')).toEqual(inAreas('rel'));
    expect(ids('pagination')).toEqual(inAreas('page'));
    expect(ids('methods')).toEqual(inAreas('method'));
    expect(ids('input')).toEqual(inAreas('input', 'err'));
    expect(ids('input')).toContain('ERR-BODY-JSON');
    // the new names select their area (and, as substrings, any id containing them)
    for (const area of AREAS) expect(ids(area)).toEqual(expect.arrayContaining(inAreas(area)));
    expect(Object.keys(FORMER_AREAS).every((a) => (AREAS as readonly string[]).includes(a))).toBe(
      true,
    );
  });
});
