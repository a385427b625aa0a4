import type { Credential } from './types.ts';

/**
 * Replaces the run's secrets in text, so no report, log or console line holds one: access
 * keys, every Authorization value the suite sent (signed by it or built by a probe), the
 * signatures inside them (hex, any case, whole or a run of 12 or more of their characters),
 * and any base64 run holding the `base64(authId:` prefix of a declared credential. What a
 * secret becomes names the credential by its label where one is known:
 * `<credential LABEL>`, `<access key of LABEL>`, `<signature>`, `<redacted>`.
 */
export class SecretRedactor {
  /** Exact secrets (access keys) and what they become. */
  private readonly exact = new Map<string, string>();
  /** Windows of base64 tokens of sent Authorization values, and what a run holding one becomes. */
  private readonly tokenWindows = new Map<string, string>();
  /** Windows of hex secrets in lower case (signatures, hex access keys), and what they become. */
  private readonly hexWindows = new Map<string, string>();
  /** Whole sent tokens and whole hex secrets (lower case), for {@link redactEchoes}. */
  private readonly whole = new Map<string, string>();
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
    // a base64 token is a secret as a whole and in any long run of its characters; another
    // form (`authId:signature`) only through the signature inside it (the authId is no secret)
    if (base64) {
      index(this.tokenWindows, token, shown);
      this.whole.set(token, shown);
    }
    const decoded = base64 ? Buffer.from(token, 'base64').toString('utf8') : '';
    for (const pair of [decoded, token]) {
      const colon = pair.indexOf(':');
      if (colon < 0) continue;
      const sig = pair.slice(colon + 1).trim();
      if (/^[0-9a-f]{12,}$/i.test(sig)) {
        index(this.hexWindows, sig.toLowerCase(), '<signature>');
        this.whole.set(sig.toLowerCase(), '<signature>');
      }
    }
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
      return lookup(this.tokenWindows, run) ?? run;
    });
    return out.replace(
      /[0-9a-fA-F]{12,}/g,
      (run) => lookup(this.hexWindows, run.toLowerCase()) ?? run,
    );
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
      const shown = this.whole.get(run) ?? this.whole.get(run.toLowerCase());
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
