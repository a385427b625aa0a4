import { readFileSync } from 'node:fs';
import { createServer, FAULTS } from '@tagtrack/server';
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../src/checks/index.ts';
import { runConformance } from '../src/run/runner.ts';
import {
  blindDeclaredExceptions,
  declaredFor,
  FAULT_PARTS,
  faultsOfPart,
  idsOf,
  NUM_RUNS,
  problems,
  SEEDS,
} from './fault-matrix.ts';
import { MEMORY_BASE_URL, profileFor, team1Admin } from './helpers.ts';

/**
 * The declarations of the fault matrix (see fault-matrix.ts): what each fault declares is a
 * requirement of the suite, and the unfaulted server passes them all; the matrix itself runs
 * in faults-1.test.ts to faults-N.test.ts, which this file checks take every fault once.
 */

const KNOWN = new Set(ALL_CHECKS.map((c) => c.id));

/**
 * The faults fixture mode catches and blind mode with the canonical profile's twelve
 * credentials cannot (`blindDeclared: { unobservable }`), by name: none so far.
 */
const BLIND_DECLARED_EXCEPTIONS: readonly string[] = [];

describe('fault matrix declarations', () => {
  test('every declared id names a requirement of the suite', () => {
    const unknown = FAULTS.flatMap((f) =>
      [
        ...f.detectedBy,
        ...idsOf(declaredFor(f, 'blind')),
        ...idsOf(declaredFor(f, 'blind-declared')),
      ]
        .filter((id) => !KNOWN.has(id))
        .map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  test('blind mode with every canonical credential declared catches every fault that fixture mode catches, or the fault says why no credential can observe it', () => {
    for (const f of FAULTS) {
      const declared = declaredFor(f, 'blind-declared');
      if ('unobservable' in declared)
        expect(declared.unobservable.length, f.name).toBeGreaterThan(20);
      else expect(declared.length, f.name).toBeGreaterThan(0);
    }
    // the exceptions, listed with their reasons (docs/conformance.md and the matrix say so)
    expect(blindDeclaredExceptions().map((e) => e.name)).toEqual(BLIND_DECLARED_EXCEPTIONS);
  });

  test('at least 60 faults, each with a fixture-mode detection', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(60);
    expect(
      FAULTS.filter((f) => (f.detectedBy as readonly string[]).length === 0).map((f) => f.name),
    ).toEqual([]);
  });

  test('the unfaulted server passes every declared requirement in both modes (page size 40)', async () => {
    const only = [
      ...new Set(FAULTS.flatMap((f) => [...f.detectedBy, ...idsOf(declaredFor(f, 'blind'))])),
    ].join(',');
    const declaredOnly = [
      ...new Set(FAULTS.flatMap((f) => idsOf(declaredFor(f, 'blind-declared')))),
    ].join(',');
    const server = createServer({ publicUrl: MEMORY_BASE_URL, pageSize: 40 });
    try {
      const runs = await Promise.all([
        ...(['fixture', 'blind'] as const).map((mode) =>
          runConformance({
            baseUrl: MEMORY_BASE_URL,
            fetch: (r) => server.fetch(r),
            profile: profileFor({ pageSize: 40 }),
            mode,
            seed: SEEDS[0],
            numRuns: NUM_RUNS,
            only,
            ...(mode === 'blind'
              ? { authId: team1Admin.authId, accessKey: team1Admin.accessKey }
              : {}),
          }),
        ),
        // blind mode with the twelve canonical credentials declared
        runConformance({
          baseUrl: MEMORY_BASE_URL,
          fetch: (r) => server.fetch(r),
          profile: profileFor({ pageSize: 40 }),
          mode: 'blind',
          seed: SEEDS[0],
          numRuns: NUM_RUNS,
          only: declaredOnly,
        }),
      ]);
      expect(runs.flatMap((r) => problems(r).map((p) => `${r.mode} ${p}`))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 600_000);

  test('the files of the fault matrix take every fault once', () => {
    const taken = Array.from({ length: FAULT_PARTS }, (_, i) => {
      const file = new URL(`./faults-${i + 1}.test.ts`, import.meta.url);
      // the file exists and declares its part
      expect(readFileSync(file, 'utf8')).toContain(`describeFaults(${i + 1});`);
      return faultsOfPart(i + 1).map((f) => f.name);
    }).flat();
    expect(taken.sort()).toEqual(FAULTS.map((f) => f.name).sort());
    expect(new Set(taken).size).toBe(FAULTS.length);
  });
});
