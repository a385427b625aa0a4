/**
 * The columnar snapshot: a loaded dataset's columns and dictionaries as one binary file, so
 * that a large dataset is read from its JSON (or per-table) form once and then started from
 * the snapshot in a fraction of the time (no text to scan, no strings to look up).
 *
 * Layout (little-endian): the 32-byte {@link SNAPSHOT_MAGIC}; the format version (u32) and
 * the header's byte length (u32); the header, JSON (teams, credentials, the events' dates
 * written otherwise than canonically, and where each section is); then the sections, each at
 * a multiple of 8 bytes: typed arrays (`i32`, `f64`, `u8`) and string lists (UTF-8 bytes and
 * `i32` offsets; a string with a lone surrogate, which has no UTF-8 form, is in the header).
 *
 * A snapshot is as trusted as a dataset file: {@link parseSnapshot} checks its structure
 * (every section in bounds, every code within its dictionary) and `ColumnarBuilder` checks
 * its values with the dataset schemas and resolves its references as for any dataset.
 */

import type { DatasetCredential, DatasetTeam } from '@tagtrack/core';
import { decodeUtf8 } from './dict.ts';
import { DETAIL_FIELDS, EVENT_CODE_FIELDS } from './event-store.ts';

/** The first bytes of a snapshot file (32 bytes, padded with newlines). */
export const SNAPSHOT_MAGIC = 'tagtrack columnar snapshot\n\n\n\n\n\n';
/** The format version written; other versions are refused (recreate the snapshot). */
export const SNAPSHOT_VERSION = 1;

/** A snapshot could not be read: not one, another version, or damaged (names the part). */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** The dictionaries of a snapshot, by name (`Dicts`' fields: the tags', then the events'). */
export const SNAPSHOT_DICTS = ['memberID', 'subject', 'name', ...EVENT_CODE_FIELDS] as const;
export type SnapshotDict = (typeof SNAPSHOT_DICTS)[number];

/** The event columns of a snapshot (`EventStore`'s: codes of the dictionaries named alike). */
export const SNAPSHOT_EVENT_COLUMNS = [
  'tagCode',
  'email',
  'ms',
  'device',
  ...DETAIL_FIELDS,
] as const;
export type SnapshotEventColumn = (typeof SNAPSHOT_EVENT_COLUMNS)[number];

/** One kind of events (opens or clicks) in a snapshot. */
export interface SnapshotEvents {
  readonly length: number;
  /** `ms` is a `Float64Array`, `device` a `Uint8Array`, the others `Int32Array`s. */
  readonly columns: Readonly<Record<SnapshotEventColumn, Int32Array | Float64Array | Uint8Array>>;
  /** Event index and date as written, for dates not in the canonical form. */
  readonly rawDate: readonly (readonly [number, string])[];
}

/** What a snapshot holds (see the module's comment). */
export interface SnapshotParts {
  readonly teams: readonly DatasetTeam[];
  readonly credentials: readonly DatasetCredential[];
  /**
   * Per tag, in order: its `tagID`, `memberID` and `subject` (codes of the dictionaries named
   * alike) and its `dateSent` as written; its recipients are in {@link recipients}.
   */
  readonly tags: {
    readonly tagID: Int32Array;
    readonly memberID: Int32Array;
    readonly subject: Int32Array;
    readonly dateSent: readonly string[];
  };
  /** Tag `t`'s recipients: rows `start[t] .. start[t + 1]` of `name` and `email` (codes). */
  readonly recipients: {
    readonly start: Int32Array;
    readonly name: Int32Array;
    readonly email: Int32Array;
  };
  /** Each dictionary's values, in code order. */
  readonly dicts: Readonly<Record<SnapshotDict, readonly string[]>>;
  readonly opens: SnapshotEvents;
  readonly clicks: SnapshotEvents;
}

type Kind = 'i32' | 'f64' | 'u8' | 'utf8';

interface SectionInfo {
  readonly name: string;
  readonly kind: Kind;
  /** Elements (strings for `utf8`). */
  readonly length: number;
  /** Byte offset from the start of the data. */
  readonly offset: number;
  /** Byte length. */
  readonly bytes: number;
}

interface Header {
  readonly teams: unknown;
  readonly credentials: unknown;
  readonly opens: { readonly length: unknown; readonly rawDate: unknown };
  readonly clicks: { readonly length: unknown; readonly rawDate: unknown };
  /** Per string list: its strings with a lone surrogate, by index. */
  readonly illFormed: Readonly<Record<string, unknown>>;
  readonly sections: readonly SectionInfo[];
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

const pad8 = (n: number) => (n + 7) & ~7;

function wellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The bytes of a snapshot of `parts`, as chunks to write in order (typed arrays are not
 * copied). Throws nothing: every part is taken as it is.
 */
export function encodeSnapshot(parts: SnapshotParts): Uint8Array[] {
  const sections: SectionInfo[] = [];
  const data: Uint8Array[] = [];
  const illFormed: Record<string, [number, string][]> = {};
  let offset = 0;
  const add = (name: string, kind: Kind, length: number, bytes: Uint8Array) => {
    sections.push({ name, kind, length, offset, bytes: bytes.length });
    data.push(bytes);
    const padded = pad8(bytes.length);
    if (padded > bytes.length) data.push(new Uint8Array(padded - bytes.length));
    offset += padded;
  };
  const typed = (name: string, a: Int32Array | Float64Array | Uint8Array) => {
    const kind: Kind = a instanceof Int32Array ? 'i32' : a instanceof Float64Array ? 'f64' : 'u8';
    add(name, kind, a.length, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  };
  const strings = (name: string, list: readonly string[]) => {
    const offsets = new Int32Array(list.length + 1);
    const chunks: Uint8Array[] = [];
    let at = 0;
    list.forEach((s, i) => {
      if (wellFormed(s)) {
        const b = encoder.encode(s);
        chunks.push(b);
        at += b.length;
      } else {
        illFormed[name] ??= [];
        illFormed[name].push([i, s]);
      }
      offsets[i + 1] = at;
    });
    const bytes = new Uint8Array(at);
    let k = 0;
    for (const c of chunks) {
      bytes.set(c, k);
      k += c.length;
    }
    add(name, 'utf8', list.length, bytes);
    typed(`${name}.offsets`, offsets);
  };
  for (const d of SNAPSHOT_DICTS) strings(`dict.${d}`, parts.dicts[d]);
  for (const f of ['tagID', 'memberID', 'subject'] as const) typed(`tags.${f}`, parts.tags[f]);
  strings('tags.dateSent', parts.tags.dateSent);
  typed('recipients.start', parts.recipients.start);
  typed('recipients.name', parts.recipients.name);
  typed('recipients.email', parts.recipients.email);
  for (const kind of ['opens', 'clicks'] as const) {
    for (const c of SNAPSHOT_EVENT_COLUMNS) typed(`${kind}.${c}`, parts[kind].columns[c]);
  }
  const header: Header = {
    teams: parts.teams,
    credentials: parts.credentials,
    opens: { length: parts.opens.length, rawDate: parts.opens.rawDate },
    clicks: { length: parts.clicks.length, rawDate: parts.clicks.rawDate },
    illFormed,
    sections,
  };
  // JSON.stringify escapes lone surrogates, so the header is always UTF-8
  const head = encoder.encode(JSON.stringify(header));
  const start = new Uint8Array(pad8(32 + 8 + head.length));
  start.set(encoder.encode(SNAPSHOT_MAGIC), 0);
  const view = new DataView(start.buffer);
  view.setUint32(32, SNAPSHOT_VERSION, true);
  view.setUint32(36, head.length, true);
  start.set(head, 40);
  return [start, ...data];
}

/** Whether `bytes` start as a snapshot does (its magic). */
export function isSnapshot(bytes: Uint8Array): boolean {
  if (bytes.length < 32) return false;
  const magic = encoder.encode(SNAPSHOT_MAGIC);
  for (let i = 0; i < 32; i++) if (bytes[i] !== magic[i]) return false;
  return true;
}

/**
 * The parts of the snapshot `bytes` (typed arrays are views of `bytes` when aligned, else
 * copies). Throws {@link SnapshotError} naming what is wrong: not a snapshot, another format
 * version, a header that is not JSON, a section missing, out of bounds or of the wrong type,
 * a string that is not UTF-8, a code outside its dictionary, recipients' starts that do not
 * rise from 0 to their rows. Values are not checked against the dataset schemas here.
 */
export function parseSnapshot(bytes: Uint8Array): SnapshotParts {
  if (!isSnapshot(bytes)) throw new SnapshotError('not a tagtrack columnar snapshot (magic)');
  if (bytes.length < 40) throw new SnapshotError('snapshot cut short (no header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(32, true);
  if (version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      `snapshot format version ${version}, this version reads ${SNAPSHOT_VERSION}: recreate the snapshot`,
    );
  }
  const headLength = view.getUint32(36, true);
  if (40 + headLength > bytes.length) throw new SnapshotError('snapshot cut short (header)');
  let header: Header;
  try {
    header = JSON.parse(utf8.decode(bytes.subarray(40, 40 + headLength))) as Header;
  } catch (e) {
    throw new SnapshotError(`snapshot header is not JSON: ${(e as Error).message}`);
  }
  if (typeof header !== 'object' || header === null || !Array.isArray(header.sections)) {
    throw new SnapshotError('snapshot header has no sections');
  }
  const dataStart = pad8(40 + headLength);
  // a plain view: slices of a Node Buffer are Buffers, slower to make
  const plain = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const byName = new Map<string, SectionInfo>();
  for (const s of header.sections) {
    if (typeof s?.name === 'string') byName.set(s.name, s);
  }
  const section = (name: string, kind: Kind): SectionInfo => {
    const s = byName.get(name);
    if (s === undefined) throw new SnapshotError(`snapshot section ${name} missing`);
    const size = kind === 'i32' ? 4 : kind === 'f64' ? 8 : 1;
    const ok =
      s.kind === kind &&
      Number.isSafeInteger(s.length) &&
      Number.isSafeInteger(s.offset) &&
      Number.isSafeInteger(s.bytes) &&
      s.length >= 0 &&
      s.offset >= 0 &&
      s.offset % 8 === 0 &&
      (kind === 'utf8' || s.bytes === s.length * size) &&
      dataStart + s.offset + s.bytes <= bytes.length;
    if (!ok) throw new SnapshotError(`snapshot section ${name} is damaged (type or bounds)`);
    return s;
  };
  const typed = <A extends Int32Array | Float64Array | Uint8Array>(
    name: string,
    kind: Kind,
    Type: { new (b: ArrayBufferLike, o: number, n: number): A; BYTES_PER_ELEMENT: number },
  ): A => {
    const s = section(name, kind);
    const at = bytes.byteOffset + dataStart + s.offset;
    if (at % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer, at, s.length);
    const copy = new Uint8Array(s.bytes);
    copy.set(bytes.subarray(dataStart + s.offset, dataStart + s.offset + s.bytes));
    return new Type(copy.buffer, 0, s.length);
  };
  const i32 = (name: string) => typed(name, 'i32', Int32Array);
  const strings = (name: string): string[] => {
    const s = section(name, 'utf8');
    const offsets = i32(`${name}.offsets`);
    if (offsets.length !== s.length + 1) {
      throw new SnapshotError(`snapshot section ${name}.offsets does not match its strings`);
    }
    const odd = new Map<number, string>();
    const listed = header.illFormed?.[name];
    if (listed !== undefined) {
      if (!Array.isArray(listed)) throw new SnapshotError(`snapshot header: ${name} is damaged`);
      for (const e of listed) {
        if (!Array.isArray(e) || typeof e[0] !== 'number' || typeof e[1] !== 'string') {
          throw new SnapshotError(`snapshot header: ${name} is damaged`);
        }
        odd.set(e[0], e[1]);
      }
    }
    const base = dataStart + s.offset;
    const out: string[] = new Array(s.length);
    let prev = 0;
    for (let i = 0; i < s.length; i++) {
      const from = offsets[i]!;
      const to = offsets[i + 1]!;
      if (from !== prev || to < from || to > s.bytes) {
        throw new SnapshotError(`snapshot section ${name}: string ${i} out of bounds`);
      }
      prev = to;
      const o = odd.get(i);
      const v = o ?? decodeUtf8(plain, base + from, base + to);
      if (v === undefined)
        throw new SnapshotError(`snapshot section ${name}: string ${i} is not UTF-8`);
      out[i] = v;
    }
    return out;
  };
  const dicts = Object.fromEntries(SNAPSHOT_DICTS.map((d) => [d, strings(`dict.${d}`)])) as Record<
    SnapshotDict,
    string[]
  >;
  const tags = {
    tagID: i32('tags.tagID'),
    memberID: i32('tags.memberID'),
    subject: i32('tags.subject'),
    dateSent: strings('tags.dateSent'),
  };
  const nTags = tags.tagID.length;
  if ([tags.memberID, tags.subject, tags.dateSent].some((l) => l.length !== nTags)) {
    throw new SnapshotError('snapshot tags: fields of different lengths');
  }
  for (const f of ['tagID', 'memberID', 'subject'] as const) {
    inRange(`tags.${f}`, tags[f], dicts[f].length);
  }
  const recipients = {
    start: i32('recipients.start'),
    name: i32('recipients.name'),
    email: i32('recipients.email'),
  };
  const rows = recipients.name.length;
  if (recipients.email.length !== rows || recipients.start.length !== nTags + 1) {
    throw new SnapshotError('snapshot recipients: columns of different lengths');
  }
  for (let t = 0; t <= nTags; t++) {
    const s = recipients.start[t]!;
    const ok = t === 0 ? s === 0 : s >= recipients.start[t - 1]! && (t < nTags || s === rows);
    if (!ok) throw new SnapshotError(`snapshot recipients: start of tag ${t} out of order`);
  }
  inRange('recipients.name', recipients.name, dicts.name.length);
  inRange('recipients.email', recipients.email, dicts.email.length);
  const events = (kind: 'opens' | 'clicks'): SnapshotEvents => {
    const h = header[kind];
    const length = h?.length;
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      throw new SnapshotError(`snapshot header: ${kind}.length is damaged`);
    }
    const columns = {} as Record<SnapshotEventColumn, Int32Array | Float64Array | Uint8Array>;
    for (const c of SNAPSHOT_EVENT_COLUMNS) {
      const name = `${kind}.${c}`;
      const a =
        c === 'ms'
          ? typed(name, 'f64', Float64Array)
          : c === 'device'
            ? typed(name, 'u8', Uint8Array)
            : i32(name);
      if (a.length !== length) throw new SnapshotError(`snapshot section ${name}: wrong length`);
      if (c !== 'ms') inRange(name, a, dicts[c === 'tagCode' ? 'tagID' : c].length);
      columns[c] = a;
    }
    const raw = h.rawDate;
    if (
      !Array.isArray(raw) ||
      !raw.every(
        (e) =>
          Array.isArray(e) &&
          Number.isSafeInteger(e[0]) &&
          e[0] >= 0 &&
          e[0] < length &&
          typeof e[1] === 'string',
      )
    ) {
      throw new SnapshotError(`snapshot header: ${kind}.rawDate is damaged`);
    }
    return { length, columns, rawDate: raw as [number, string][] };
  };
  if (!Array.isArray(header.teams) || !Array.isArray(header.credentials)) {
    throw new SnapshotError('snapshot header: teams or credentials missing');
  }
  return {
    teams: header.teams as DatasetTeam[],
    credentials: header.credentials as DatasetCredential[],
    tags,
    recipients,
    dicts,
    opens: events('opens'),
    clicks: events('clicks'),
  };
}

/** Throws when a code of `a` is outside `0 .. size`. */
function inRange(name: string, a: Int32Array | Float64Array | Uint8Array, size: number): void {
  for (let i = 0; i < a.length; i++) {
    const c = a[i]!;
    if (!(c >= 0 && c < size)) {
      throw new SnapshotError(`snapshot section ${name}: code ${c} at ${i} outside its dictionary`);
    }
  }
}
