/**
 * Variants: named, deliberate choices among the freedoms the `tagtrack/v1` profile grants
 * (docs/spec.md, the *free* clauses and the profile options). Unlike a fault, a variant stays
 * inside the profile, so the conformance suite must pass every one of them. Each variant is
 * implemented in the layer where an independent implementation would make that choice:
 * `render` (bodies and Content-Type), `transport` (the HTTP layer over a socket), `store`
 * (the records before paging and rendering), `paging` (the cursor arithmetic of the pages),
 * or `options` (a profile option of the server). A variant with a `revision` keeps a rule of
 * an older profile revision (spec §12): it conforms only under a profile pinned to it.
 */
import type { PagingEnd } from '@tagtrack/core';

/** Server options a variant sets (and the suite's profile must declare alike). */
export interface VariantServerOptions {
  readonly pageSize?: number;
  readonly pagingEnd?: PagingEnd;
  readonly memberWithoutGroup?: 'omit' | 'empty';
}

/** One variant: a freedom of the profile, taken one way. */
export interface VariantInfo {
  readonly name: string;
  /** What the server does differently, observably. */
  readonly description: string;
  /** The clause of docs/spec.md that grants the freedom, e.g. `spec §8 Revision 2`. */
  readonly freedom: string;
  /** The server layer the variant lives in. */
  readonly layer: 'render' | 'transport' | 'store' | 'paging' | 'options';
  /**
   * Set on an old rule kept as a variant: the profile revision it conforms to (spec §12). It
   * passes a profile pinned to that revision and fails the next one, so the variant matrix
   * and the diff audits (which hold the current revision) leave it out.
   */
  readonly revision?: number;
  /** Only observable over a real socket (not through the in-memory `fetch`). */
  readonly transport: boolean;
  /**
   * Profile fields the conformance suite must use against a server with this variant; a
   * `revision` marks an old rule kept as a variant: it passes under that revision and fails
   * under the next (spec §12).
   */
  readonly profile?: Readonly<Record<string, unknown>>;
  /** Server options the variant sets (applied by `createServer`). */
  readonly server?: VariantServerOptions;
}

/** Every variant of the reference server, declared once. */
export const VARIANTS = [
  {
    name: 'json-keys-shuffled',
    description:
      'every JSON object (envelope, paging, records, errors) lists its keys in reverse order',
    freedom: 'spec introduction (JSON compared by value) and §5',
    layer: 'render',
    transport: false,
  },
  {
    name: 'json-pretty',
    description: 'JSON bodies are indented by two spaces and end with a newline',
    freedom: 'spec introduction (whitespace does not matter)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'json-unicode-escapes',
    description: "JSON strings write every non-ASCII character and < > & ' as \\uXXXX and / as \\/",
    freedom: 'spec introduction (\\u escapes do not matter)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'gzip',
    description: 'bodies are gzip-compressed when the request accepts gzip (Accept-Encoding)',
    freedom: 'spec §8 Revision 2 (transfer details: gzip/deflate when asked)',
    layer: 'transport',
    transport: true,
  },
  {
    name: 'deflate',
    description:
      'bodies are deflate-compressed (zlib format) when the request accepts deflate (Accept-Encoding)',
    freedom: 'spec §8 Revision 2 (transfer details: gzip/deflate when asked)',
    layer: 'transport',
    transport: true,
  },
  {
    name: 'chunked',
    description: 'bodies are sent with Transfer-Encoding: chunked, without Content-Length',
    freedom: 'spec §8 Revision 2 (transfer details: chunked or not)',
    layer: 'transport',
    transport: true,
  },
  {
    name: 'connection-close',
    description: 'every response carries Connection: close and the connection is closed after it',
    freedom: 'spec §8 Revision 2 (transfer details: keep-alive or not)',
    layer: 'transport',
    transport: true,
  },
  {
    name: 'reason-phrase',
    description: 'the status line carries a non-standard reason phrase (e.g. "200 Here You Go")',
    freedom: 'spec §8 Revision 2 (transfer details: the reason phrase)',
    layer: 'transport',
    transport: true,
  },
  {
    name: 'extra-headers',
    description:
      'every response carries extra headers (Cache-Control, X-Content-Type-Options, X-Powered-By, X-Tagtrack-Revision), and a 204 no Content-Type',
    freedom:
      'spec §8 Revision 2 (transfer details: extra response headers), §3 Revision 2 (a 204 fixes only X-Total-Count and Link)',
    layer: 'transport',
    transport: false,
  },
  {
    name: 'content-type-params',
    description:
      'Content-Type carries an extra parameter and the charset in another spelling, e.g. application/json; version="1"; Charset=UTF-8',
    freedom: 'spec §8 Revision 2 (charset=utf-8 in any case; other parameters free)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'columns-reordered',
    description: 'text and html columns come in reverse order',
    freedom: 'spec §8 Revision 2 (column order free)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'empty-columns-dropped',
    description:
      'text and html leave out every column that is empty in all rows of the page (e.g. groupID, or date when aggregated)',
    freedom: 'spec §8 Revision 2 (a field absent from every record: empty column or no column)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'html-no-thead',
    description: 'the html header row is a plain first <tr> of <th> cells, without <thead>/<tbody>',
    freedom: 'spec §8 Revision 2 (header row in a <thead> or not)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'html-http-equiv-charset',
    description:
      'html declares its charset with <meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
    freedom: 'spec §8 Revision 2 (meta charset or http-equiv)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'html-no-charset-meta',
    description: 'html has no charset declaration; the Content-Type carries charset=utf-8',
    freedom: 'spec §8 Revision 2 (declaration optional when the Content-Type has the charset)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'html-alternative-markup',
    description:
      'html uses numeric entities (&#60; &#x…;), attributes, indentation between tags, a lowercase doctype and extra markup (heading, paragraph, footer) outside the table',
    freedom: 'spec §8 Revision 2 (entity forms, attributes, whitespace, markup outside the table)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'fractional-seconds',
    description:
      'every timestamp carries fractional seconds, .000Z (the same instant): dateSent, dateLastSent, openDate, clickDate',
    freedom: 'spec §9 Revision 2 (fractional seconds allowed, compared as instants)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'extra-fields',
    description:
      'every record carries two extra fields, object (the record kind) and revision (2), also as extra text/html columns',
    freedom: 'spec §9 Revision 2 (records may carry extra fields)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'contact-ids-alternative',
    description:
      'contact ids are "c-" + 22 base64url characters of SHA-256(normalised email), in contactID (15, 16, 17) and recipient.recipientID (9, 11); /contacts/{id} accepts only these',
    freedom: 'spec §9 Revision 2 (contact ids implementation-defined)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'event-ties-reversed',
    description:
      'events of one tag with the same timestamp come in reverse order (10, 12 and inside the groups of 9, 11); the canonical dataset has no such ties',
    freedom: 'spec §5 Revision 2 (events with the same timestamp in any order)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'event-recipient-email-stored',
    description:
      "an event's recipient.email (9, 11) is the tag's stored spelling of that recipient entry (e.g. upper case, surrounding spaces), not the normalised email",
    freedom: 'spec §9 Revision 3 (the email form of an event recipient is free)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'event-recipient-email-as-sent',
    description:
      "an event's recipient.email (9, 11) is the event's own spelling in the event log, not the normalised email",
    freedom: 'spec §9 Revision 3 (the email form of an event recipient is free)',
    layer: 'store',
    transport: false,
  },
  {
    name: 'paging-path-canonical',
    description:
      'nextURL, previousURL and the Link targets carry the canonical form of the request path (segments decoded and re-encoded: /%74eams/tags links to /teams/tags), not the path as received',
    freedom: 'spec §5 Revision 3 (the path of the paging URLs is free between the two forms)',
    layer: 'render',
    transport: false,
  },
  {
    name: 'paging-query-empty-pieces-dropped',
    description:
      'nextURL, previousURL and the Link targets leave out the empty pieces of the request query (rtn=json&& links to rtn=json&cursor=250), not kept as received',
    freedom:
      'spec §5 Revision 3 addendum (empty pieces of the query are no parameters: a paging URL may keep or drop them)',
    layer: 'paging',
    transport: false,
  },
  {
    name: 'huge-cursor-clamp',
    description:
      'a cursor above 2^53 − 1 is read as 2^53 − 1, as Revision 2 stated it: past the end, previous, previousURL and Link rel="prev" at 9007199254740991 − pageSize (cursor=99999999999999999999 links to cursor=9007199254740741)',
    freedom:
      'spec introduction (revisions a vendor can pin): the rule of Revision 2, changed in Revision 3 to exact arithmetic (spec §12); conforming only under a profile pinned to revision 2',
    layer: 'paging',
    transport: false,
    revision: 2,
    profile: { revision: 2 },
  },
  {
    name: 'empty-page',
    description:
      'paging end option empty-page: nextURL null on the last page, 200 with data [] past the end',
    freedom: 'spec §5 Revision 2 (option pagingEnd)',
    layer: 'options',
    transport: false,
    profile: { pagingEnd: 'empty-page' },
    server: { pagingEnd: 'empty-page' },
  },
  {
    name: 'page-size-7',
    description: 'page size option: 7 records per page',
    freedom: 'spec §5 (option page size)',
    layer: 'options',
    transport: false,
    profile: { pageSize: 7 },
    server: { pageSize: 7 },
  },
  {
    name: 'member-without-group-empty',
    description: 'members without a group carry groupID and groupName as empty strings',
    freedom: 'spec §9 (option: empty strings)',
    layer: 'options',
    transport: false,
    profile: { memberWithoutGroup: 'empty' },
    server: { memberWithoutGroup: 'empty' },
  },
] as const satisfies readonly VariantInfo[];

/** One variant's name. */
export type VariantName = (typeof VARIANTS)[number]['name'];

/** Names of every variant, in {@link VARIANTS} order. */
export const VARIANT_NAMES: readonly VariantName[] = VARIANTS.map((v) => v.name);

/** Whether `name` is a variant name. */
export function isVariantName(name: string): name is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(name);
}

/** The declaration of variant `name`. */
export function variantInfo(name: VariantName): VariantInfo {
  return VARIANTS.find((v) => v.name === name)!;
}

/** The set of active variants, with a cheap membership test. */
export class VariantSet {
  readonly #active: ReadonlySet<VariantName>;
  constructor(variants: readonly VariantName[] = []) {
    for (const v of variants) {
      if (!isVariantName(v)) {
        throw new Error(
          `unknown variant '${String(v)}'; known variants: ${VARIANT_NAMES.join(', ')}`,
        );
      }
    }
    this.#active = new Set(variants);
  }
  /** Whether variant `name` is on. */
  has(name: VariantName): boolean {
    return this.#active.has(name);
  }
  /** Whether any of `names` is on. */
  hasAny(names: readonly VariantName[]): boolean {
    return names.some((n) => this.#active.has(n));
  }
  /** The active variants, in {@link VARIANT_NAMES} order. */
  list(): VariantName[] {
    return VARIANT_NAMES.filter((v) => this.#active.has(v));
  }
}
