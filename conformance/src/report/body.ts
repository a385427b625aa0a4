/**
 * A response body as a reader wants it next to a failure: JSON pretty-printed (2 spaces), the
 * line of the field the failure names found, and a window of lines around it; the rest is
 * for a collapsed view. Pure text in, text out: the caller escapes.
 */

/** Lines shown before and after the line a failure names. */
export const WINDOW_CONTEXT = 5;

/** Lines shown when the failure names no line of the body. */
export const WINDOW_HEAD = 10;

/** A body laid out in lines, with the window to show first. */
export interface BodyView {
  /** Every line of the body: JSON pretty-printed, other text as it came. */
  readonly lines: readonly string[];
  /** Whether the body is JSON (starts with `{` or `[`) and `lines` is its pretty form. */
  readonly json: boolean;
  /** Index in `lines` of the line the failure names, if one was found. */
  readonly mark: number | undefined;
  /** The window: lines `from` (inclusive) to `to` (exclusive). */
  readonly from: number;
  readonly to: number;
}

/**
 * JSON text pretty-printed with 2-space indents, token by token, so that a body the suite cut
 * (it keeps the first 16 KB) is laid out as far as it goes; and the line where the value at
 * each path starts (its key's line inside an object). Paths are written `[0].stats.total`
 * (root `''`). Strings are copied as written; nothing is parsed into values.
 */
export function prettyJson(text: string): { lines: string[]; paths: Map<string, number> } {
  type Frame = { array: boolean; index: number; key: string; members: number };
  const lines: string[] = [];
  const paths = new Map<string, number>();
  const stack: Frame[] = [];
  let line = '';
  let expectKey = false;
  const newline = (depth: number) => {
    lines.push(line);
    line = '  '.repeat(depth);
  };
  const pathOf = (frames: readonly Frame[]) =>
    frames.map((f) => (f.array ? `[${f.index}]` : `.${f.key}`)).join('');
  if (text.trimStart() !== '') paths.set('', 0);
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (ch === '}' || ch === ']') {
      if (top !== undefined && top.members > 0) newline(stack.length - 1);
      line += ch;
      stack.pop();
      i++;
      continue;
    }
    if (ch === ',') {
      line += ',';
      newline(stack.length);
      if (top !== undefined) {
        if (top.array) {
          top.index++;
          paths.set(pathOf(stack), lines.length);
        } else expectKey = true;
      }
      i++;
      continue;
    }
    if (ch === ':') {
      line += ': ';
      i++;
      continue;
    }
    // a value or a key: the first member of a container opens its line
    if (top !== undefined && top.members === 0) {
      newline(stack.length);
      top.members = 1;
      if (top.array) paths.set(pathOf(stack), lines.length);
      else expectKey = true;
    }
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const token = text.slice(i, j + 1);
      if (expectKey && top !== undefined && !top.array) {
        try {
          top.key = JSON.parse(token) as string;
        } catch {
          top.key = token.slice(1, -1);
        }
        paths.set(pathOf(stack), lines.length);
        expectKey = false;
      }
      line += token;
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') {
      line += ch;
      stack.push({ array: ch === '[', index: 0, key: '', members: 0 });
      expectKey = false;
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !',:]}\n\r\t '.includes(text[j]!)) j++;
    line += text.slice(i, Math.max(j, i + 1));
    i = Math.max(j, i + 1);
  }
  lines.push(line);
  return { lines, paths };
}

/**
 * A field path a failure message names, e.g. `[0].memberID`, `[247].contactID`,
 * `record [0].stats.uniqueOpens`: the path as written (`[0].stats.uniqueOpens`), or undefined.
 */
export function pathInMessage(message: string): string | undefined {
  return /(?:^|[\s(])((?:\[\d+\])(?:\.[A-Za-z_$][\w$]*|\[\d+\])*)/.exec(message)?.[1];
}

/** Ids and quoted values a message names, most specific first (to find their line). */
function tokensInMessage(message: string): string[] {
  const quoted = [...message.matchAll(/"([^"\n]{3,120})"/g)].map((m) => m[1]!);
  const ids = [...message.matchAll(/\b[0-9a-f]{24}\b/g)].map((m) => m[0]);
  return [...ids, ...quoted];
}

/**
 * The line a failure names: its path (from the root, or inside a list the body holds at its
 * top level, e.g. `data`), else the first line holding an id or a quoted value of the message.
 */
function markOf(
  lines: readonly string[],
  paths: ReadonlyMap<string, number> | undefined,
  message: string,
): number | undefined {
  const path = pathInMessage(message);
  if (path !== undefined && paths !== undefined) {
    const direct = paths.get(path);
    if (direct !== undefined) return direct;
    for (const [p, at] of paths)
      if (/^\.[^.[]+$/.test(p) && paths.has(p + path)) return paths.get(p + path) ?? at;
  }
  for (const token of tokensInMessage(message)) {
    const i = lines.findIndex((l) => l.includes(token));
    if (i >= 0) return i;
  }
  return undefined;
}

/**
 * The {@link BodyView} of `body` for a failure whose message is `message`: JSON (a body that
 * starts with `{` or `[`, whole or cut) pretty-printed, the line of the field or value the
 * message names marked, and a window of {@link WINDOW_CONTEXT} lines each side of it (or the
 * first {@link WINDOW_HEAD} lines). Any other body is shown as it came, line by line.
 */
export function bodyView(body: string, message: string): BodyView {
  const trimmed = body.trimStart();
  const json = trimmed.startsWith('{') || trimmed.startsWith('[');
  const pretty = json ? prettyJson(body) : undefined;
  const lines = pretty?.lines ?? body.split(/\r?\n/);
  const mark = markOf(lines, pretty?.paths, message);
  const from = mark === undefined ? 0 : Math.max(0, mark - WINDOW_CONTEXT);
  const to =
    mark === undefined
      ? Math.min(lines.length, WINDOW_HEAD)
      : Math.min(lines.length, mark + WINDOW_CONTEXT + 1);
  return { lines, json, mark, from, to };
}
