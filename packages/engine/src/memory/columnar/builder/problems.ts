import { MAX_PROBLEMS } from '@tagtrack/core/internal';
import type * as z from 'zod';

/** `zod` issue paths as the dataset names fields: `.date`, `.recipients[2].email`. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/** Problems, at most {@link MAX_PROBLEMS}, then a count of the rest. */
export class Problems {
  /** The problems kept, in order. */
  readonly list: string[] = [];
  #dropped = 0;
  add(message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(message);
    else this.#dropped++;
  }
  addIssues(where: string, error: z.ZodError): void {
    for (const issue of error.issues) this.add(`${where}${pathOf(issue.path)}: ${issue.message}`);
  }
  get size(): number {
    return this.list.length + this.#dropped;
  }
  finish(): string[] {
    return this.#dropped > 0 ? [...this.list, `… and ${this.#dropped} more problems`] : this.list;
  }
}
