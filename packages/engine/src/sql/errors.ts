/** What is wrong with the database an SQL engine was given (each a configuration error). */
export type SqlEngineErrorCode =
  | 'bad_url'
  | 'unreachable'
  | 'missing_tables'
  | 'schema_version'
  | 'load_failed'
  | 'invalid_data'
  | 'append_failed'
  | 'read_only';

/**
 * A database the SQL engine cannot serve from, as one line naming it: a URL that is not a
 * PostgreSQL URL, a server that does not answer or refuses the login, a table or column of
 * the dataset's schema that is missing, tagtrack objects of another version, a dataset
 * that could not be loaded, records that could not be appended (`append_failed`), data that
 * breaks a rule of spec §10 the tables cannot state (an event of an email that is not a
 * recipient of its tag, or dated before it), or a read-only standby asked to load or whose
 * primary never installed the tagtrack objects (`read_only`). The message never holds the
 * URL's password.
 */
export class SqlEngineError extends Error {
  override readonly name = 'SqlEngineError';
  constructor(
    readonly code: SqlEngineErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `url` with its password replaced by `***` (for messages); unparsable URLs are cut to the scheme. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.href;
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme === undefined ? '(not a URL)' : `${scheme}…`;
  }
}
