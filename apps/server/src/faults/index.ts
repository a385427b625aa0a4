/**
 * Fault injection: named, deliberate deviations from the `tagtrack/v1` profile that the
 * conformance suite must detect. Each fault is off by default and lives in the layer where
 * the real bug would (the store over the index, the query parser, the router, the paging
 * layer, the renderer, the auth or rate-limit middleware); each layer's faults are declared
 * in its own file here. The conformance suite uses them to prove that its checks can fail;
 * `detectedBy` (and `blind`) name the requirement ids that catch each.
 *
 * A fault is a wrapper over the layer it changes, declared and implemented in one entry
 * (`wrap`, see {@link FaultLayers}); the clean layer has no fault branch and the server
 * composes the wrappers of the injected faults around it ({@link FaultSet.wrap}).
 */
import { AUTH_FAULTS } from './auth.ts';
import type { FaultInfo, FaultLayer, FaultLayers } from './info.ts';
import { PAGING_FAULTS } from './paging.ts';
import { PARAMS_FAULTS } from './params.ts';
import { PARAMS_SYNTAX_FAULTS } from './params-syntax.ts';
import { RATE_LIMIT_FAULTS } from './rate-limit.ts';
import { RENDER_FAULTS } from './render.ts';
import { ROUTING_FAULTS } from './routing.ts';
import { STORE_FAULTS } from './store.ts';
import { STORE_CALLER_FAULTS } from './store-callers.ts';
import { STORE_WINDOW_FAULTS } from './store-windows.ts';

export type { FaultArea, FaultInfo, FaultLayer, FaultLayers } from './info.ts';

/** Every injectable fault, declared once, grouped by the layer it lives in. */
export const FAULTS = [
  ...STORE_FAULTS,
  ...STORE_WINDOW_FAULTS,
  ...STORE_CALLER_FAULTS,
  ...PARAMS_FAULTS,
  ...PARAMS_SYNTAX_FAULTS,
  ...ROUTING_FAULTS,
  ...PAGING_FAULTS,
  ...RENDER_FAULTS,
  ...AUTH_FAULTS,
  ...RATE_LIMIT_FAULTS,
] as const;

/** One injectable fault's name. */
export type FaultName = (typeof FAULTS)[number]['name'];

/** Names of the injectable faults, in {@link FAULTS} order. */
export const FAULT_NAMES: readonly FaultName[] = FAULTS.map((f) => f.name);

/** Whether `name` is a fault name. */
export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}

/**
 * The set of active faults. It offers no membership test on purpose: the server's code does
 * not branch on a fault, it takes each layer through {@link FaultSet.wrap}.
 */
export class FaultSet {
  readonly #active: ReadonlySet<FaultName>;
  constructor(faults: readonly FaultName[] = []) {
    for (const f of faults) {
      if (!isFaultName(f)) {
        throw new Error(`unknown fault '${String(f)}'; known faults: ${FAULT_NAMES.join(', ')}`);
      }
    }
    this.#active = new Set(faults);
  }
  /**
   * Layer `layer` as the injected faults break it: `clean` passed through the `wrap[layer]`
   * of each active fault, in {@link FAULTS} order (`clean` itself when none wraps it).
   */
  wrap<L extends keyof FaultLayers>(layer: L, clean: FaultLayer<L>): FaultLayer<L> {
    let out = clean;
    for (const f of FAULTS as readonly FaultInfo[]) {
      const wrapper = f.wrap?.[layer] as ((inner: FaultLayer<L>) => FaultLayer<L>) | undefined;
      if (wrapper !== undefined && this.#active.has(f.name as FaultName)) out = wrapper(out);
    }
    return out;
  }
  /**
   * The active faults that wrap `layer`, in {@link FAULTS} order (e.g. the store faults,
   * which need the in-memory index: `createServer` refuses them with a SQL engine).
   */
  wrapping(layer: keyof FaultLayers): FaultName[] {
    return (FAULTS as readonly FaultInfo[])
      .filter((f) => f.wrap?.[layer] !== undefined && this.#active.has(f.name as FaultName))
      .map((f) => f.name as FaultName);
  }
  /** The active faults, in {@link FAULT_NAMES} order. */
  list(): FaultName[] {
    return FAULT_NAMES.filter((f) => this.#active.has(f));
  }
}
