export {
  AREAS,
  type Area,
  type Check,
  CheckContext,
  type CheckEnv,
  defineCheck,
  ensure,
  type Failure,
  type Oracle,
  SkipCheck,
  type SuiteCredential,
  Violation,
} from './checks/api.ts';
export { ALL_CHECKS } from './checks/index.ts';
export { CANONICAL_PROFILE_FILE, EXIT, main } from './cli.ts';
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
  progressReporter,
  ResultsJson,
  toHtml,
  toJUnit,
  toResultsJson,
  writeReports,
} from './reporters/index.ts';
export {
  type CheckResult,
  type CheckStatus,
  ConfigError,
  DEFAULT_NUM_RUNS,
  matchesOnly,
  type RunEvent,
  type RunOptions,
  type RunResult,
  runConformance,
  STATUS_ORDER,
} from './runner.ts';
