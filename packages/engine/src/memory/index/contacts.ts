import type { Caller, Contact } from '@tagtrack/core';
import { contactIdOfNormalised, DEVICE_DESKTOP, DEVICE_MOBILE } from '@tagtrack/core/internal';
import type { EventIndex } from './event-index.ts';
import type { Records } from './records.ts';
import type { Scope, Scopes } from './scope.ts';
import type { ScopeContacts } from './scope-parts.ts';
import { Stamps } from './stamps.ts';
import type { Tables } from './tables.ts';

/** Counters per contact in {@link ScopeContacts.counters}: sent, to, uo, tc, uc, do, mo, dc, mc. */
const CONTACT_FIELDS = 9;

/**
 * The contacts (distinct normalised emails, spec §10), interned as the scopes' contacts
 * requests first reach their recipient entries, so no request pays for other scopes.
 */
class ContactTable {
  readonly index = new Map<string, number>();
  readonly email: string[] = [];
  /** The contact id of each contact, memoised. */
  private readonly ids: (string | undefined)[] = [];
  /** The contact of each recipient entry, -1 until interned. */
  private readonly ofEntry: Int32Array;
  /** Stamps over contacts (at most one per entry). */
  readonly stamps: Stamps;
  constructor(private readonly recipEmail: readonly string[]) {
    this.ofEntry = new Int32Array(recipEmail.length).fill(-1);
    this.stamps = new Stamps(recipEmail.length);
  }
  /** The contact of recipient entry `k`. */
  of(k: number): number {
    let c = this.ofEntry[k]!;
    if (c < 0) {
      const email = this.recipEmail[k]!;
      c = this.index.get(email) ?? -1;
      if (c < 0) {
        c = this.email.length;
        this.email.push(email);
        this.index.set(email, c);
      }
      this.ofEntry[k] = c;
    }
    return c;
  }
  /** The contact id of contact `c` (spec §9). */
  id(c: number): string {
    let id = this.ids[c];
    if (id === undefined) {
      id = contactIdOfNormalised(this.email[c]!);
      this.ids[c] = id;
    }
    return id;
  }
}

/**
 * Endpoints 15, 16 and 17: the contacts of the caller's visible tags by email, with counters
 * over those tags only (spec §4, §10). Built per scope on its first contacts request.
 */
export class Contacts {
  private tableCache: ContactTable | undefined;

  constructor(
    private readonly tables: Tables,
    private readonly scopes: Scopes,
    private readonly records: Records,
  ) {}

  private table(): ContactTable {
    this.tableCache ??= new ContactTable(this.tables.res.recipEmail);
    return this.tableCache;
  }

  /**
   * The contacts of a scope (spec §10), built on its first contacts request from the
   * scope's tags (in tag order, so a contact's first tag is its latest) with their
   * recipient entries and events, then ordered by email: time about proportional to the
   * scope's recipients and events.
   */
  private ofScope(scope: Scope): ScopeContacts {
    if (scope.contacts) return scope.contacts;
    const { res, tagOrder, opens, clicks } = this.tables;
    const { recipStart } = res;
    const table = this.table();
    const ranks = this.scopes.tagRanks(scope);
    const stamps = table.stamps;
    const gen = stamps.next();
    const slotContact: number[] = [];
    const slotTag: number[] = [];
    for (const r of ranks) {
      const t = tagOrder[r]!;
      for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
        const c = table.of(k);
        if (stamps.mark[c] !== gen) {
          stamps.mark[c] = gen;
          stamps.slot[c] = slotContact.length;
          slotContact.push(c);
          slotTag.push(t);
        }
      }
    }
    const n = slotContact.length;
    const acc = new Int32Array(n * CONTACT_FIELDS);
    const addEvents = (idx: EventIndex, t: number, total: number) => {
      const { tagStart, tagEvents, cols } = idx;
      for (let i = tagStart[t]!; i < tagStart[t + 1]!; i++) {
        const e = tagEvents[i]!;
        const base = stamps.slot[table.of(cols.entry[e]!)]! * CONTACT_FIELDS;
        acc[base + total]!++;
        const d = cols.device[e];
        if (d === DEVICE_DESKTOP) acc[base + total + 4]!++;
        else if (d === DEVICE_MOBILE) acc[base + total + 5]!++;
      }
    };
    for (const r of ranks) {
      const t = tagOrder[r]!;
      for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
        const base = stamps.slot[table.of(k)]! * CONTACT_FIELDS;
        acc[base]!++;
        acc[base + 2]! += opens.seen[k]!;
        acc[base + 4]! += clicks.seen[k]!;
      }
      addEvents(opens, t, 1);
      addEvents(clicks, t, 3);
    }
    // Email order: a native sort of the strings, then each email's contact by lookup.
    const emails = slotContact.map((c) => table.email[c]!).sort();
    const order = new Int32Array(n);
    const counters = new Int32Array(n * CONTACT_FIELDS);
    const bestTag = new Int32Array(n);
    const position = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const c = table.index.get(emails[i]!)!;
      const slot = stamps.slot[c]!;
      order[i] = c;
      position.set(c, i);
      counters.set(
        acc.subarray(slot * CONTACT_FIELDS, slot * CONTACT_FIELDS + CONTACT_FIELDS),
        i * CONTACT_FIELDS,
      );
      bestTag[i] = slotTag[slot]!;
    }
    scope.contacts = { order, position, counters, bestTag, records: new Array(n) };
    return scope.contacts;
  }

  /** The recipient name of contact `c` on tag `t` (its first entry with that email). */
  private recipientName(t: number, c: number): string {
    const { recipStart, recipPos, recipients } = this.tables.res;
    const table = this.table();
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      if (table.of(k) === c) return recipients.nameOf(t, recipPos[k]!);
    }
    return '';
  }

  /** The contact at position `i` of a scope as a {@link Contact}, memoised per scope. */
  private record(sc: ScopeContacts, i: number): Contact {
    let rec = sc.records[i];
    if (!rec) {
      const c = sc.order[i]!;
      const t = sc.bestTag[i]!;
      const v = sc.counters.subarray(i * CONTACT_FIELDS, i * CONTACT_FIELDS + CONTACT_FIELDS);
      rec = {
        contactID: this.table().id(c),
        name: this.recipientName(t, c),
        email: this.table().email[c]!,
        dateLastSent: this.records.dateSent(t),
        stats: {
          totalOpens: v[1]!,
          uniqueOpens: v[2]!,
          totalClicks: v[3]!,
          uniqueClicks: v[4]!,
          desktopOpens: v[5]!,
          mobileOpens: v[6]!,
          desktopClicks: v[7]!,
          mobileClicks: v[8]!,
          totalSent: v[0]!,
        },
      };
      sc.records[i] = rec;
    }
    return rec;
  }

  /** Endpoint 15. */
  contacts(caller: Caller): Contact[] {
    const sc = this.ofScope(this.scopes.of(caller));
    const out: Contact[] = new Array(sc.order.length);
    for (let i = 0; i < sc.order.length; i++) out[i] = this.record(sc, i);
    return out;
  }

  /** Endpoint 16: a contact of the scope by its id (spec §9). */
  contact(caller: Caller, contactID: string): Contact | undefined {
    const sc = this.ofScope(this.scopes.of(caller));
    if (!sc.byId) {
      sc.byId = new Map();
      const table = this.table();
      for (let i = 0; i < sc.order.length; i++) sc.byId.set(table.id(sc.order[i]!), i);
    }
    const i = sc.byId.get(contactID);
    return i === undefined ? undefined : this.record(sc, i);
  }

  /** Endpoint 17: the contacts of one visible tag, by email, with the scope's counters. */
  tagContacts(caller: Caller, tagID: string): Contact[] | undefined {
    const scope = this.scopes.of(caller);
    const t = this.scopes.visibleTag(scope, tagID);
    if (t === undefined) return undefined;
    const sc = this.ofScope(scope);
    const { recipStart } = this.tables.res;
    const table = this.table();
    const positions = new Int32Array(recipStart[t + 1]! - recipStart[t]!);
    for (let k = recipStart[t]!; k < recipStart[t + 1]!; k++) {
      positions[k - recipStart[t]!] = sc.position.get(table.of(k))!;
    }
    positions.sort();
    return Array.from(positions, (i) => this.record(sc, i));
  }
}
