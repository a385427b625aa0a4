import type { Dataset, DatasetEvent } from '@tagtrack/core';
import {
  DEVICE_DESKTOP,
  DEVICE_MOBILE,
  DEVICE_NONE,
  type EventColumns,
  type ResolvedDataset,
  resolveDataset,
} from '@tagtrack/core/internal';
import type { Dicts } from '../dict.ts';
import type { EventStore } from '../event-store.ts';
import type { RecipientStore } from '../recipient-store.ts';
import { Problems } from './problems.ts';
import type { EventStores } from './snapshot-parts.ts';

/**
 * The {@link ResolvedDataset} of the teams, tags and credentials (by `resolveDataset`) and
 * of the event columns, whose references are resolved here with the same rules and words.
 */
export function resolveColumns(
  skeleton: Dataset,
  dicts: Dicts,
  recipients: RecipientStore,
  stores: EventStores,
): ResolvedDataset {
  const base = resolveDataset(skeleton, recipients);
  const problems = new Problems();
  for (const p of base.problems) problems.add(p);
  const opens = resolveEvents(stores.opens, 'open', base, problems, dicts, recipients);
  const clicks = resolveEvents(stores.clicks, 'click', base, problems, dicts, recipients);
  const opensStore = stores.opens;
  const clicksStore = stores.clicks;
  let opensList: DatasetEvent[] | undefined;
  let clicksList: DatasetEvent[] | undefined;
  const dataset: Dataset = {
    teams: skeleton.teams,
    tags: skeleton.tags,
    get opens() {
      opensList ??= opensStore.toArray();
      return opensList;
    },
    get clicks() {
      clicksList ??= clicksStore.toArray();
      return clicksList;
    },
    credentials: skeleton.credentials,
  };
  return { ...base, dataset, problems: problems.finish(), opens, clicks };
}

/**
 * The {@link EventColumns} of one kind: each event's tag (by its tagID), recipient entry
 * (its email, normalised, among the tag's distinct recipient emails) and device code, with
 * the problems of `resolveDataset` for unknown tags, emails that are not recipients,
 * invalid dates and events dated before their tag was sent.
 */
function resolveEvents(
  store: EventStore,
  kind: 'open' | 'click',
  base: ResolvedDataset,
  problems: Problems,
  dicts: Dicts,
  recipients: RecipientStore,
): EventColumns {
  const n = store.length;
  const d = dicts;
  const tagOfCode = Int32Array.from(d.tagID.values, (id) => base.tagIndex.get(id) ?? -1);
  const deviceOfCode = Uint8Array.from(d.device.values, (v) =>
    v === 'desktop'
      ? DEVICE_DESKTOP
      : v === 'mobile' || v === 'tablet'
        ? DEVICE_MOBILE
        : DEVICE_NONE,
  );
  const tag = new Int32Array(n);
  const entry = new Int32Array(n);
  const device = new Uint8Array(n);
  const { recipStart, recipEmail, entryKey, tagMs } = base;
  let prevT = -2;
  let prevEmail = -1;
  let k = -1;
  for (let e = 0; e < n; e++) {
    const t = tagOfCode[store.tagCode[e]!]!;
    const em = store.email[e]!;
    device[e] = deviceOfCode[store.device[e]!]!;
    tag[e] = t;
    if (t < 0) {
      entry[e] = -1;
      problems.add(`${kind} #${e} refers to unknown tagID '${d.tagID.values[store.tagCode[e]!]}'`);
      continue;
    }
    if (t !== prevT || em !== prevEmail) {
      prevT = t;
      prevEmail = em;
      k = -1;
      if (entryKey !== undefined) {
        // by integer keys: equal exactly when the normalised emails are
        const key = recipients.normalisedKeyOfCode(em);
        for (let j = recipStart[t]!; j < recipStart[t + 1]!; j++) {
          if (entryKey[j] === key) {
            k = j;
            break;
          }
        }
      } else {
        const norm = recipients.normalisedEmail(em);
        for (let j = recipStart[t]!; j < recipStart[t + 1]!; j++) {
          if (recipEmail[j] === norm) {
            k = j;
            break;
          }
        }
      }
    }
    entry[e] = k;
    if (k < 0) {
      problems.add(
        `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}': email '${d.email.values[em]}' is not a recipient`,
      );
    }
    const ms = store.ms[e]!;
    if (Number.isNaN(ms)) {
      problems.add(
        `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}' has invalid date '${store.date(e)}'`,
      );
    } else if (ms < tagMs[t]!) {
      problems.add(
        `${kind} #${e} of tag '${d.tagID.values[store.tagCode[e]!]}' is dated before the tag was sent`,
      );
    }
  }
  return { source: store, tag, entry, ms: store.ms, device };
}
