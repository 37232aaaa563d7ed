// Successive halving: every candidate runs on a short prefix of the in-sample window; the best 1/eta go on to a
// prefix eta times longer, and so on until the survivors run on the whole window, where the best is chosen.

export interface HalvingSpec {
  enabled: boolean;
  eta: number;
  /** The first rung: a share of the in-sample window, or a length. */
  minBudget: { share: number } | { ms: number };
}

/**
 * The rungs' prefix lengths (ms) for an in-sample window of `windowMs`: the first from minBudget, each next one eta
 * times longer, the last the whole window. Without halving: the whole window alone.
 */
export function rungBudgets(spec: HalvingSpec, windowMs: number): number[] {
  if (!spec.enabled) return [windowMs];
  const first = 'share' in spec.minBudget ? Math.floor(spec.minBudget.share * windowMs) : spec.minBudget.ms;
  const budgets: number[] = [];
  for (let b = Math.max(1, first); b < windowMs; b *= spec.eta) budgets.push(b);
  budgets.push(windowMs);
  return budgets;
}

/** How many of `count` candidates go on to the next rung: the best 1/eta, rounded up, at least one. */
export const survivors = (count: number, eta: number) => Math.max(1, Math.ceil(count / eta));

/**
 * The candidates that go on, from a rung's candidates ranked best first. When one is left, it goes straight to the
 * last rung (the whole window): nothing remains to compare on the rungs between.
 */
export function promote<T>(ranked: readonly T[], eta: number): T[] {
  return ranked.slice(0, survivors(ranked.length, eta));
}
