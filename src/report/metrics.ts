// Backtest figures from an equity series and the fills: PnL, return, drawdown, Sharpe, Sortino, fees, win rate.
// Money figures are exact decimals; ratios (Sharpe, Sortino) are floats, as statistics may be.
import { Decimal } from '../domain/decimal.js';
import type { Fill } from '../domain/market.js';

export interface EquityPoint {
  ts: number;
  equity: Decimal;
}

export interface TradeRow extends Fill {
  /** Realised PnL of this fill against the running average cost of the symbol (FIFO-free, average cost). */
  realizedPnl: Decimal;
}

export interface Metrics {
  startEquity: string;
  endEquity: string;
  netPnl: string;
  returnPct: string;
  maxDrawdownPct: string;
  sharpe: number;
  sortino: number;
  fills: number;
  /** Fills that closed (part of) a position or an inventory: the trades win rate and profit factor count. */
  trades: number;
  feesPaid: string;
  winRatePct: string;
  profitFactor: string;
  exposurePct: string;
}

/** Realised PnL per fill with an average-cost book per symbol (longs and shorts). */
export function realize(fills: Fill[]): TradeRow[] {
  const book = new Map<string, { qty: Decimal; cost: Decimal }>(); // signed quantity, cost of it
  return fills.map((f) => {
    const b = book.get(f.symbol) ?? { qty: Decimal.ZERO, cost: Decimal.ZERO };
    const signed = f.side === 'buy' ? f.size : f.size.neg();
    let pnl = Decimal.ZERO;
    const reducing = !b.qty.isZero() && b.qty.isNegative() !== signed.isNegative();
    if (reducing) {
      const closing = signed.abs().lt(b.qty.abs()) ? signed.abs() : b.qty.abs();
      const avg = b.cost.div(b.qty.abs(), 18);
      const value = avg.mul(closing);
      pnl = b.qty.isNegative() ? value.sub(f.price.mul(closing)) : f.price.mul(closing).sub(value);
      const remainingQty = b.qty.abs().sub(closing);
      b.cost = remainingQty.isZero() ? Decimal.ZERO : b.cost.sub(value);
      b.qty = b.qty.isNegative() ? remainingQty.neg() : remainingQty;
      const opening = signed.abs().sub(closing);
      if (!opening.isZero()) {
        b.qty = signed.isNegative() ? opening.neg() : opening;
        b.cost = f.price.mul(opening);
      }
    } else {
      b.qty = b.qty.add(signed);
      b.cost = b.cost.add(f.price.mul(f.size));
    }
    book.set(f.symbol, b);
    return { ...f, realizedPnl: pnl.sub(f.fee) };
  });
}

function stats(xs: number[]): { mean: number; sd: number; downside: number } {
  if (xs.length < 2) return { mean: 0, sd: 0, downside: 0 };
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  const downside = Math.sqrt(xs.reduce((a, x) => a + Math.min(0, x) ** 2, 0) / (xs.length - 1));
  return { mean, sd, downside };
}

const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : 0);

/**
 * The figures of a run. Sharpe and Sortino are per sample period, annualised with `periodsPerYear`.
 * Exposure: share of samples with a position or an inventory (`exposed`).
 */
export function computeMetrics(equity: EquityPoint[], trades: TradeRow[], exposed: boolean[], periodsPerYear: number): Metrics {
  const first = equity[0]?.equity ?? Decimal.ZERO;
  const last = equity[equity.length - 1]?.equity ?? first;
  let peak = first;
  let maxDd = Decimal.ZERO;
  for (const p of equity) {
    if (p.equity.gt(peak)) peak = p.equity;
    if (!peak.isZero()) {
      const dd = peak.sub(p.equity).mul(Decimal.fromInt(100)).div(peak, 6);
      if (dd.gt(maxDd)) maxDd = dd;
    }
  }
  const returns: number[] = [];
  for (let i = 1; i < equity.length; i++) {
    const prev = equity[i - 1]!.equity.toNumber();
    if (prev !== 0) returns.push(equity[i]!.equity.toNumber() / prev - 1);
  }
  const s = stats(returns);
  const k = Math.sqrt(periodsPerYear);
  const closes = trades.filter((t) => !t.realizedPnl.add(t.fee).isZero());
  const wins = closes.filter((t) => t.realizedPnl.gt(Decimal.ZERO));
  const grossWin = wins.reduce((a, t) => a.add(t.realizedPnl), Decimal.ZERO);
  const grossLoss = closes.filter((t) => t.realizedPnl.isNegative()).reduce((a, t) => a.sub(t.realizedPnl), Decimal.ZERO);
  const fees = trades.reduce((a, t) => a.add(t.fee), Decimal.ZERO);
  return {
    startEquity: first.toString(8),
    endEquity: last.toString(8),
    netPnl: last.sub(first).toString(8),
    returnPct: first.isZero() ? '0' : last.sub(first).mul(Decimal.fromInt(100)).div(first, 6).toString(),
    maxDrawdownPct: maxDd.toString(),
    sharpe: round(s.sd === 0 ? 0 : (s.mean / s.sd) * k),
    sortino: round(s.downside === 0 ? 0 : (s.mean / s.downside) * k),
    fills: trades.length,
    trades: closes.length,
    feesPaid: fees.toString(8),
    winRatePct: closes.length === 0 ? '0' : Decimal.fromInt(wins.length * 100).div(Decimal.fromInt(closes.length), 4).toString(),
    profitFactor: grossLoss.isZero() ? (grossWin.isZero() ? '0' : 'inf') : grossWin.div(grossLoss, 4).toString(),
    exposurePct: exposed.length === 0 ? '0' : Decimal.fromInt(exposed.filter(Boolean).length * 100).div(Decimal.fromInt(exposed.length), 4).toString(),
  };
}
