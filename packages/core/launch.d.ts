/** What {@link launch} needs to start a bin (see launch.js). */
export interface Bin {
  /** The command's name, for messages (`tagtrack-conformance`). */
  readonly name: string;
  /** The package's folder (`new URL('..', import.meta.url)` in bin/). */
  readonly packageUrl: URL;
  /** The entry's path inside src/ and dist/ without extension (`cli`). */
  readonly entry: string;
  /** Runs the built entry module with process.argv; a number it resolves to is the exit code. */
  readonly start: (entry: Record<string, unknown>, argv: string[]) => unknown;
  /**
   * The V8 heap (old generation) the command runs with, in MB (`--max-old-space-size`), or a
   * function of the command's arguments giving it (undefined: node's default), for a
   * long-running command whose live data is bounded: garbage is collected before the process
   * grows past it. Ignored when the user gave `--max-old-space-size` (NODE_OPTIONS or node's
   * arguments). An installed package's bin then runs in a child process that has it.
   */
  readonly heapMB?: number | ((args: readonly string[]) => number | undefined);
}

/**
 * Starts a bin: the built dist/ entry in an installed package, the src/ entry through tsx in a
 * checkout; `--version` alone prints the package's version. Node-only.
 */
export function launch(bin: Bin): Promise<void>;
