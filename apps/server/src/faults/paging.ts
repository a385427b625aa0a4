import type { FaultInfo } from './info.ts';

/** Faults of the paging layer: cursors, paging URLs, Link and X-Total-Count (decisions §3). */
export const PAGING_FAULTS = [
  {
    name: 'page-overlap',
    area: 'paging',
    description: 'next cursor = cursor + pageSize - 1, so pages overlap by one (decisions §3)',
    detectedBy: ['PAGE-WALK-ONCE', 'PAGE-CURSOR-ARITHMETIC'],
  },
  {
    name: 'head-total-differs',
    area: 'paging',
    description:
      'HEAD sends an X-Total-Count of the records on the page, not the total GET sends (decisions §3, §4)',
    detectedBy: ['REL-HEAD-MATCHES-GET'],
  },
  {
    name: 'no-content-as-empty-page',
    area: 'paging',
    description:
      'pagingEnd no-content, but past the end answers 200 with data [] instead of 204 (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'no-content-without-headers',
    area: 'paging',
    description:
      'the 204 past the end carries neither X-Total-Count nor Link (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'last-page-next-null',
    area: 'paging',
    description:
      'pagingEnd no-content, but the last non-empty page has nextURL null instead of cursor=total (decisions §3 Revision 2)',
    detectedBy: ['PAGE-END-NO-CONTENT'],
  },
  {
    name: 'paging-url-drops-params',
    area: 'paging',
    description:
      'nextURL/previousURL carry only the cursor, dropping the other query parameters (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
  },
  {
    name: 'paging-url-sorted-params',
    area: 'paging',
    description:
      'nextURL/previousURL rebuild the query with the parameters sorted by name, re-encoded (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-KEEP-QUERY'],
  },
  {
    name: 'link-header-missing-text',
    area: 'paging',
    description: 'rtn=text list responses carry no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'total-count-on-single',
    area: 'paging',
    description:
      'single-object responses (3, 14, 16) carry X-Total-Count: 1 (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'head-no-link',
    area: 'paging',
    description: 'HEAD of a list carries no Link header (decisions §3 Revision 2)',
    detectedBy: ['PAGE-HEADERS'],
  },
  {
    name: 'previous-url-on-first-page',
    area: 'paging',
    description:
      'previousURL (and Link rel="prev") point at cursor=0 on the first page instead of null (decisions §3 Revision 2)',
    detectedBy: ['PAGE-CURSOR-ARITHMETIC'],
  },
  {
    name: 'paging-url-from-host',
    area: 'paging',
    description:
      'nextURL, previousURL and Link are built on the request’s X-Forwarded-Host or Host header instead of the configured public URL (decisions §3 Revision 2)',
    detectedBy: ['PAGE-URLS-PUBLIC-BASE'],
  },
] as const satisfies readonly FaultInfo[];
