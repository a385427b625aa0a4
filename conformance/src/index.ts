export { CheckContext, type EachOptions, LOOP_BATCH } from './check/context.ts';
export {
  type Coverage,
  coverageWords,
  DEFAULT_MAX_CALLERS,
  DEFAULT_SAMPLE_ABOVE,
} from './check/coverage.ts';
export {
  AREA_PRIORITY,
  AREA_TITLES,
  AREAS,
  type Area,
  areaOf,
  type Check,
  type CheckArea,
  type CheckEnv,
  type CheckSpec,
  defineCheck,
  FORMER_AREAS,
  type Oracle,
  type Prefix,
  priorityOf,
  type RequirementId,
  type SuiteCredential,
} from './check/define.ts';
export {
  ensure,
  FAILURE_KINDS,
  type Failure,
  type FailureKind,
  SkipCheck,
  Violation,
} from './check/failure.ts';
export {
  DATA_MODES,
  type DataMode,
  DEFAULT_ATTEMPTS,
  readWatermarks,
  type Watermark,
  type Watermarks,
  watermarkMove,
} from './check/watermark.ts';
/** The built-in checks, in run order: `runConformance({ checks: [...builtInChecks, mine] })`. */
export { ALL_CHECKS, ALL_CHECKS as builtInChecks, CHECK_MODULES } from './checks/index.ts';
export { CANONICAL_PROFILE_FILE, EXIT, main } from './cli.ts';
export { type CompareOptions, type Difference, differences } from './diff/compare.ts';
export { type DiffOptions, type DiffResult, runDiff } from './diff/differential.ts';
export {
  type Observation,
  observe,
  type ReceivedResponse,
  type SideContext,
} from './diff/observe.ts';
export {
  ConnectionError,
  type Credential,
  type Exchange,
  type FetchLike,
  HttpClient,
  type RequestSpec,
} from './http/client.ts';
export { canonicalProfile } from './profile/fixtures.ts';
export {
  loadProfile,
  Profile,
  ProfileCredential,
  ProfileError,
  type ProfileInput,
  ProfileRateLimit,
  parseProfile,
} from './profile/profile.ts';
export {
  formatSummary,
  type Har,
  progressReporter,
  ResultsJson,
  toHar,
  toHtml,
  toJUnit,
  toMarkdown,
  toResultsJson,
  type Verdict,
  verdictOf,
  writeHar,
  writeReports,
} from './report/index.ts';
export { type DataReport, DataWatch } from './run/attempt.ts';
export { ChecksError, loadChecks, validateChecks } from './run/custom-checks.ts';
export {
  ExpectedFailure,
  ExpectedFailuresError,
  ExpectedFailuresFile,
  loadExpectedFailures,
} from './run/expected-failures.ts';
export {
  type CheckResult,
  type CheckStatus,
  ConfigError,
  DEFAULT_CONCURRENCY,
  DEFAULT_NUM_RUNS,
  defaultConcurrency,
  matchesOnly,
  matchesPattern,
  PreflightError,
  type RunEvent,
  type RunOptions,
  type RunResult,
  runConformance,
  STATUS_ORDER,
  selectChecks,
  splitPatterns,
} from './run/runner.ts';
