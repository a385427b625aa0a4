export { type DataReport, DataWatch } from './attempt.ts';
export { CheckContext, type EachOptions, LOOP_BATCH } from './checks/context.ts';
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
} from './checks/define.ts';
export {
  ensure,
  FAILURE_KINDS,
  type Failure,
  type FailureKind,
  SkipCheck,
  Violation,
} from './checks/failure.ts';
/** The built-in checks, in run order: `runConformance({ checks: [...builtInChecks, mine] })`. */
export { ALL_CHECKS, ALL_CHECKS as builtInChecks, CHECK_MODULES } from './checks/index.ts';
export { CANONICAL_PROFILE_FILE, EXIT, main } from './cli.ts';
export { ChecksError, loadChecks, validateChecks } from './custom-checks.ts';
export { type CompareOptions, type Difference, differences } from './diff/compare.ts';
export {
  type Observation,
  observe,
  type ReceivedResponse,
  type SideContext,
} from './diff/observe.ts';
export { type DiffOptions, type DiffResult, runDiff } from './diff/run.ts';
export {
  ExpectedFailure,
  ExpectedFailuresError,
  ExpectedFailuresFile,
  loadExpectedFailures,
} from './expected-failures.ts';
export { canonicalProfile } from './fixtures.ts';
export {
  ConnectionError,
  type Credential,
  type Exchange,
  type FetchLike,
  HttpClient,
  type RequestSpec,
} from './http.ts';
export {
  loadProfile,
  Profile,
  ProfileCredential,
  ProfileError,
  type ProfileInput,
  ProfileRateLimit,
  parseProfile,
} from './profile.ts';
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
} from './reporters/index.ts';
export {
  type CheckResult,
  type CheckStatus,
  ConfigError,
  DEFAULT_CONCURRENCY,
  DEFAULT_NUM_RUNS,
  defaultConcurrency,
  matchesOnly,
  matchesPattern,
  type RunEvent,
  type RunOptions,
  type RunResult,
  runConformance,
  STATUS_ORDER,
  selectChecks,
  splitPatterns,
} from './runner.ts';
export {
  DATA_MODES,
  type DataMode,
  DEFAULT_ATTEMPTS,
  readWatermarks,
  type Watermark,
  type Watermarks,
  watermarkMove,
} from './watermark.ts';
