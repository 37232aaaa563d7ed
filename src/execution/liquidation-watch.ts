// How far each futures position is from liquidation, worked out whenever positions, balances or tickers update
// (no request of its own): the venue's estimated liquidation price when the position carries one (F29, the
// simulator's F4), else the cross-margin estimate of domain/margin.ts from the futures collateral, every position
// polled and the marks. The risk gate takes the result in (its liquidation-distance rule and reducing latch read
// it); the daemon shows it as metrics.
import { Subscription, type Observable } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import {
  crossMargin,
  liquidationDistancePct,
  liquidationPrice,
  roundLiquidationPrice,
  type LiquidationTrigger,
  type MaintenanceTier,
  type MarginPosition,
  type MarginRules,
} from '../domain/margin.js';
import type { Balance, Instrument, Position, PositionSide, Ticker } from '../domain/market.js';

/** How the venue margins futures (config `exchange.margin`); the closing-fee rate is the contracts' taker rate. */
export interface LiquidationRules {
  tiers: readonly MaintenanceTier[];
  trigger: LiquidationTrigger;
}

/** One position's (or, worked out, one contract's net position's) distance to liquidation. */
export interface LiquidationDistance {
  symbol: string;
  /** The position's side; for a worked-out estimate, the side of the contract's net position. */
  side: PositionSide;
  mark: Decimal;
  /** Null: no liquidation price (the venue says low risk, or no positive price would liquidate it). */
  liquidationPrice: Decimal | null;
  /** Percent of the mark between the mark and the liquidation price (0 at or past it); null without a price. */
  distancePct: Decimal | null;
  /** The venue's estimate carried by the position, or worked out here. */
  source: 'venue' | 'estimate';
}

/** The account's distance to liquidation as last worked out. */
export interface LiquidationView {
  distances: LiquidationDistance[];
  /** Equity (collateral + unrealised PnL at mark) / position value, and the maintenance rate it is compared to; null with no position or no collateral read. */
  marginRate: Decimal | null;
  maintenanceRate: Decimal | null;
  /** When the inputs were read (the latest of their reads). */
  atMs: number;
}

export interface LiquidationInputs {
  positions: readonly Position[];
  balances: readonly Balance[];
  tickers: ReadonlyMap<string, Ticker>;
  instruments: ReadonlyMap<string, Instrument>;
  rules: LiquidationRules;
}

/** A symbol's mark: the ticker's mark price, else its last price, else the mark the position carries. */
function markOf(symbol: string, tickers: ReadonlyMap<string, Ticker>, positions: readonly Position[]): Decimal | null {
  const t = tickers.get(symbol);
  const fromPosition = positions.find((p) => p.symbol === symbol && p.markPrice)?.markPrice ?? null;
  const mark = t?.markPrice ?? t?.last ?? fromPosition;
  return mark && mark.gt(Decimal.ZERO) ? mark : null;
}

/** The futures collateral in USDT as the balances poll read it; null when it was not read. */
function collateralOf(balances: readonly Balance[]): Decimal | null {
  const usdt = balances.filter((b) => b.surface === 'futures' && b.asset === 'USDT');
  return usdt.length ? usdt.reduce((sum, b) => sum.add(b.total), Decimal.ZERO) : null;
}

/**
 * Works out the distance to liquidation of every position. A position carrying the venue's estimate uses it; the
 * others are estimated per contract (the net position) from the cross account: the futures collateral, every
 * position given, each at its mark, with the configured tiers and trigger and, for `maintenance-plus-fee`, the
 * highest taker rate among the contracts held. Only the positions given count: one on a contract not polled is
 * not seen, and the estimate is then optimistic.
 */
export function liquidationView(inputs: LiquidationInputs, atMs: number): LiquidationView {
  const positions = inputs.positions.filter((p) => !p.size.isZero());
  const marks = new Map<string, Decimal | null>();
  const mark = (symbol: string) => {
    if (!marks.has(symbol)) marks.set(symbol, markOf(symbol, inputs.tickers, positions));
    return marks.get(symbol) ?? null;
  };
  const distances: LiquidationDistance[] = [];
  for (const p of positions) {
    if (p.liquidationPrice === undefined) continue;
    const m = mark(p.symbol);
    // The venue's 0 means no liquidation price (low risk); a parser may pass it on as it is.
    const price = p.liquidationPrice && p.liquidationPrice.gt(Decimal.ZERO) ? p.liquidationPrice : null;
    if (m)
      distances.push({
        symbol: p.symbol,
        side: p.side,
        mark: m,
        liquidationPrice: price,
        distancePct: liquidationDistancePct(m, price, p.side),
        source: 'venue',
      });
  }

  // The cross account at mark: every position, whether or not it carries the venue's estimate.
  const collateral = collateralOf(inputs.balances);
  const held: Array<{ symbol: string; position: MarginPosition }> = [];
  let closeFeeRate = Decimal.ZERO;
  let complete = collateral !== null;
  for (const p of positions) {
    const m = mark(p.symbol);
    const inst = inputs.instruments.get(p.symbol);
    if (!m) {
      complete = false;
      continue;
    }
    if (inst && inst.takerFeeRate.gt(closeFeeRate)) closeFeeRate = inst.takerFeeRate;
    // Tiers count contracts; an instrument without a contract value counts one base unit a contract.
    held.push({
      symbol: p.symbol,
      position: { side: p.side, size: p.size, openValue: p.openValue, mark: m, contractValue: inst?.contractValue ?? Decimal.fromInt(1) },
    });
  }
  if (!complete || collateral === null) return { distances, marginRate: null, maintenanceRate: null, atMs };
  const rules: MarginRules = { tiers: inputs.rules.tiers, trigger: inputs.rules.trigger, closeFeeRate };
  const account = crossMargin(
    collateral,
    held.map((h) => h.position),
    rules,
  );

  const estimated = new Set(positions.filter((p) => p.liquidationPrice === undefined).map((p) => p.symbol));
  for (const symbol of estimated) {
    const contract = held.filter((h) => h.symbol === symbol).map((h) => h.position);
    let net = Decimal.ZERO;
    for (const p of contract) net = p.side === 'long' ? net.add(p.size) : net.sub(p.size);
    if (net.isZero()) continue;
    const side: PositionSide = net.isNegative() ? 'short' : 'long';
    const m = contract[0]!.mark;
    const raw = liquidationPrice(account, contract, rules);
    const tick = inputs.instruments.get(symbol)?.tickSize;
    const price = raw && tick ? roundLiquidationPrice(raw, tick, side === 'long') : raw;
    distances.push({ symbol, side, mark: m, liquidationPrice: price, distancePct: liquidationDistancePct(m, price, side), source: 'estimate' });
  }
  return { distances, marginRate: account.marginRate, maintenanceRate: account.maintenanceRate, atMs };
}

/** The closest distance among `distances` (of one symbol, when given); undefined when none has a price. */
export function closest(distances: readonly LiquidationDistance[], symbol?: string): LiquidationDistance | undefined {
  let best: LiquidationDistance | undefined;
  for (const x of distances) {
    if (x.distancePct === null || (symbol !== undefined && x.symbol !== symbol)) continue;
    if (!best || x.distancePct.lt(best.distancePct!)) best = x;
  }
  return best;
}

/** A stream's value, stamped with when it was read. */
type Read<T> = { value: T; atMs: number };

/** What the watch reads: the market-data streams (stamped with the time they were read). */
export interface LiquidationStreams {
  tickers$: Observable<Read<Map<string, Ticker>>>;
  positions$: Observable<Read<Position[]>>;
  balances$: Observable<Read<Balance[]>>;
}

/**
 * Hands `observe` the view as the streams update, once each has said something: a reading of it, worked out when
 * read (the rule at an order's check, the metrics at a scrape, the reducing latch when configured) and kept until
 * the next update, so a tick that nobody reads costs nothing. Flat, the empty view is handed over once. No request
 * of its own: the streams are shared with the trading loop.
 */
export function watchLiquidation(
  streams: LiquidationStreams,
  instruments: ReadonlyMap<string, Instrument>,
  rules: LiquidationRules,
  observe: (read: () => LiquidationView, atMs: number) => void,
): Subscription {
  let flat = false;
  // The latest of each stream, once all three have said something (as combineLatest, without its copy per update:
  // the tickers update every second of a backtest).
  let positions: Read<Position[]> | undefined;
  let balances: Read<Balance[]> | undefined;
  let tickers: Read<Map<string, Ticker>> | undefined;
  const sub = new Subscription();
  sub.add(
    streams.positions$.subscribe((x) => {
      positions = x;
      if (balances && tickers) update(x, balances, tickers);
    }),
  );
  sub.add(
    streams.balances$.subscribe((x) => {
      balances = x;
      if (positions && tickers) update(positions, x, tickers);
    }),
  );
  sub.add(
    streams.tickers$.subscribe((x) => {
      tickers = x;
      if (positions && balances) update(positions, balances, x);
    }),
  );
  return sub;

  function update(positions: Read<Position[]>, balances: Read<Balance[]>, tickers: Read<Map<string, Ticker>>): void {
    const atMs = Math.max(positions.atMs, balances.atMs, tickers.atMs);
    if (!holdsAny(positions.value)) {
      if (!flat) {
        const empty: LiquidationView = { distances: [], marginRate: null, maintenanceRate: null, atMs };
        observe(() => empty, atMs);
      }
      flat = true;
      return;
    }
    flat = false;
    let view: LiquidationView | undefined;
    observe(() => (view ??= liquidationView({ positions: positions.value, balances: balances.value, tickers: tickers.value, instruments, rules }, atMs)), atMs);
  }
}

/** Whether any position is open (a loop: the tickers call this every second of a backtest). */
function holdsAny(positions: readonly Position[]): boolean {
  for (let i = 0; i < positions.length; i++) if (!positions[i]!.size.isZero()) return true;
  return false;
}
