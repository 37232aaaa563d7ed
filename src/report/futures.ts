// The futures figures of a backtest: funding paid and received (in all and per contract, from the ledger's funding
// entries), each liquidation, fees by kind (maker, taker, liquidation) and how close the account's margin rate came
// to its maintenance rate; and the funding rows trades.csv carries beside the fills and liquidations.
import { Decimal } from '../domain/decimal.js';
import type { LedgerEntry, Liquidation, PositionSide } from '../domain/market.js';
import type { EquityPoint, TradeRow } from './metrics.js';

/** One liquidation of a position side, as the simulator records it. */
export type LiquidationRecord = Liquidation;

/** How an execution was made, where the venue says: maker or taker (null: not known), a liquidation close or not. */
export interface FillKind {
  taker: boolean | null;
  liquidation: boolean;
  /** Futures: the position side the fill opened or closed; null on spot. */
  positionSide: PositionSide | null;
}

/** One row of trades.csv: an execution (a fill, or a liquidation's close), or a funding settlement of a position. */
export type TradeCsvRow =
  | { kind: 'fill' | 'liquidation'; trade: TradeRow; positionSide: PositionSide | null }
  | { kind: 'funding'; symbol: string; timestampMs: number; amount: Decimal; rate: Decimal | null; positionSide: PositionSide | null };

/** Funding over a run: paid and received as positive amounts, their net (received − paid), and the entries counted. */
export interface FundingTotals {
  paid: string;
  received: string;
  net: string;
  settlements: number;
}

/** report.json's futures section: only in a run that trades futures. */
export interface FuturesReport {
  funding: FundingTotals & { bySymbol: Record<string, FundingTotals> };
  liquidations: Array<{
    at: string;
    atMs: number;
    symbol: string;
    side: PositionSide;
    size: string;
    price: string;
    mark: string;
    pnl: string;
    fee: string;
    orderId: string;
  }>;
  /**
   * Fees of futures executions by kind: trading as maker or taker, and liquidation closes; `total` is their sum
   * (and any whose kind the venue did not say, `unclassified`, shown only when there are some).
   */
  fees: { maker: string; taker: string; liquidation: string; total: string; unclassified?: string };
  /**
   * The account's margin rate (equity / position value at mark) against its maintenance rate, over the samples with
   * a position: how many there were, and the one with the least headroom (null: never a position).
   */
  margin: { samples: number; tightest: { at: string; atMs: number; marginRate: string; maintenanceRate: string } | null };
}

function totals(amounts: readonly Decimal[]): FundingTotals {
  let paid = Decimal.ZERO;
  let received = Decimal.ZERO;
  for (const a of amounts) {
    if (a.isNegative()) paid = paid.sub(a);
    else received = received.add(a);
  }
  return { paid: paid.toString(8), received: received.toString(8), net: received.sub(paid).toString(8), settlements: amounts.length };
}

const byBillId = (a: LedgerEntry, b: LedgerEntry) =>
  a.timestampMs - b.timestampMs || (BigInt(a.billId) < BigInt(b.billId) ? -1 : BigInt(a.billId) > BigInt(b.billId) ? 1 : 0);

/**
 * Funding entries as trades.csv rows, in time order, each with the settlement's rate where it is certain and the
 * position side it implies. `rateAt(symbol, ms)` is the rate of the latest settlement at or before `ms`. One tick
 * books every settlement it brings: a single entry of a contract at an instant, or two of opposite signs (a long
 * and a short), belong to one settlement; more (a gap in the data spanning several settlements) leave the rate
 * unknown.
 */
export function fundingRows(entries: readonly LedgerEntry[], rateAt: (symbol: string, atMs: number) => Decimal | null): TradeCsvRow[] {
  const sorted = entries.filter((e) => e.kind === 'funding').sort(byBillId);
  const groups = new Map<string, LedgerEntry[]>();
  for (const e of sorted) {
    const key = `${e.symbol ?? ''}\u0000${e.timestampMs}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return sorted.map((e) => {
    const group = groups.get(`${e.symbol ?? ''}\u0000${e.timestampMs}`)!;
    const oneSettlement =
      group.length === 1 || (group.length === 2 && group[0]!.amount.isNegative() !== group[1]!.amount.isNegative() && !group.some((g) => g.amount.isZero()));
    const rate = oneSettlement && e.symbol ? rateAt(e.symbol, e.timestampMs) : null;
    // Positive rate: longs pay (a debit), shorts receive; negative: the reverse.
    const positionSide: PositionSide | null =
      rate && !rate.isZero() && !e.amount.isZero() ? (rate.isNegative() === e.amount.isNegative() ? 'short' : 'long') : null;
    return { kind: 'funding' as const, symbol: e.symbol ?? '', timestampMs: e.timestampMs, amount: e.amount, rate, positionSide };
  });
}

/**
 * Executions and funding in one list for trades.csv: by time, executions before the funding of the same instant. (A
 * backtest writes the executions as they happen and merges the funding in at the end: writeTradesCsv.)
 */
export function tradeCsvRows(trades: readonly TradeRow[], kinds: ReadonlyMap<string, FillKind>, funding: readonly TradeCsvRow[]): TradeCsvRow[] {
  const executions: TradeCsvRow[] = trades.map((trade) => {
    const kind = kinds.get(trade.fillId);
    return { kind: kind?.liquidation ? 'liquidation' : 'fill', trade, positionSide: kind?.positionSide ?? null };
  });
  const out: TradeCsvRow[] = [];
  let j = 0;
  const ts = (r: TradeCsvRow) => (r.kind === 'funding' ? r.timestampMs : r.trade.timestampMs);
  for (const row of executions) {
    while (j < funding.length && ts(funding[j]!) < ts(row)) out.push(funding[j++]!);
    out.push(row);
  }
  while (j < funding.length) out.push(funding[j++]!);
  return out;
}

/** Fees of futures executions by kind: as maker, as taker, liquidation closes, and those whose kind is not known. */
export type FeesByKind = Record<FeeKind, Decimal>;
export type FeeKind = 'maker' | 'taker' | 'liquidation' | 'unclassified';

/** Which fee total an execution's fee goes to. */
export const feeKindOf = (kind: FillKind | undefined): FeeKind =>
  kind?.liquidation ? 'liquidation' : kind?.taker === true ? 'taker' : kind?.taker === false ? 'maker' : 'unclassified';

/** The fees by kind of the executions of `futures` contracts. */
export function feesByKind(trades: readonly TradeRow[], kinds: ReadonlyMap<string, FillKind>, futures: ReadonlySet<string>): FeesByKind {
  const fees = { maker: Decimal.ZERO, taker: Decimal.ZERO, liquidation: Decimal.ZERO, unclassified: Decimal.ZERO };
  for (const t of trades) {
    if (!futures.has(t.symbol)) continue;
    const key = feeKindOf(kinds.get(t.fillId));
    fees[key] = fees[key].add(t.fee);
  }
  return fees;
}

/**
 * The figures of report.json's futures section. `futures`: the contracts traded (fees count their executions only);
 * the fees by kind as totals, or worked out from the executions and their kinds.
 */
export function futuresReport(
  input: {
    futures: ReadonlySet<string>;
    funding: readonly LedgerEntry[];
    liquidations: readonly LiquidationRecord[];
    equity: readonly EquityPoint[];
  } & ({ trades: readonly TradeRow[]; kinds: ReadonlyMap<string, FillKind> } | { fees: FeesByKind }),
): FuturesReport {
  const funding = input.funding.filter((e) => e.kind === 'funding');
  const symbols = [...new Set(funding.map((e) => e.symbol ?? ''))].sort();
  const bySymbol = Object.fromEntries(symbols.map((s) => [s, totals(funding.filter((e) => (e.symbol ?? '') === s).map((e) => e.amount))]));
  const fees = 'fees' in input ? input.fees : feesByKind(input.trades, input.kinds, input.futures);
  const total = fees.maker.add(fees.taker).add(fees.liquidation).add(fees.unclassified);
  let samples = 0;
  let tightest: FuturesReport['margin']['tightest'] = null;
  let least: Decimal | null = null;
  for (const p of input.equity) {
    if (!p.marginRate || !p.maintenanceRate) continue;
    samples++;
    const headroom = p.marginRate.sub(p.maintenanceRate);
    if (least === null || headroom.lt(least)) {
      least = headroom;
      tightest = { at: new Date(p.ts).toISOString(), atMs: p.ts, marginRate: p.marginRate.toString(), maintenanceRate: p.maintenanceRate.toString() };
    }
  }
  return {
    funding: { ...totals(funding.map((e) => e.amount)), bySymbol },
    liquidations: [...input.liquidations]
      .sort((a, b) => a.atMs - b.atMs)
      .map((l) => ({
        at: new Date(l.atMs).toISOString(),
        atMs: l.atMs,
        symbol: l.symbol,
        side: l.side,
        size: l.size.toString(),
        price: l.price.toString(),
        mark: l.mark.toString(),
        pnl: l.pnl.toString(8),
        fee: l.fee.toString(8),
        orderId: l.orderId,
      })),
    fees: {
      maker: fees.maker.toString(8),
      taker: fees.taker.toString(8),
      liquidation: fees.liquidation.toString(8),
      total: total.toString(8),
      ...(fees.unclassified.isZero() ? {} : { unclassified: fees.unclassified.toString(8) }),
    },
    margin: { samples, tightest },
  };
}

/** The ledger read funding collection needs (F30's shape): a window, newest first, `hasMore` when older entries match. */
export type LedgerReader = (query: { kind: 'funding'; startMs?: number; endMs?: number; limit: number }) => { entries: LedgerEntry[]; hasMore: boolean };

/**
 * Funding entries taken from the ledger as a run goes (the simulator's ledger may be bounded): each collection reads
 * what was booked since the previous one, page by page, keeping each entry once.
 */
export class FundingCollector {
  readonly entries: LedgerEntry[] = [];
  private readonly seen = new Set<string>();
  private sinceMs: number | undefined;

  constructor(private readonly read: LedgerReader) {}

  /** Reads the entries booked since the last collection, up to `nowMs` (nothing later can be booked yet). */
  collect(nowMs: number): void {
    let endMs: number | undefined;
    for (;;) {
      const page = this.read({
        kind: 'funding',
        ...(this.sinceMs !== undefined ? { startMs: this.sinceMs } : {}),
        ...(endMs !== undefined ? { endMs } : {}),
        limit: 100,
      });
      let added = 0;
      let oldestMs = Number.POSITIVE_INFINITY;
      for (const e of page.entries) {
        oldestMs = Math.min(oldestMs, e.timestampMs);
        if (this.seen.has(e.billId)) continue;
        this.seen.add(e.billId);
        this.entries.push(e);
        added++;
      }
      if (!page.hasMore || page.entries.length === 0) break;
      // The next window takes in the oldest instant read (its other entries may be beyond the page) whether the
      // ledger's end bound is inclusive or not; a window that brought nothing new steps back a millisecond.
      endMs = added > 0 ? oldestMs + 1 : (endMs ?? oldestMs + 1) - 1;
    }
    this.sinceMs = nowMs;
  }
}
