/**
 * Escaping for the HTML report: every value a server answered is untrusted, so each is
 * escaped with `entities` before it is written into report.html.
 */
import { escapeAttribute, escapeText } from 'entities';

/** Text escaped for an element's content (`&`, `<`, `>`), with `entities`. */
export const e = (s: unknown): string => escapeText(String(s));
/** Text escaped for a double-quoted attribute value (`&`, `"`), with `entities`. */
export const a = (s: unknown): string => escapeAttribute(String(s));
