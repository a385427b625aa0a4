/** Types of annotate.mjs (the GitHub Action's annotation step), for its tests. */

/** The fields of results.json (conformance's `ResultsJson`) the script reads. */
export interface AnnotatedResults {
  suite: string;
  ok?: boolean | undefined;
  mode?: string | undefined;
  seed?: number | undefined;
  profile?: { name?: string | undefined } | undefined;
  requests?: { sent?: number | undefined } | undefined;
  summary: {
    pass: number;
    fail: number;
    error: number;
    skip: number;
    expectedFailures?: number | undefined;
  };
  staleExpectedFailures?: string[] | undefined;
  interrupted?: string | undefined;
  checks: {
    id: string;
    status: string;
    title?: string | undefined;
    clause?: string | undefined;
    seed?: number | undefined;
    reason?: string | undefined;
    expectedFailure?: string | undefined;
    failures: {
      message: string;
      expected?: string | undefined;
      actual?: string | undefined;
      reproduce?: string | undefined;
      repeats?: number | undefined;
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
