import { buildQueryString } from '@tagtrack/core';
import type { ListRequest, PagingLayer } from '../paging.ts';
import { queryEntries } from '../request.ts';
import type { FaultInfo } from './info.ts';

/**
 * Faults of the paging layer: cursors, paging URLs, Link and X-Total-Count (spec §5).
 * One admin credential sees every one of them (its own team's lists page like any other), so
 * none declares `blind`: the blind ids are the fixture ids. `paging-url-drops-prefix` needs a
 * public URL with a path prefix (the fault matrix serves it behind a proxy stripping
 * `/api/v1`). Each wraps the clean `PagingLayer` (paging.ts) and replaces the stage it breaks.
 */
export const PAGING_FAULTS = [
  {
    name: 'page-overlap',
    area: 'paging',
    description: 'next cursor = cursor + pageSize - 1, so pages overlap by one (spec §5)',
    detectedBy: [
      'PAGE-WALK-ONCE',
      'PAGE-CURSOR-ARITHMETIC',
      'PAGE-URLS-KEEP-QUERY',
      'PAGE-WALK-NEXT-URL',
    ],
    wrap: {
      paging: (p) => ({
        ...p,
        cut: (req, cursor, pageSize) => {
          const page = p.cut(req, cursor, pageSize);
          // bug: the next cursor points at the last record of this page (the cursor is below
          // the total here, hence a number)
          return page.hasNext && page.next > Number(page.cursor) + 1
            ? { ...page, next: page.next - 1 }
            : page;
        },
      }),
    },
  },
  {
    name: 'head-total-differs',
    area: 'paging',
    description:
      'HEAD sends an X-Total-Count of the records on the page, not the total GET sends (spec §5, §6)',
    detectedBy: ['REL-HEAD-MATCHES-GET', 'PAGE-HEADERS'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: HEAD counts the page, GET the whole list
        totalCount: (req, page) =>
          req.method === 'HEAD' ? page.records.length : p.totalCount(req, page),
      }),
    },
  },
  {
    name: 'no-content-as-empty-page',
    area: 'paging',
    description:
      'pagingEnd no-content, but past the end answers 200 with data [] instead of 204 (spec §5 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
    wrap: {
      paging: (p) => ({
        ...p,
        cut: (req, cursor, pageSize) => {
          const page = p.cut(req, cursor, pageSize);
          // bug: the empty page is rendered like any other, 200 with data []
          return page.noContent ? { ...page, noContent: false } : page;
        },
      }),
    },
  },
  {
    name: 'no-content-without-headers',
    area: 'paging',
    description: 'the 204 past the end carries neither X-Total-Count nor Link (spec §5 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT', 'PAGE-HEADERS'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: the 204 is sent bare, without X-Total-Count and Link
        headers: (req, page, headers) => (page.noContent ? {} : p.headers(req, page, headers)),
      }),
    },
  },
  {
    name: 'last-page-next-null',
    area: 'paging',
    description:
      'pagingEnd no-content, but the last non-empty page has nextURL null instead of cursor=total (spec §5 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
    wrap: {
      paging: (p) => ({
        ...p,
        cut: (req, cursor, pageSize) => {
          const page = p.cut(req, cursor, pageSize);
          // bug: the "is there a next page" test of empty-page, in the no-content profile
          return req.pagingEnd === 'no-content' && page.hasNext
            ? { ...page, hasNext: Number(page.cursor) + req.pageSize < page.total }
            : page;
        },
      }),
    },
  },
  {
    name: 'paging-url-drops-params',
    area: 'paging',
    description:
      'nextURL/previousURL carry only the cursor, dropping the other query parameters (spec §5 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-TOTAL-NEXT-IGNORED'],
    // bug: the paging URLs keep the cursor alone
    wrap: { paging: (p) => ({ ...p, urlQuery: (_req, cursor) => `cursor=${cursor}` }) },
  },
  {
    name: 'paging-url-sorted-params',
    area: 'paging',
    description:
      'nextURL/previousURL rebuild the query with the parameters sorted by name, re-encoded (spec §5 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-TOTAL-NEXT-IGNORED'],
    wrap: {
      paging: (p) => ({
        ...p,
        urlQuery: (req, cursor) => {
          // bug: the query is rebuilt from the parsed parameters, sorted by name
          const entries = queryEntries(req.target.rawQuery).filter(([k]) => k !== 'cursor');
          entries.push(['cursor', String(cursor)]);
          entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          return buildQueryString(entries);
        },
      }),
    },
  },
  {
    name: 'link-header-missing-text',
    area: 'paging',
    description: 'rtn=text list responses carry no Link header (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'PAGE-END-NO-CONTENT'],
    wrap: { paging: (p) => withoutLink(p, (req) => req.rtn === 'text') },
  },
  {
    name: 'total-count-on-single',
    area: 'paging',
    description: 'single-object responses (3, 14, 16) carry X-Total-Count: 1 (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'PAGE-SINGLE-CURSOR'],
    wrap: {
      // bug: the list's header on a single record
      paging: (p) => ({ ...p, singleHeaders: () => ({ 'X-Total-Count': '1' }) }),
    },
  },
  {
    name: 'head-no-link',
    area: 'paging',
    description: 'HEAD of a list carries no Link header (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'REL-HEAD-MATCHES-GET'],
    wrap: { paging: (p) => withoutLink(p, (req) => req.method === 'HEAD') },
  },
  {
    name: 'previous-url-on-first-page',
    area: 'paging',
    description:
      'previousURL (and Link rel="prev") point at cursor=0 on the first page instead of null (spec §5 Revision 2)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC', 'PAGE-WALK-NEXT-URL'],
    wrap: {
      paging: (p) => ({
        ...p,
        cut: (req, cursor, pageSize) => {
          const page = p.cut(req, cursor, pageSize);
          // bug: previousURL is always set, pointing at cursor 0 on the first page
          return page.hasPrevious ? page : { ...page, hasPrevious: true };
        },
      }),
    },
  },
  {
    name: 'paging-url-from-host',
    area: 'paging',
    description:
      'nextURL, previousURL and Link are built on the request’s X-Forwarded-Host or Host header instead of the configured public URL (spec §5 Revision 2)',
    detectedBy: ['PAGE-URLS-PUBLIC-BASE'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: the request's headers name the base URL instead of the configured public URL
        urlRoot: (req) => hostBase(req) ?? p.urlRoot(req),
      }),
    },
  },
  {
    name: 'next-url-page-aligned',
    area: 'paging',
    description:
      'nextURL and Link rel="next" snap an unaligned cursor to the next page boundary (cursor=3 links to cursor=40, not 43); paging.cursors.next stays right (spec §5 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-WALK-NEXT-URL'],
    wrap: {
      paging: (p) => ({
        ...p,
        paging: (req, page, pageSize, url) => {
          const paging = p.paging(req, page, pageSize, url);
          if (paging.nextURL === null) return paging;
          // bug: the next URL is built from the page number, so an unaligned cursor snaps to
          // the next page boundary (paging.cursors.next stays right)
          const aligned = (Math.floor(Number(page.cursor) / pageSize) + 1) * pageSize;
          return { ...paging, nextURL: url(Math.min(aligned, page.total)) };
        },
      }),
    },
  },
  {
    name: 'previous-url-unclamped',
    area: 'paging',
    description:
      'previousURL and Link rel="prev" point at cursor - pageSize without the clamp at 0 (cursor=3 links to cursor=-37); paging.cursors.previous stays right (spec §5)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS'],
    wrap: {
      paging: (p) => ({
        ...p,
        paging: (req, page, pageSize, url) => {
          const paging = p.paging(req, page, pageSize, url);
          if (paging.previousURL === null) return paging;
          // bug: the previous URL is cursor - pageSize without the clamp at 0 of cursors.previous
          const unclamped =
            typeof page.cursor === 'bigint'
              ? page.cursor - BigInt(pageSize)
              : page.cursor - pageSize;
          return { ...paging, previousURL: url(unclamped) };
        },
      }),
    },
  },
  {
    name: 'prev-cursor-float',
    area: 'paging',
    description:
      'paging.cursors.previous, previousURL and Link rel="prev" computed in float arithmetic, so past a cursor above 2^53 they are off (cursor=99999999999999999999 links to cursor=100000000000000000000, not 99999999999999999749; spec §5 Revision 2: no size limit)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC'],
    wrap: {
      paging: (p) => ({
        ...p,
        cut: (req, cursor, pageSize) => {
          const page = p.cut(req, cursor, pageSize);
          // bug: previous computed in float arithmetic (Number(cursor) - pageSize), which rounds
          // a cursor above 2^53 - 1 to a double: cursor=99999999999999999999 links to
          // cursor=100000000000000000000
          return typeof page.previous === 'bigint'
            ? { ...page, previous: BigInt(Number(page.cursor) - pageSize) }
            : page;
        },
      }),
    },
  },
  {
    name: 'link-next-page-count',
    area: 'paging',
    description:
      'the Link header decides rel="next" from floor(total / pageSize) pages, so the last-but-one page and the last lack it while nextURL is set (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
    wrap: {
      paging: (p) => ({
        ...p,
        linked: (req, page, paging, pageSize) => {
          const linked = p.linked(req, page, paging, pageSize);
          // bug: the Link header's "is there a next page" test counts floor(total / pageSize)
          // pages, so the last-but-one page (and the last) lose rel="next"
          const last = Math.floor(page.total / pageSize) - 1;
          return Math.floor(Number(page.cursor) / pageSize) >= last
            ? { ...linked, nextURL: null }
            : linked;
        },
      }),
    },
  },
  {
    name: 'total-count-counts-header-row',
    area: 'paging',
    description:
      'rtn=text and rtn=html send an X-Total-Count one too high: the table’s header row is counted (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: the table's rows counted, its header row included
        totalCount: (req, page) => (req.rtn !== 'json' ? page.total + 1 : p.totalCount(req, page)),
      }),
    },
  },
  {
    name: 'paging-url-drops-prefix',
    area: 'paging',
    description:
      'nextURL, previousURL and Link resolve the path against the public URL as an absolute path, dropping its path prefix (https://h/api/v1 gives https://h/teams) (spec §5 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY', 'PAGE-HEADERS', 'PAGE-WALK-NEXT-URL'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: the path resolved against the public URL as an absolute path
        // (`new URL('/teams', 'https://h/v1')`), which drops the public URL's prefix
        urlRoot: (req) => new URL(p.urlRoot(req)).origin,
      }),
    },
  },
  {
    name: 'total-param-as-page-size',
    area: 'paging',
    description:
      'a numeric total parameter is read as the page size the client wants, changing data, paging and Link (spec §5 Revision 2: total is ignored)',
    detectedBy: ['PAGE-TOTAL-NEXT-IGNORED', 'INPUT-NEXT-TOTAL-IGNORED'],
    wrap: {
      paging: (p) => ({
        ...p,
        window: (req) => {
          const window = p.window(req);
          const { total } = ignoredParams(req.target.rawQuery);
          // bug: `total` read as how many records the client wants on the page
          return total !== undefined && total > 0 ? { ...window, pageSize: total } : window;
        },
      }),
    },
  },
  {
    name: 'next-param-as-cursor',
    area: 'paging',
    description:
      'a numeric next parameter is read as the cursor when no cursor is sent (the Node client’s option taken for an offset) (spec §5 Revision 2: next is ignored)',
    detectedBy: ['PAGE-TOTAL-NEXT-IGNORED', 'INPUT-NEXT-TOTAL-IGNORED'],
    wrap: {
      paging: (p) => ({
        ...p,
        window: (req) => {
          const window = p.window(req);
          const given = ignoredParams(req.target.rawQuery);
          // bug: `next` (the Node client's option) read as the cursor when no cursor is sent
          return !given.cursor && given.next !== undefined
            ? { ...window, cursor: given.next }
            : window;
        },
      }),
    },
  },
  {
    name: 'head-link-relative',
    area: 'paging',
    description:
      'HEAD of a list sends a Link with relative URLs (path and query only), GET absolute ones (spec §5 Revision 2)',
    detectedBy: ['PAGE-HEADERS', 'REL-HEAD-MATCHES-GET'],
    wrap: {
      paging: (p) => ({
        ...p,
        linked: (req, page, paging, pageSize) => {
          const linked = p.linked(req, page, paging, pageSize);
          if (req.method !== 'HEAD') return linked;
          // bug: HEAD builds its Link from the request path alone: relative URLs
          const relative = (u: string | null) =>
            u === null ? null : u.slice(req.publicUrl.length);
          return {
            ...linked,
            nextURL: relative(linked.nextURL),
            previousURL: relative(linked.previousURL),
          };
        },
      }),
    },
  },
  {
    name: 'single-cursor-no-content',
    area: 'paging',
    description:
      'a cursor of 1 or more on a single-object endpoint (3, 14, 16) answers 204 with X-Total-Count 1: the record paged as a list of one (spec §5 Revision 2: the cursor is ignored there)',
    detectedBy: ['PAGE-SINGLE-CURSOR', 'INPUT-400-BAD-CURSOR'],
    wrap: {
      // bug: the record is paged as a list of one, so a cursor of 1 or more is past its end
      // (204, with `X-Total-Count: 1`)
      paging: (p) => ({
        ...p,
        singleNoContent: (cursor) => cursor >= 1 || p.singleNoContent(cursor),
      }),
    },
  },
  {
    name: 'paging-path-lowercased',
    area: 'paging',
    description:
      'nextURL, previousURL and Link write the path in lower case, so /teams/group/Key%20Accounts links to /teams/group/key%20accounts, another resource (spec §5 Revision 3: the path is free only between the path as received and its canonical form)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
    wrap: {
      paging: (p) => ({
        ...p,
        // bug: the path written in lower case, as a router that matches case-insensitively
        // normalises it, so a group name's letters change case
        urlPath: (req) => p.urlPath(req).toLowerCase(),
      }),
    },
  },
  {
    name: 'event-groups-count-events',
    area: 'paging',
    description:
      'X-Total-Count of the event groups (9, 11) counts their events, not the groups that are the records (spec §5 Revision 3)',
    detectedBy: ['PAGE-HEADERS'],
    wrap: {
      // bug: the events of 9 and 11 counted, not their groups
      paging: (p) => ({ ...p, totalCount: (req) => eventCount(req.records) }),
    },
  },
] as const satisfies readonly FaultInfo[];

/** `p` where the list responses `when` selects lose their `Link` header. */
function withoutLink(p: PagingLayer, when: (req: ListRequest) => boolean): PagingLayer {
  return {
    ...p,
    headers: (req, page, headers) => {
      const out = p.headers(req, page, headers);
      if (!when(req)) return out;
      const { Link: _link, ...rest } = out;
      return rest;
    },
  };
}

/**
 * Fault `event-groups-count-events`: the number of events in `records` when they are the
 * event groups of 9 and 11 (`{ tagID, opens | clicks: [...] }`), else the number of records.
 */
function eventCount(records: readonly unknown[]): number {
  let n = 0;
  for (const r of records) {
    const events = (r as Record<string, unknown>).opens ?? (r as Record<string, unknown>).clicks;
    n += Array.isArray(events) ? events.length : 1;
  }
  return n;
}

/** What the faults `next-param-as-cursor` and `total-param-as-page-size` read from the raw query. */
interface IgnoredParams {
  /** Whether a `cursor` parameter was sent. */
  readonly cursor: boolean;
  /** The first `next` value when it is `[0-9]+` (and a safe integer). */
  readonly next: number | undefined;
  /** The first `total` value when it is `[0-9]+` (and a safe integer). */
  readonly total: number | undefined;
}

/** `cursor`, `next` and `total` of a raw query (for the faults only: both are ignored). */
function ignoredParams(rawQuery: string): IgnoredParams {
  const entries = queryEntries(rawQuery);
  const count = (name: string): number | undefined => {
    const v = entries.find(([k]) => k === name)?.[1];
    return v !== undefined && /^[0-9]{1,15}$/.test(v) ? Number(v) : undefined;
  };
  return {
    cursor: entries.some(([k]) => k === 'cursor'),
    next: count('next'),
    total: count('total'),
  };
}

/**
 * Fault `paging-url-from-host`: the base URL of the paging URLs read from the request's
 * `X-Forwarded-Host` (and `X-Forwarded-Proto`) or `Host` header, as a server behind a proxy
 * might; `undefined` without either header.
 */
function hostBase(req: ListRequest): string | undefined {
  const header = req.header ?? (() => undefined);
  const host = header('x-forwarded-host') ?? header('host');
  if (host === undefined || host === '') return undefined;
  return `${header('x-forwarded-proto') ?? 'http'}://${host}`;
}
