// The heatmap of the objective over two params: one cell per pair of their values, holding the best candidate with
// that pair (over the other params' values); a pair no candidate has (random search) is an empty cell.
import type { ObjectiveName } from '../config/optimize-spec.js';
import { compareScores, type Score } from './objective.js';
import type { Candidate, ParamSpace } from './search-space.js';

export interface HeatCell {
  candidate: string;
  score: Score;
}

export interface HeatmapGrid {
  /** The column param and the row param ('' when the space has one param). */
  x: string;
  y: string;
  xs: unknown[];
  ys: unknown[];
  /** rows[y][x]. */
  rows: Array<Array<HeatCell | null>>;
}

const key = (v: unknown) => JSON.stringify(v);

/** The grid for params `names` (one or two) from the candidates' scores. */
export function heatmapGrid(
  space: ParamSpace,
  names: readonly string[],
  cands: readonly Candidate[],
  scores: ReadonlyMap<string, Score>,
  metric: ObjectiveName,
): HeatmapGrid {
  const [x, y = ''] = names;
  if (x === undefined) return { x: '', y: '', xs: [], ys: [], rows: [] };
  const xs = [...space[x]!];
  const ys = y ? [...space[y]!] : [''];
  const rows: Array<Array<HeatCell | null>> = ys.map(() => xs.map(() => null));
  const xAt = new Map(xs.map((v, i) => [key(v), i]));
  const yAt = new Map(ys.map((v, i) => [key(v), i]));
  const indexOf = new Map(cands.map((c) => [c.id, c.index]));
  for (const c of cands) {
    const s = scores.get(c.id);
    if (!s) continue;
    const i = xAt.get(key(c.params[x]));
    const j = y ? yAt.get(key(c.params[y])) : 0;
    if (i === undefined || j === undefined) continue;
    const held = rows[j]![i];
    if (!held || compareScores(metric, { ...s, index: c.index }, { ...held.score, index: indexOf.get(held.candidate)! }) < 0)
      rows[j]![i] = { candidate: c.id, score: s };
  }
  return { x, y, xs, ys, rows };
}
