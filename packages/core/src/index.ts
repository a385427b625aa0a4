export { type BuildIndexOptions, buildIndex } from './aggregate/build.ts';
export { contactIdOf } from './aggregate/contact-id.ts';
export {
  canonicalTimestamp,
  compareMembers,
  compareStrings,
  compareTags,
  contactOf,
  type DeviceClass,
  dailyCounts,
  dailyStatsOfTags,
  deviceClass,
  distinctRecipients,
  inDayWindow,
  type MemberWithoutGroup,
  matchesTagFilters,
  renderMember,
  resolveGroup,
  statsOfTags,
  tagCounters,
  visibleGroups,
  visibleMemberIDs,
  windowBounds,
  zeroCounters,
} from './aggregate/rules.ts';
export { dayNumber, dayString, daysFromCivil, parseTimestampMs } from './aggregate/time.ts';
export type {
  Answer,
  Caller,
  DayWindow,
  EndpointRequest,
  ReportingIndex,
  StatsQuery,
  StatsSubject,
  TagFilters,
  TagQuery,
} from './aggregate/types.ts';
export { DatasetError, validateDataset } from './aggregate/validate.ts';
export { Contact, ContactStats } from './contact.ts';
export {
  CANONICAL_SCALE,
  CANONICAL_SEED,
  expectedEvents,
  type GenerateOptions,
  generateDataset,
  MAX_CLICKS_PER_RECIPIENT,
  MAX_EVENT_DELAY_DAYS,
  MAX_OPENS_PER_RECIPIENT,
  resolveScale,
  SCALE_NAMES,
  SCALES,
  Scale,
  type ScaleName,
  scaleForEvents,
} from './dataset/generate.ts';
export {
  AGENTS,
  type Agent,
  type GeoLocation,
  LOCATIONS,
  PROXY_LOCATION,
} from './dataset/locations.ts';
export {
  Dataset,
  DatasetCredential,
  DatasetEvent,
  DatasetMember,
  DatasetTag,
  DatasetTeam,
  normaliseEmail,
} from './dataset/schema.ts';
export {
  buildPath,
  ENDPOINT_IDS,
  ENDPOINTS,
  type Endpoint,
  type EndpointId,
  type EndpointMatch,
  endpointById,
  envelopeSchema,
  matchEndpoint,
  type PathParamName,
  type Scoping,
} from './endpoints.ts';
export {
  AuthError,
  type AuthErrorCode,
  ErrorBody,
  errorBody,
  QueryParamError,
  type QueryParamErrorCode,
  REASON_PHRASES,
} from './errors.ts';
export {
  Click,
  ClickDetails,
  ClickGroup,
  DailyCounts,
  Device,
  EventLocation,
  EventRecipient,
  Open,
  OpenDetails,
  OpenGroup,
} from './events.ts';
export {
  CONTENT_TYPES,
  type CompareTablesOptions,
  charsetOf,
  compareTables,
  contentTypeMatches,
  escapeTextCell,
  FormatParseError,
  htmlDocumentProblems,
  parseHtml,
  parseText,
  renderBody,
  renderHtml,
  renderText,
  type Table,
  tableColumns,
  tableToRecords,
  toTable,
  unescapeTextCell,
} from './formats.ts';
export { AccountType, Group, TeamMember } from './member.ts';
export { type OpenApiOptions, openApiDocument } from './openapi.ts';
export {
  DEFAULT_PAGE_SIZE,
  DEFAULT_PAGING_END,
  ListEnvelope,
  type Page,
  Paging,
  PagingEnd,
  pageOf,
  pagingOf,
  queryWithCursor,
  SingleEnvelope,
} from './paging.ts';
export {
  BooleanParam,
  COMMON_PARAMS,
  CursorParam,
  defaultQueryParams,
  IGNORED_PARAMS,
  PARAM_NAMES,
  PARAMS,
  type ParamName,
  type ParamSpec,
  type ParseQueryOptions,
  parseQuery,
  type QueryParams,
  Rtn,
  TAG_FILTER_PARAMS,
} from './params.ts';
export {
  authorizationHeader,
  BAD_CREDENTIALS_MESSAGE,
  buildQueryString,
  constantTimeEqual,
  type ParsedAuthorization,
  parseAuthorization,
  signableForms,
  signQuery,
  verifySignature,
} from './signing.ts';
export { SIGNING_VECTORS, type SigningVector } from './signing-vectors.ts';
export {
  emptyStats,
  mergeAllStats,
  mergeStats,
  STATS_COUNTER_FIELDS,
  StatsSummary,
} from './stats.ts';
export { Recipient, TAG_COUNTER_FIELDS, Tag, TagCounters } from './tag.ts';
export {
  CalendarDate,
  Counter,
  DAY_MS,
  dayStartMs,
  formatTimestamp,
  Id,
  Latitude,
  Longitude,
  ReferenceId,
  Timestamp,
  utcDay,
} from './values.ts';
