// The candidates of an optimisation: every combination of the params' values (grid), or a seeded sample of
// distinct combinations (random), always listed in grid order so that a spec and a seed give the same list.
import { Prng } from '../util/prng.js';

export interface Candidate {
  /** Position in the candidate list, from 0. */
  index: number;
  /** `c001`, `c002`...: how files and pages name it. */
  id: string;
  params: Record<string, unknown>;
}

export type ParamSpace = Record<string, readonly unknown[]>;

/** How many combinations the space has (the grid's size). */
export function gridSize(space: ParamSpace): number {
  return Object.values(space).reduce((n, values) => n * values.length, 1);
}

/** The combination at `index` of the grid, in its order: the first param varies slowest, the last fastest. */
export function gridAt(space: ParamSpace, index: number): Record<string, unknown> {
  const entries = Object.entries(space);
  const out: Record<string, unknown> = {};
  let rest = index;
  for (let i = entries.length - 1; i >= 0; i--) {
    const [name, values] = entries[i]!;
    out[name] = values[rest % values.length];
    rest = Math.floor(rest / values.length);
  }
  // Keys in the space's order.
  return Object.fromEntries(entries.map(([name]) => [name, out[name]]));
}

export const candidateId = (index: number) => `c${String(index + 1).padStart(3, '0')}`;

/** Grid indices drawn without repeats: `samples` of them (all when the grid is no larger), ascending. */
export function sampleIndices(total: number, samples: number, seed: number): number[] {
  if (samples >= total) return Array.from({ length: total }, (_, i) => i);
  const random = new Prng(seed);
  if (total <= 4 * samples) {
    // Dense: the first `samples` places of a seeded shuffle (no long tail of repeats to reject).
    const all = Array.from({ length: total }, (_, i) => i);
    for (let i = 0; i < samples; i++) {
      const j = i + random.uniformBelow(total - i);
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all.slice(0, samples).sort((a, b) => a - b);
  }
  const picked = new Set<number>();
  while (picked.size < samples) picked.add(random.uniformBelow(total));
  return [...picked].sort((a, b) => a - b);
}

/** Candidates beyond this are refused: each is at least one backtest per fold. */
export const MAX_CANDIDATES = 100_000;

/** The candidates of a search: the whole grid, or `samples` distinct combinations drawn with `seed`. */
export function candidates(space: ParamSpace, search: { method: 'grid' | 'random'; samples?: number; seed: number }): Candidate[] {
  const total = gridSize(space);
  if (!Number.isSafeInteger(total)) throw new RangeError(`the grid is too large to count (${total})`);
  const indices = search.method === 'random' ? sampleIndices(total, search.samples ?? total, search.seed) : null;
  const count = indices ? indices.length : total;
  if (count > MAX_CANDIDATES) throw new RangeError(`${count} candidates, more than ${MAX_CANDIDATES}: use random search with fewer samples, or fewer values`);
  return Array.from({ length: count }, (_, i) => ({ index: i, id: candidateId(i), params: gridAt(space, indices ? indices[i]! : i) }));
}
