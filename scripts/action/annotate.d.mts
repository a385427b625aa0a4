/** Types of annotate.mjs (the GitHub Action's annotation step), for its tests. */

/** The fields of results.json (conformance's `ResultsJson`) the script reads. */
export interface AnnotatedResults {
  suite: string;
  ok?: boolean;
  mode?: string;
  seed?: number;
  profile?: { name?: string };
  requests?: { sent?: number };
  summary: { pass: number; fail: number; error: number; skip: number; expectedFailures?: number };
  staleExpectedFailures?: string[];
  interrupted?: string;
  checks: {
    id: string;
    status: string;
    title?: string;
    clause?: string;
    seed?: number;
    reason?: string;
    expectedFailure?: string;
    failures: {
      message: string;
      expected?: string;
      actual?: string;
      reproduce?: string;
      repeats?: number;
    }[];
  }[];
}

export const MAX_ANNOTATIONS: number;
export function escapeData(text: string): string;
export function escapeProperty(text: string): string;
export function assertResults(value: unknown): asserts value is AnnotatedResults;
export function failingChecks(results: AnnotatedResults): AnnotatedResults['checks'];
export function annotations(results: AnnotatedResults): string[];
export function stepSummary(results: AnnotatedResults): string;
