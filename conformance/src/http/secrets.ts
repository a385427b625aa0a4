import type { Credential } from './types.ts';

/**
 * Authorization values the redactor remembers: the last this many it learned
 * ({@link SecretRedactor.addHeader}, one per signed request asked, cache hits included).
 * An older one's signature is forgotten, so the redactor's memory is bounded whatever the
 * run's length (about 2 KB a value: some 8 MB at most).
 */
export const RECENT_HEADERS = 4096;

/**
 * Replaces the run's secrets in text, so no report, log or console line holds one: access
 * keys and declared secrets, always; every Authorization value among the last
 * {@link RECENT_HEADERS} the suite sent (signed by it or built by a probe) and the signatures
 * inside them (hex, any case, whole or a run of 15 or more of their characters: windows of
 * 12 every 4); and, at any time, any base64 run holding the `base64(authId:` prefix of a declared credential (every
 * signed value of the suite's scheme, `base64(authId:signature)`, whole). An answer is
 * redacted as it is kept, and a failure as it is recorded, so a value echoed in the answer
 * to its own request, or to any of the next requests within the window, is redacted. What a
 * secret becomes names the credential by its label where one is known:
 * `<credential LABEL>`, `<access key of LABEL>`, `<signature>`, `<redacted>`.
 */
export class SecretRedactor {
  /** Exact secrets (access keys) and what they become. */
  private readonly exact = new Map<string, string>();
  /** Windows of base64 tokens of the recent Authorization values, and what a run holding one becomes. */
  private readonly tokenWindows = new Recent();
  /** Windows of hex access keys in lower case, and what they become. */
  private readonly hexWindows = new Map<string, string>();
  /** Windows of the recent signatures in lower case, and what they become. */
  private readonly signatureWindows = new Recent();
  /** Whole recent tokens and signatures (lower case), for {@link redactEchoes}. */
  private readonly whole = new Recent();
  /** The keys each recent Authorization value added, oldest first (at most {@link RECENT_HEADERS}). */
  private readonly recent: { tokens: string[]; signatures: string[]; whole: string[] }[] = [];
  /** Where the oldest of {@link recent} is once it is full (a ring). */
  private oldest = 0;
  /** The stable base64 prefix of `authId:` of each credential, and its label. */
  private readonly prefixes = new Map<string, string>();
  private readonly labels = new Map<string, string>();

  constructor(credentials: readonly Credential[] = []) {
    for (const c of credentials) this.addCredential(c);
  }

  /**
   * Learns a secret that is no credential (an extra header's value): replaced by `shown` in
   * any text, as an access key is (a value under 8 characters only where it is sent).
   */
  addSecret(value: string, shown: string): void {
    if (value.length >= 8) this.exact.set(value, shown);
  }

  /** Learns a credential: its access key and the base64 prefix of its headers. */
  addCredential(c: Credential): void {
    if (this.labels.has(c.authId)) return;
    this.labels.set(c.authId, c.label);
    // (a key of a few characters, as tests use, would match anywhere: such keys are no secret)
    if (c.accessKey.length >= 8) this.exact.set(c.accessKey, `<access key of ${c.label}>`);
    if (/^[0-9a-f]+$/i.test(c.accessKey))
      index(this.hexWindows, c.accessKey.toLowerCase(), `<access key of ${c.label}>`);
    const b64 = Buffer.from(`${c.authId}:`, 'utf8').toString('base64');
    const stable = b64.slice(0, Math.floor(Buffer.byteLength(`${c.authId}:`) / 3) * 4);
    if (stable.length >= 8) this.prefixes.set(stable, `<credential ${c.label}>`);
  }

  /**
   * Learns an Authorization value that was sent (`label`: the credential that signed it):
   * its token (after a scheme word) and the signature inside `authId:signature`, base64 or
   * not.
   */
  addHeader(value: string, label?: string): void {
    const shown = label === undefined ? '<redacted>' : `<credential ${label}>`;
    const token = value.replace(/^\s*[A-Za-z]+\s+/, '').trim();
    const base64 = /^[A-Za-z0-9+/]+={0,2}$/.test(token);
    const added = { tokens: [] as string[], signatures: [] as string[], whole: [] as string[] };
    // a base64 token is a secret as a whole and in any long run of its characters; another
    // form (`authId:signature`) only through the signature inside it (the authId is no secret)
    if (base64) {
      added.tokens = this.tokenWindows.addWindows(token, shown);
      added.whole.push(this.whole.add(token, shown));
    }
    const decoded = base64 ? Buffer.from(token, 'base64').toString('utf8') : '';
    for (const pair of [decoded, token]) {
      const colon = pair.indexOf(':');
      if (colon < 0) continue;
      const sig = pair.slice(colon + 1).trim();
      if (/^[0-9a-f]{12,}$/i.test(sig)) {
        added.signatures.push(
          ...this.signatureWindows.addWindows(sig.toLowerCase(), '<signature>'),
        );
        added.whole.push(this.whole.add(sig.toLowerCase(), '<signature>'));
      }
    }
    this.remember(added);
  }

  /** Adds a value's keys to the ring of recent values, forgetting the oldest when it is full. */
  private remember(added: { tokens: string[]; signatures: string[]; whole: string[] }): void {
    if (this.recent.length < RECENT_HEADERS) {
      this.recent.push(added);
      return;
    }
    const gone = this.recent[this.oldest]!;
    for (const k of gone.tokens) this.tokenWindows.release(k);
    for (const k of gone.signatures) this.signatureWindows.release(k);
    for (const k of gone.whole) this.whole.release(k);
    this.recent[this.oldest] = added;
    this.oldest = (this.oldest + 1) % RECENT_HEADERS;
  }

  /**
   * Entries the redactor holds (windows and whole values, of keys and of recent Authorization
   * values): bounded by the declared secrets and {@link RECENT_HEADERS}, whatever the number of
   * requests.
   */
  get size(): number {
    return (
      this.exact.size +
      this.hexWindows.size +
      this.tokenWindows.size +
      this.signatureWindows.size +
      this.whole.size +
      this.prefixes.size
    );
  }

  /**
   * `text` with every known secret replaced: access keys anywhere; a base64 run holding the
   * `authId:` prefix of a credential or sharing {@link WINDOW} characters with a sent token;
   * a hex run sharing {@link WINDOW} characters with a signature or a hex access key (any
   * case). Linear in the text's length (secrets are indexed by windows).
   */
  redact(text: string): string {
    let out = text;
    for (const [secret, shown] of this.exact)
      if (out.includes(secret)) out = out.split(secret).join(shown);
    out = out.replace(/[A-Za-z0-9+/]{12,}={0,2}/g, (run) => {
      for (const [prefix, shown] of this.prefixes) if (run.includes(prefix)) return shown;
      return this.tokenWindows.lookup(run) ?? run;
    });
    return out.replace(/[0-9a-fA-F]{12,}/g, (run) => {
      const lower = run.toLowerCase();
      return lookup(this.hexWindows, lower) ?? this.signatureWindows.lookup(lower) ?? run;
    });
  }

  /**
   * `text` with every whole secret replaced: access keys, sent tokens and signatures as they
   * were sent, and base64 runs holding a credential's `authId:` prefix. What a server may echo
   * back (a 401 body quoting the header): cheap enough for every body kept for a report, where
   * {@link redact} also finds parts of secrets, as a check's message may quote them.
   */
  redactEchoes(text: string): string {
    let out = text;
    for (const [secret, shown] of this.exact)
      if (out.includes(secret)) out = out.split(secret).join(shown);
    return out.replace(/[A-Za-z0-9+/]{12,}={0,2}/g, (run) => {
      const shown = this.whole.shown(run) ?? this.whole.shown(run.toLowerCase());
      if (shown !== undefined) return shown;
      for (const [prefix, label] of this.prefixes) if (run.includes(prefix)) return label;
      return run;
    });
  }

  /**
   * {@link redactEchoes} of a response body, scanned in full when the status is not 2xx (an
   * error body is where a server quotes a header) or the body holds a credential's `authId:`
   * prefix; a 2xx body without one is returned as it is (scanning every data page would cost
   * more than the run's own checks).
   */
  redactEchoesIn(body: string, status: number): string {
    const suspect =
      status < 200 || status > 299 || [...this.prefixes.keys()].some((p) => body.includes(p));
    return suspect || [...this.exact.keys()].some((k) => body.includes(k))
      ? this.redactEchoes(body)
      : body;
  }

  /** A JSON-like value with every string redacted, and every credential object shown by its label. */
  redactValue<T>(value: T): T {
    return JSON.parse(JSON.stringify(value, (_k, v: unknown) => this.replace(v))) as T;
  }

  /** A `JSON.stringify` replacer: credentials by label, strings redacted. */
  readonly replace = (v: unknown): unknown => {
    if (typeof v === 'string') return this.redact(v);
    if (isCredential(v)) return `<credential ${v.label}>`;
    return v;
  };
}

/** Characters a text must share with a secret to be taken for (part of) it. */
const WINDOW = 12;
/** Windows of a secret are indexed every STRIDE characters: any run of 15 or more of its characters holds one. */
const STRIDE = 4;

function index(windows: Map<string, string>, secret: string, shown: string): void {
  for (let i = 0; i + WINDOW <= secret.length; i += STRIDE)
    windows.set(secret.slice(i, i + WINDOW), shown);
}

/**
 * Keys of recent Authorization values and what each becomes, counted: a key two values share
 * stays until both are forgotten.
 */
class Recent {
  private readonly entries = new Map<string, { shown: string; n: number }>();
  get size(): number {
    return this.entries.size;
  }
  /** Adds `key` (once more); returns it. */
  add(key: string, shown: string): string {
    const e = this.entries.get(key);
    if (e === undefined) this.entries.set(key, { shown, n: 1 });
    else {
      e.shown = shown;
      e.n++;
    }
    return key;
  }
  /** Adds the windows of `secret` (see {@link index}); returns them. */
  addWindows(secret: string, shown: string): string[] {
    const keys: string[] = [];
    for (let i = 0; i + WINDOW <= secret.length; i += STRIDE)
      keys.push(this.add(secret.slice(i, i + WINDOW), shown));
    return keys;
  }
  /** Forgets one addition of `key`. */
  release(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    if (--e.n <= 0) this.entries.delete(key);
  }
  shown(key: string): string | undefined {
    return this.entries.get(key)?.shown;
  }
  /** What a run sharing a window with a key becomes (see {@link lookup}). */
  lookup(run: string): string | undefined {
    for (let i = 0; i + WINDOW <= run.length; i++) {
      const shown = this.entries.get(run.slice(i, i + WINDOW))?.shown;
      if (shown !== undefined) return shown;
    }
    return undefined;
  }
}

function lookup(windows: Map<string, string>, run: string): string | undefined {
  for (let i = 0; i + WINDOW <= run.length; i++) {
    const shown = windows.get(run.slice(i, i + WINDOW));
    if (shown !== undefined) return shown;
  }
  return undefined;
}

function isCredential(v: unknown): v is Credential {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Credential).label === 'string' &&
    typeof (v as Credential).accessKey === 'string'
  );
}
