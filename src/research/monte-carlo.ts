// Monte Carlo of the out-of-sample trades: the sequence of closed trades' PnL resampled with replacement (a seeded
// bootstrap), each resample an equity path from the starting equity; what comes out is the spread of final returns
// and of max drawdowns at the asked percentiles. Money is summed exactly (integers at the trades' decimal scale).
import { Decimal } from '../domain/decimal.js';
import { Prng } from '../util/prng.js';

export interface MonteCarloSpec {
  runs: number;
  seed: number;
  percentiles: readonly number[];
}

/** One equity path's figures: money as decimal text, percentages of the starting equity / of the peak. */
export interface PathFigures {
  finalPnl: string;
  returnPct: string;
  maxDrawdown: string;
  maxDrawdownPct: string;
}

export interface MonteCarloResult {
  trades: number;
  runs: number;
  seed: number;
  startEquity: string;
  /** The trades in the order they happened. */
  actual: PathFigures;
  /** Each percentile of each distribution, taken separately (nearest rank): final PnL ascending, drawdown ascending. */
  percentiles: Array<{ p: number } & PathFigures>;
  /** Share of resampled paths ending below the start (%). */
  lossProbabilityPct: string;
  /** Final PnL of the resampled paths in bins of equal width, for the chart. */
  histogram: Array<{ from: string; to: string; count: number }>;
}

const PCT_DIGITS = 6;

/**
 * Why the Monte Carlo's "as traded" PnL and the stitched out-of-sample strategy PnL differ, in a sentence: the first
 * is the closed round trips it resamples, the second also counts what was open at each window's end and funding.
 */
export function asTradedNote(mc: MonteCarloResult, stitchedPnl: string): string {
  const gap = Decimal.from(stitchedPnl).sub(Decimal.from(mc.actual.finalPnl));
  return `As traded: the ${mc.trades} closed out-of-sample round trips in the order they happened, the sequence resampled (${mc.actual.finalPnl} USDT). The stitched out-of-sample strategy PnL (${stitchedPnl} USDT) also counts the positions still open at each window's end, at its last prices, and funding: ${gap.toString()} USDT more.`;
}

/** The path's final PnL, max drawdown and max drawdown as a share of its peak (num/den), in integer units. */
interface PathUnits {
  pnl: bigint;
  dd: bigint;
  /** Max drawdown % × 10^6, rounded half up. */
  ddPct: bigint;
}

function walk(start: bigint, n: number, stepAt: (i: number) => bigint): PathUnits {
  let equity = start;
  let peak = start;
  let pnl = 0n;
  let dd = 0n;
  // The deepest fall relative to its peak, as a fraction kept exact: ddNum / ddDen.
  let ddNum = 0n;
  let ddDen = 1n;
  for (let i = 0; i < n; i++) {
    const step = stepAt(i);
    equity += step;
    pnl += step;
    if (equity > peak) peak = equity;
    const fall = peak - equity;
    if (fall > dd) dd = fall;
    if (peak > 0n && fall * ddDen > ddNum * peak) {
      ddNum = fall;
      ddDen = peak;
    }
  }
  return { pnl, dd, ddPct: divRound(ddNum * 100n * 10n ** BigInt(PCT_DIGITS), ddDen) };
}

/** a / b rounded half away from zero (b > 0). */
function divRound(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return q;
  return 2n * (r < 0n ? -r : r) >= b ? q + (a < 0n ? -1n : 1n) : q;
}

/** The value at percentile p (0..100) of `sorted` ascending, nearest rank. */
export function percentileOf<T>(sorted: readonly T[], p: number): T {
  if (sorted.length === 0) throw new RangeError('no values');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

const HISTOGRAM_BINS = 30;

/**
 * Resamples `tradePnls` (`runs` paths of as many trades, drawn with replacement with `seed`) from `startEquity`.
 * No trades: every figure is zero and no path is drawn.
 */
export function monteCarlo(tradePnls: readonly string[], startEquity: string, spec: MonteCarloSpec): MonteCarloResult {
  const decimals = [Decimal.from(startEquity), ...tradePnls.map((t) => Decimal.from(t))];
  const scale = Math.max(0, ...decimals.map((d) => d.scale));
  const [start, ...pnls] = decimals.map((d) => d.toUnits(scale));
  const startUnits = start!;
  const money = (units: bigint) => Decimal.of(units, scale).toString();
  const pct = (units: bigint) =>
    startUnits === 0n ? '0' : Decimal.of(units, scale).mul(Decimal.fromInt(100)).div(Decimal.of(startUnits, scale), PCT_DIGITS).toString();
  const figures = (p: { pnl: bigint; dd: bigint; ddPct: bigint }): PathFigures => ({
    finalPnl: money(p.pnl),
    returnPct: pct(p.pnl),
    maxDrawdown: money(p.dd),
    maxDrawdownPct: Decimal.of(p.ddPct, PCT_DIGITS).toString(),
  });
  const actual = walk(startUnits, pnls.length, (i) => pnls[i]!);
  const runs = pnls.length === 0 ? 0 : spec.runs;
  const random = new Prng(spec.seed);
  const n = pnls.length;
  const paths: PathUnits[] = [];
  for (let r = 0; r < runs; r++) {
    paths.push(walk(startUnits, n, () => pnls[random.uniformBelow(n)]!));
  }
  const byPnl = paths.map((p) => p.pnl).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byDd = [...paths].sort((a, b) => (a.ddPct < b.ddPct ? -1 : a.ddPct > b.ddPct ? 1 : 0));
  const percentiles =
    runs === 0
      ? spec.percentiles.map((p) => ({ p, ...figures({ pnl: 0n, dd: 0n, ddPct: 0n }) }))
      : spec.percentiles.map((p) => {
          const d = percentileOf(byDd, p);
          return {
            p,
            finalPnl: money(percentileOf(byPnl, p)),
            returnPct: pct(percentileOf(byPnl, p)),
            maxDrawdown: money(d.dd),
            maxDrawdownPct: Decimal.of(d.ddPct, PCT_DIGITS).toString(),
          };
        });
  const losses = byPnl.filter((x) => x < 0n).length;
  return {
    trades: n,
    runs,
    seed: spec.seed,
    startEquity,
    actual: figures(actual),
    percentiles,
    lossProbabilityPct:
      runs === 0
        ? '0'
        : Decimal.fromInt(losses * 100)
            .div(Decimal.fromInt(runs), 4)
            .toString(),
    histogram: histogram(byPnl, scale),
  };
}

/** Equal-width bins over [min, max] of the sorted values (exact edges), each with its count. */
function histogram(sorted: readonly bigint[], scale: number): MonteCarloResult['histogram'] {
  if (sorted.length === 0) return [];
  const lo = sorted[0]!;
  const hi = sorted[sorted.length - 1]!;
  const bins = lo === hi ? 1 : HISTOGRAM_BINS;
  const width = lo === hi ? 1n : (hi - lo + BigInt(bins) - 1n) / BigInt(bins);
  const counts = new Array<number>(bins).fill(0);
  for (const x of sorted) counts[Math.min(bins - 1, Number((x - lo) / width))]!++;
  return counts.map((count, i) => ({
    from: Decimal.of(lo + BigInt(i) * width, scale).toString(),
    to: Decimal.of(lo === hi ? hi : lo + BigInt(i + 1) * width, scale).toString(),
    count,
  }));
}
