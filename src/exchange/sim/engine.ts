// The simulator's matching engine: instruments, spot balances, futures positions and margin, resting and
// trigger orders, fills with maker/taker fees, all exact. Market ticks come from a MarketSource; order and
// account changes happen only through the methods here. No wall clock, no randomness: time comes from the clock.
import { Decimal } from '../../domain/decimal.js';
import type { Balance, Fill, Instrument, Position, PositionSide, Surface, Ticker } from '../../domain/market.js';
import { futuresSide, type Order, type OrderKind, type OrderStatus, type Side, type TimeInForce } from '../../domain/order.js';
import type { TimeSource } from '../../util/clock.js';
import type { OrderRequest, TriggerOrderRequest } from '../client.js';
import { toInstrument, type SimInstrumentSpec } from './instruments.js';
import type { SymbolMarket } from './market.js';
import { TickerSnapshot } from './ticker-snapshot.js';

export interface Refusal {
  code: string;
  message: string;
}

export type PlaceOutcome = { ok: true; orderId: string; clientOid: string } | { ok: false; refusal: Refusal };
export type CancelOutcome = { ok: true; orderId: string; clientOid: string } | { ok: false; orderId: string | null; clientOid: string | null; refusal: Refusal };

export interface SimAccounts {
  /** Spot balances by asset. */
  spot: Record<string, string>;
  /** Futures collateral (USDT) and the leverage used for margin. */
  futuresCollateral: string;
  leverage: number;
}

/** Codes and messages the venue uses (exchange facts §3); messages say what exactly was wrong. */
const R = {
  spotFormat: (what: string): Refusal => ({ code: '40409', message: `Incorrect format: ${what}` }),
  futuresParam: (what: string): Refusal => ({ code: '40020', message: `Parameter ${what} is invalid` }),
  spotMin: (): Refusal => ({ code: '43006', message: 'Amount is less than the minimum order amount' }),
  spotMax: (): Refusal => ({ code: '43007', message: 'Amount exceeds maximum order amount' }),
  spotBand: (): Refusal => ({ code: '43009', message: 'The current order price exceeds the limit' }),
  failed: (surface: Surface, why: string): Refusal => (surface === 'spot' ? { code: '43002', message: `Failed to place order: ${why}` } : { code: '40017', message: `Parameter validation failed: ${why}` }),
  notFound: (surface: Surface): Refusal => (surface === 'spot' ? { code: 'FAILED_ORDER_NOT_FOUND', message: 'FAILED_ORDER_NOT_FOUND' } : { code: '50005', message: 'Order does not exist' }),
  symbol: (surface: Surface, symbol: string): Refusal => (surface === 'spot' ? { code: '40102', message: `Trading pair configuration does not exist: ${symbol}` } : { code: '40020', message: 'Parameter symbol is invalid' }),
};

/** How deep a taker sweeps: levels beyond the best, one tick apart, each with the top size. */
const SWEEP_LEVELS = 5;
/** Precision kept when a position's open value is reduced pro rata (the last close absorbs the remainder). */
const VALUE_SCALE = 18;

export interface SimOrder {
  orderId: string;
  clientOid: string;
  surface: Surface;
  symbol: string;
  side: Side;
  positionSide: PositionSide | null;
  reduceOnly: boolean;
  kind: OrderKind;
  tif: TimeInForce;
  /** Limit price in ticks; null for market orders. */
  priceTicks: number | null;
  sizeSteps: number;
  filledSteps: number;
  filledValue: Decimal;
  fee: Decimal;
  status: OrderStatus;
  createdAt: number;
  updatedAt: number;
  /** Spot: funds frozen for the rest of the order (quote for buys, base for sells). */
  reserved: Decimal;
  /** Trigger orders: price in ticks and the direction it fires in. */
  triggerTicks: number | null;
  triggerUp: boolean;
  isTrigger: boolean;
}

interface PositionState {
  size: Decimal;
  openValue: Decimal;
  openFee: Decimal;
  realized: Decimal;
  updatedAt: number;
}

interface Book {
  inst: Instrument;
  spec: SimInstrumentSpec;
  m: SymbolMarket;
  open: SimOrder[];
  maxBuy: number;
  minSell: number;
  minTriggerUp: number;
  maxTriggerDown: number;
  high: number;
  low: number;
  volSteps: number;
  /** Sum of price ticks × size steps; folded into volFolded before it leaves the safe-integer range. */
  volTickSteps: number;
  volFolded: bigint;
  /** Ring buffer of recent public trades (spot S9). */
  tradeTs: Float64Array;
  tradePrice: Float64Array;
  tradeSize: Float64Array;
  tradeMaker: Uint8Array;
  tradeHead: number;
  tradeCount: number;
  fills: Fill[];
  /** The same fills by order, oldest first (lookups by order are per order, not per book); trimmed with `fills`. */
  fillsByOrder: Map<string, Fill[]>;
  /** Futures fills only, by fill id; dropped with their fill. */
  fillDetails: Map<string, FuturesFillDetail>;
  history: SimOrder[];
  positions: { long: PositionState; short: PositionState };
}

const TRADE_RING = 1000;
const FOLD_AT = 2 ** 50;

/** What a futures fill record (F20) carries beyond the domain Fill. */
export interface FuturesFillDetail {
  taker: boolean;
  positionSide: PositionSide;
  reduceOnly: boolean;
  /** Realised PnL of a closing fill (fees apart); null for an opening one. */
  realizedPnl: Decimal | null;
}

export interface EngineStats {
  ticks: number;
  ordersPlaced: number;
  fills: number;
}

export class MatchingEngine {
  private readonly books = new Map<string, Book>();
  private readonly byIndex: Book[] = [];
  private readonly orders = new Map<string, SimOrder>();
  private readonly spot = new Map<string, { available: Decimal; frozen: Decimal }>();
  private collateral: Decimal;
  readonly leverage: Decimal;
  private nextSpotId = 700000000000000001n;
  private nextFuturesId = 600000000000000001n;
  private nextFillId = 800000000000000001n;
  readonly stats: EngineStats = { ticks: 0, ordersPlaced: 0, fills: 0 };
  /** Moves on every change to orders, balances or positions: readers may keep what they built while it holds. */
  version = 0;
  /** Called after every fill (journal, reports, tests). */
  onFill: ((fill: Fill, order: SimOrder) => void) | undefined;

  constructor(
    markets: SymbolMarket[],
    accounts: SimAccounts,
    private readonly clock: TimeSource,
    /** Final orders and fills kept per symbol for history reads (oldest dropped beyond it). */
    private readonly retain = Number.POSITIVE_INFINITY,
  ) {
    for (const m of markets) {
      const book: Book = {
        inst: toInstrument(m.spec), spec: m.spec, m, open: [],
        maxBuy: -Infinity, minSell: Infinity, minTriggerUp: Infinity, maxTriggerDown: -Infinity,
        high: m.last, low: m.last, volSteps: 0, volTickSteps: 0, volFolded: 0n,
        tradeTs: new Float64Array(TRADE_RING), tradePrice: new Float64Array(TRADE_RING), tradeSize: new Float64Array(TRADE_RING),
        tradeMaker: new Uint8Array(TRADE_RING), tradeHead: 0, tradeCount: 0,
        fills: [], fillsByOrder: new Map(), fillDetails: new Map(), history: [],
        positions: { long: emptyPosition(), short: emptyPosition() },
      };
      this.books.set(m.spec.symbol, book);
      this.byIndex[m.index] = book;
      // The market's opening tick starts the trade tape.
      if (m.ticks > 0) this.recordTrade(book, m);
    }
    for (const [asset, amount] of Object.entries(accounts.spot)) this.spot.set(asset, { available: Decimal.from(amount), frozen: Decimal.ZERO });
    this.collateral = Decimal.from(accounts.futuresCollateral);
    this.leverage = Decimal.fromInt(accounts.leverage);
  }

  // ---------------------------------------------------------------- market ticks

  /** Applies one market tick: statistics, the trade tape, and any resting or trigger order it reaches. */
  onTick(m: SymbolMarket): void {
    const b = this.byIndex[m.index]!;
    this.stats.ticks++;
    const last = m.last;
    if (last > b.high) b.high = last;
    if (last < b.low) b.low = last;
    b.volSteps += m.tradeSize;
    b.volTickSteps += last * m.tradeSize;
    if (b.volTickSteps > FOLD_AT) {
      b.volFolded += BigInt(b.volTickSteps);
      b.volTickSteps = 0;
    }
    this.recordTrade(b, m);
    if (b.open.length === 0) return;
    // Quick reject: nothing resting is reached by this tick.
    const low = last < m.ask ? last : m.ask;
    const high = last > m.bid ? last : m.bid;
    if (low > b.maxBuy && high < b.minSell && last < b.minTriggerUp && last > b.maxTriggerDown) return;
    this.matchResting(b);
  }

  private recordTrade(b: Book, m: SymbolMarket): void {
    const h = b.tradeHead;
    b.tradeTs[h] = m.ts;
    b.tradePrice[h] = m.last;
    b.tradeSize[h] = m.tradeSize;
    b.tradeMaker[h] = m.buyerMaker ? 1 : 0;
    b.tradeHead = (h + 1) % TRADE_RING;
    if (b.tradeCount < TRADE_RING) b.tradeCount++;
  }

  private matchResting(b: Book): void {
    const m = b.m;
    let changed = false;
    for (const o of [...b.open]) {
      if (o.isTrigger && o.status === 'untriggered') {
        if (o.triggerUp ? m.last >= o.triggerTicks! : m.last <= o.triggerTicks!) {
          this.trigger(b, o);
          changed = true;
        }
        continue;
      }
      if (o.priceTicks === null || o.status !== 'open') continue;
      const p = o.priceTicks;
      let avail = 0;
      if (o.side === 'buy') {
        if (m.ask <= p || m.last < p) avail = m.topSize;
        else if (m.last === p) avail = m.tradeSize;
      } else {
        if (m.bid >= p || m.last > p) avail = m.topSize;
        else if (m.last === p) avail = m.tradeSize;
      }
      if (avail === 0) continue;
      const q = Math.min(avail, o.sizeSteps - o.filledSteps);
      this.fill(b, o, p, q, false);
      if (o.filledSteps === o.sizeSteps) this.finish(b, o, 'filled');
      changed = true;
    }
    if (changed) {
      this.version++;
      this.reindex(b);
    }
  }

  private trigger(b: Book, o: SimOrder): void {
    o.status = 'open';
    o.updatedAt = this.clock.now();
    // Margin is checked when the order becomes live.
    if (!o.reduceOnly) {
      const need = this.openMargin(b, o, o.sizeSteps);
      if (this.futuresAvailable(o).lt(need)) {
        this.finish(b, o, 'canceled');
        return;
      }
    } else if (this.closeExceedsPosition(b, o.positionSide!, o.sizeSteps, o)) {
      this.finish(b, o, 'canceled');
      return;
    }
    this.takeLiquidity(b, o);
  }

  /** Recomputes the quick-reject bounds of a book. */
  private reindex(b: Book): void {
    b.maxBuy = -Infinity;
    b.minSell = Infinity;
    b.minTriggerUp = Infinity;
    b.maxTriggerDown = -Infinity;
    for (const o of b.open) {
      if (o.status === 'untriggered') {
        if (o.triggerUp) b.minTriggerUp = Math.min(b.minTriggerUp, o.triggerTicks!);
        else b.maxTriggerDown = Math.max(b.maxTriggerDown, o.triggerTicks!);
      } else if (o.priceTicks !== null) {
        if (o.side === 'buy') b.maxBuy = Math.max(b.maxBuy, o.priceTicks);
        else b.minSell = Math.min(b.minSell, o.priceTicks);
      }
    }
  }

  // ---------------------------------------------------------------- orders

  book(symbol: string): Book | undefined {
    return this.books.get(symbol);
  }

  private price(b: Book, ticks: number): Decimal {
    return Decimal.ofSteps(ticks, b.inst.tickSize);
  }
  private size(b: Book, steps: number): Decimal {
    return Decimal.ofSteps(steps, b.inst.stepSize);
  }

  /** Validates an order against the instrument and the market; returns its price in ticks and size in steps. */
  private validate(b: Book, req: OrderRequest): { ticks: number | null; steps: number } | Refusal {
    const surface = b.inst.surface;
    const param = (what: string) => (surface === 'spot' ? R.spotFormat(what) : R.futuresParam(what));
    if (!/^[A-Za-z0-9_]{1,40}$/.test(req.clientOid)) return param('clientOid');
    if (req.size.isNegative() || req.size.isZero()) return param('size');
    if (!req.size.isMultipleOf(b.inst.stepSize)) return param('size');
    if (req.size.lt(b.inst.minSize)) return surface === 'spot' ? R.spotMin() : R.futuresParam('size: below the minimum order size');
    if (b.inst.maxSize && req.size.gt(b.inst.maxSize)) return surface === 'spot' ? R.spotMax() : R.futuresParam('size: above the maximum order size');
    const steps = req.size.steps(b.inst.stepSize);
    if (req.kind === 'market') return { ticks: null, steps };
    const price = req.price;
    if (!price || price.isNegative() || price.isZero() || !price.isMultipleOf(b.inst.tickSize)) return param('price');
    const ticks = price.steps(b.inst.tickSize);
    // Price band around the market: buys at most (1 + ratio) above, sells at least (1 - ratio) below.
    const ref = this.price(b, b.m.last);
    const ratio = req.side === 'buy' ? b.inst.buyLimitPriceRatio : b.inst.sellLimitPriceRatio;
    if (ratio) {
      const hi = ref.mul(Decimal.fromInt(1).add(ratio));
      const lo = ref.mul(Decimal.fromInt(1).sub(ratio));
      if (price.gt(hi) || price.lt(lo)) return surface === 'spot' ? R.spotBand() : R.futuresParam('price: outside the allowed range');
    }
    return { ticks, steps };
  }

  private newOrder(b: Book, req: OrderRequest, ticks: number | null, steps: number): SimOrder {
    const now = this.clock.now();
    const surface = b.inst.surface;
    const id = surface === 'spot' ? this.nextSpotId++ : this.nextFuturesId++;
    return {
      orderId: id.toString(), clientOid: req.clientOid, surface, symbol: b.inst.symbol, side: req.side,
      positionSide: surface === 'futures' ? (req.positionSide ?? (req.side === 'buy' ? 'long' : 'short')) : null,
      reduceOnly: surface === 'futures' ? (req.reduceOnly ?? false) : false,
      kind: req.kind, tif: req.kind === 'market' ? 'ioc' : req.timeInForce, priceTicks: ticks, sizeSteps: steps, filledSteps: 0,
      filledValue: Decimal.ZERO, fee: Decimal.ZERO, status: 'open', createdAt: now, updatedAt: now,
      reserved: Decimal.ZERO, triggerTicks: null, triggerUp: false, isTrigger: false,
    };
  }

  private duplicate(b: Book, clientOid: string): boolean {
    return b.open.some((o) => o.clientOid === clientOid);
  }

  /** Places a batch; each item stands alone (one refused item does not affect the others). */
  place(surface: Surface, symbol: string, reqs: OrderRequest[]): PlaceOutcome[] {
    this.version++;
    const b = this.books.get(symbol);
    return reqs.map((req): PlaceOutcome => {
      if (!b || b.inst.surface !== surface) return { ok: false, refusal: R.symbol(surface, symbol) };
      const v = this.validate(b, req);
      if ('code' in v) return { ok: false, refusal: v };
      if (this.duplicate(b, req.clientOid)) return { ok: false, refusal: R.failed(surface, `duplicate client id ${req.clientOid}`) };
      if (surface === 'futures') {
        const ps = req.positionSide ?? (req.side === 'buy' ? 'long' : 'short');
        const expectSide = futuresSide(ps, req.reduceOnly ?? false);
        if (req.side !== expectSide) return { ok: false, refusal: R.futuresParam('type: side does not match the position') };
      }
      const o = this.newOrder(b, req, v.ticks, v.steps);
      const crosses = this.crossesNow(b, o);
      if (o.tif === 'post_only' && crosses) return { ok: false, refusal: R.failed(surface, 'post only order would take liquidity') };
      const refusal = surface === 'spot' ? this.reserveSpot(b, o) : this.checkFutures(b, o);
      if (refusal) return { ok: false, refusal };
      this.stats.ordersPlaced++;
      this.remember(b, o);
      b.open.push(o);
      this.takeLiquidity(b, o);
      this.reindex(b);
      return { ok: true, orderId: o.orderId, clientOid: o.clientOid };
    });
  }

  /** Adds an order to the history, dropping the oldest final ones (and old fills) beyond `retain`. */
  private remember(b: Book, o: SimOrder): void {
    this.orders.set(o.orderId, o);
    b.history.push(o);
    if (b.history.length > this.retain * 2) {
      const keep: SimOrder[] = [];
      const drop = b.history.length - this.retain;
      let dropped = 0;
      for (const x of b.history) {
        if (dropped < drop && (x.status === 'filled' || x.status === 'canceled')) {
          this.orders.delete(x.orderId);
          dropped++;
        } else keep.push(x);
      }
      b.history = keep;
      if (b.fills.length > this.retain) {
        const cut = b.fills.length - this.retain;
        for (let k = 0; k < cut; k++) {
          const f = b.fills[k]!;
          b.fillDetails.delete(f.fillId);
          // The oldest fills go first, so each is the first of its order's list.
          const mine = b.fillsByOrder.get(f.orderId);
          mine?.shift();
          if (mine?.length === 0) b.fillsByOrder.delete(f.orderId);
        }
        b.fills = b.fills.slice(cut);
      }
    }
  }

  private crossesNow(b: Book, o: SimOrder): boolean {
    if (o.priceTicks === null) return true;
    return o.side === 'buy' ? o.priceTicks >= b.m.ask : o.priceTicks <= b.m.bid;
  }

  /** Taker part of an order: sweeps the levels it reaches; then the rest rests, or is canceled (ioc, market), or the whole order is (fok). */
  private takeLiquidity(b: Book, o: SimOrder): void {
    const m = b.m;
    const dir = o.side === 'buy' ? 1 : -1;
    const best = o.side === 'buy' ? m.ask : m.bid;
    const limit = o.priceTicks ?? best + dir * (SWEEP_LEVELS - 1);
    const levels: Array<[number, number]> = [];
    let fillable = 0;
    for (let k = 0; k < SWEEP_LEVELS; k++) {
      const p = best + dir * k;
      if (dir * (p - limit) > 0) break;
      const q = Math.min(m.topSize, o.sizeSteps - o.filledSteps - fillable);
      if (q <= 0) break;
      levels.push([p, q]);
      fillable += q;
    }
    if (o.tif === 'fok' && o.filledSteps + fillable < o.sizeSteps) {
      this.finish(b, o, 'canceled');
      return;
    }
    for (const [p, q] of levels) this.fill(b, o, p, q, true);
    if (o.filledSteps === o.sizeSteps) this.finish(b, o, 'filled');
    else if (o.tif === 'ioc' || o.tif === 'fok' || o.kind === 'market') this.finish(b, o, 'canceled');
  }

  private finish(b: Book, o: SimOrder, status: 'filled' | 'canceled'): void {
    o.status = status;
    o.updatedAt = this.clock.now();
    const i = b.open.indexOf(o);
    if (i >= 0) b.open.splice(i, 1);
    if (o.surface === 'spot' && !o.reserved.isZero()) {
      const asset = o.side === 'buy' ? b.inst.quote : b.inst.base;
      const bal = this.balance(asset);
      bal.frozen = bal.frozen.sub(o.reserved);
      bal.available = bal.available.add(o.reserved);
      o.reserved = Decimal.ZERO;
    }
  }

  private fill(b: Book, o: SimOrder, ticks: number, steps: number, taker: boolean): void {
    this.version++;
    const price = this.price(b, ticks);
    const size = this.size(b, steps);
    const amount = price.mul(size);
    const fee = amount.mul(taker ? b.inst.takerFeeRate : b.inst.makerFeeRate);
    const now = this.clock.now();
    o.filledSteps += steps;
    o.filledValue = o.filledValue.add(amount);
    o.fee = o.fee.add(fee);
    o.updatedAt = now;
    let pnl: Decimal | undefined;
    if (o.surface === 'spot') this.settleSpot(b, o, size, amount, fee);
    else pnl = this.settleFutures(b, o, size, amount, fee, now);
    const f: Fill = { symbol: b.inst.symbol, orderId: o.orderId, fillId: (this.nextFillId++).toString(), side: o.side, price, size, amount, fee, timestampMs: now };
    b.fills.push(f);
    const mine = b.fillsByOrder.get(f.orderId);
    if (mine) mine.push(f);
    else b.fillsByOrder.set(f.orderId, [f]);
    if (o.surface === 'futures') b.fillDetails.set(f.fillId, { taker, positionSide: o.positionSide!, reduceOnly: o.reduceOnly, realizedPnl: pnl ?? null });
    this.stats.fills++;
    this.onFill?.(f, o);
  }

  // ---------------------------------------------------------------- spot accounts

  private balance(asset: string): { available: Decimal; frozen: Decimal } {
    let bal = this.spot.get(asset);
    if (!bal) {
      bal = { available: Decimal.ZERO, frozen: Decimal.ZERO };
      this.spot.set(asset, bal);
    }
    return bal;
  }

  /** Freezes what the order may spend: quote (worst price × size × (1 + taker fee)) for buys, base for sells. */
  private reserveSpot(b: Book, o: SimOrder): Refusal | undefined {
    let need: Decimal;
    let asset: string;
    if (o.side === 'buy') {
      const worst = o.priceTicks ?? b.m.ask + SWEEP_LEVELS - 1;
      need = this.price(b, worst).mul(this.size(b, o.sizeSteps)).mul(Decimal.fromInt(1).add(b.inst.takerFeeRate));
      asset = b.inst.quote;
    } else {
      need = this.size(b, o.sizeSteps);
      asset = b.inst.base;
    }
    const bal = this.balance(asset);
    if (bal.available.lt(need)) return R.failed('spot', `insufficient balance: ${asset} available ${bal.available.toString()}, needs ${need.toString()}`);
    bal.available = bal.available.sub(need);
    bal.frozen = bal.frozen.add(need);
    o.reserved = need;
    return undefined;
  }

  /** Spot fees are paid in the quote currency. */
  private settleSpot(b: Book, o: SimOrder, size: Decimal, amount: Decimal, fee: Decimal): void {
    const base = this.balance(b.inst.base);
    const quote = this.balance(b.inst.quote);
    if (o.side === 'buy') {
      const cost = amount.add(fee);
      quote.frozen = quote.frozen.sub(cost);
      o.reserved = o.reserved.sub(cost);
      base.available = base.available.add(size);
    } else {
      base.frozen = base.frozen.sub(size);
      o.reserved = o.reserved.sub(size);
      quote.available = quote.available.add(amount.sub(fee));
    }
  }

  // ---------------------------------------------------------------- futures accounts

  private openMargin(b: Book, o: SimOrder, steps: number): Decimal {
    const worst = o.priceTicks ?? (o.side === 'buy' ? b.m.ask + SWEEP_LEVELS - 1 : b.m.bid);
    const notional = this.price(b, worst).mul(this.size(b, steps));
    return notional.div(this.leverage, VALUE_SCALE, 'up').add(notional.mul(b.inst.takerFeeRate));
  }

  /** Collateral less the margin of open positions and of open opening orders (unrealised PnL is not counted). */
  private futuresAvailable(except?: SimOrder): Decimal {
    let used = Decimal.ZERO;
    for (const b of this.books.values()) {
      if (b.inst.surface !== 'futures') continue;
      for (const p of [b.positions.long, b.positions.short]) if (!p.size.isZero()) used = used.add(p.openValue.div(this.leverage, VALUE_SCALE, 'up'));
      for (const o of b.open) {
        if (o === except || o.reduceOnly || o.status !== 'open') continue;
        used = used.add(this.openMargin(b, o, o.sizeSteps - o.filledSteps));
      }
    }
    return this.collateral.sub(used);
  }

  private closeExceedsPosition(b: Book, side: PositionSide, steps: number, except?: SimOrder): boolean {
    const pos = b.positions[side];
    let pending = 0;
    for (const o of b.open) if (o !== except && o.reduceOnly && o.positionSide === side && o.status === 'open') pending += o.sizeSteps - o.filledSteps;
    return this.size(b, steps + pending).gt(pos.size);
  }

  private checkFutures(b: Book, o: SimOrder): Refusal | undefined {
    if (o.reduceOnly) {
      if (this.closeExceedsPosition(b, o.positionSide!, o.sizeSteps)) return R.failed('futures', 'close size exceeds the position');
      return undefined;
    }
    const need = this.openMargin(b, o, o.sizeSteps);
    const available = this.futuresAvailable();
    if (available.lt(need)) return R.failed('futures', `insufficient balance: margin available ${available.toString()}, needs ${need.toString()}`);
    const max = b.inst.maxPositionSize;
    if (max && b.positions[o.positionSide!].size.add(this.size(b, o.sizeSteps)).gt(max)) return R.futuresParam('size: above the maximum position size');
    return undefined;
  }

  /** Settles a futures fill; returns the realised PnL of a close (undefined for an open). */
  private settleFutures(b: Book, o: SimOrder, size: Decimal, amount: Decimal, fee: Decimal, now: number): Decimal | undefined {
    const pos = b.positions[o.positionSide!];
    this.collateral = this.collateral.sub(fee);
    pos.updatedAt = now;
    if (!o.reduceOnly) {
      pos.size = pos.size.add(size);
      pos.openValue = pos.openValue.add(amount);
      pos.openFee = pos.openFee.add(fee);
      return undefined;
    }
    // Close: the open value leaves pro rata; a full close takes what is left, so totals stay exact.
    const reduced = size.eq(pos.size) ? pos.openValue : pos.openValue.mul(size).div(pos.size, VALUE_SCALE, 'half-up');
    const pnl = o.positionSide === 'long' ? amount.sub(reduced) : reduced.sub(amount);
    pos.size = pos.size.sub(size);
    pos.openValue = pos.openValue.sub(reduced);
    pos.realized = pos.realized.add(pnl);
    this.collateral = this.collateral.add(pnl);
    if (pos.size.isZero()) {
      pos.openValue = Decimal.ZERO;
      pos.openFee = Decimal.ZERO;
    }
    return pnl;
  }

  // ---------------------------------------------------------------- triggers

  placeTrigger(req: TriggerOrderRequest): PlaceOutcome {
    this.version++;
    const b = this.books.get(req.symbol);
    if (!b || b.inst.surface !== 'futures') return { ok: false, refusal: R.symbol('futures', req.symbol) };
    const side = futuresSide(req.positionSide, req.reduceOnly);
    const orderReq: OrderRequest = {
      clientOid: req.clientOid, side, kind: req.executePrice ? 'limit' : 'market', timeInForce: 'gtc', size: req.size,
      positionSide: req.positionSide, reduceOnly: req.reduceOnly, ...(req.executePrice ? { price: req.executePrice } : {}),
    };
    // The execution price is checked against the trigger price, not against today's market.
    const v = this.validateTrigger(b, orderReq, req.triggerPrice);
    if ('code' in v) return { ok: false, refusal: v };
    if (this.duplicate(b, req.clientOid)) return { ok: false, refusal: R.failed('futures', `duplicate client id ${req.clientOid}`) };
    const o = this.newOrder(b, orderReq, v.ticks, v.steps);
    o.isTrigger = true;
    o.status = 'untriggered';
    o.triggerTicks = v.trigger;
    // Fires when the last price reaches the trigger from the side it is on now.
    o.triggerUp = v.trigger > b.m.last;
    this.stats.ordersPlaced++;
    this.remember(b, o);
    b.open.push(o);
    if (v.trigger === b.m.last) this.trigger(b, o);
    this.reindex(b);
    return { ok: true, orderId: o.orderId, clientOid: o.clientOid };
  }

  private validateTrigger(b: Book, req: OrderRequest, triggerPrice: Decimal): { ticks: number | null; steps: number; trigger: number } | Refusal {
    if (triggerPrice.isNegative() || triggerPrice.isZero() || !triggerPrice.isMultipleOf(b.inst.tickSize)) return R.futuresParam('trigger_price');
    const trigger = triggerPrice.steps(b.inst.tickSize);
    const saved = b.m.last;
    b.m.last = trigger;
    try {
      const v = this.validate(b, req);
      return 'code' in v ? v : { ...v, trigger };
    } finally {
      b.m.last = saved;
    }
  }

  cancelTrigger(symbol: string, orderId: string): CancelOutcome {
    this.version++;
    const o = this.orders.get(orderId);
    const b = this.books.get(symbol);
    if (!b || !o || !o.isTrigger || o.symbol !== symbol || o.status !== 'untriggered') {
      return { ok: false, orderId, clientOid: o?.clientOid ?? null, refusal: R.notFound('futures') };
    }
    this.finish(b, o, 'canceled');
    this.reindex(b);
    return { ok: true, orderId, clientOid: o.clientOid };
  }

  // ---------------------------------------------------------------- cancels

  cancel(surface: Surface, symbol: string, by: { orderIds?: string[]; clientOids?: string[] }): CancelOutcome[] {
    this.version++;
    const b = this.books.get(symbol);
    const keys = by.orderIds ? by.orderIds.map((id) => ({ id, oid: null as string | null })) : (by.clientOids ?? []).map((oid) => ({ id: null as string | null, oid }));
    const out = keys.map((k): CancelOutcome => {
      const o = k.id !== null ? this.orders.get(k.id) : b?.open.find((x) => x.clientOid === k.oid && !x.isTrigger);
      if (!b || !o || o.symbol !== symbol || o.surface !== surface || o.isTrigger || (o.status !== 'open' && o.status !== 'pending')) {
        return { ok: false, orderId: k.id, clientOid: k.oid, refusal: R.notFound(surface) };
      }
      this.finish(b, o, 'canceled');
      return { ok: true, orderId: o.orderId, clientOid: o.clientOid };
    });
    if (b) this.reindex(b);
    return out;
  }

  cancelAll(surface: Surface, symbol: string): CancelOutcome[] {
    this.version++;
    const b = this.books.get(symbol);
    if (!b || b.inst.surface !== surface) return [];
    const ids = b.open.filter((o) => !o.isTrigger && o.status === 'open').map((o) => o.orderId);
    return this.cancel(surface, symbol, { orderIds: ids });
  }

  // ---------------------------------------------------------------- reads

  instruments(surface: Surface): Instrument[] {
    return [...this.books.values()].filter((b) => b.inst.surface === surface).map((b) => b.inst);
  }

  specs(surface: Surface): SimInstrumentSpec[] {
    return [...this.books.values()].filter((b) => b.inst.surface === surface).map((b) => b.spec);
  }

  /** The symbol's ticker now; `tradeOnly` keeps just the latest trade (what a spot pair's S9 read shows). */
  ticker(symbol: string, tradeOnly = false): Ticker | undefined {
    const b = this.books.get(symbol);
    if (!b) return undefined;
    const m = b.m;
    return new TickerSnapshot(symbol, m.ts, m.last, m.bid, m.ask, b.high, b.low, b.volSteps, b.volTickSteps, b.volFolded, b.inst, b.spec.priceDecimals, tradeOnly);
  }

  instrument(symbol: string): Instrument | undefined {
    return this.books.get(symbol)?.inst;
  }

  tickers(surface: Surface): Ticker[] {
    return [...this.books.values()].filter((b) => b.inst.surface === surface).map((b) => this.ticker(b.inst.symbol)!);
  }

  /** Recent public trades, newest first. */
  trades(symbol: string, limit: number): Array<{ tradeId: string; ts: number; price: Decimal; size: Decimal; buyerMaker: boolean }> {
    const b = this.books.get(symbol);
    if (!b) return [];
    const out = [];
    const n = Math.min(limit, b.tradeCount);
    for (let k = 0; k < n; k++) {
      const i = (b.tradeHead - 1 - k + TRADE_RING) % TRADE_RING;
      const seq = b.m.ticks - k;
      out.push({ tradeId: `${symbol}-${seq}`, ts: b.tradeTs[i]!, price: this.price(b, b.tradePrice[i]!), size: this.size(b, b.tradeSize[i]!), buyerMaker: b.tradeMaker[i] === 1 });
    }
    return out;
  }

  toOrder(o: SimOrder): Order {
    const b = this.books.get(o.symbol)!;
    const filled = this.size(b, o.filledSteps);
    return {
      surface: o.surface, symbol: o.symbol, orderId: o.orderId, clientOid: o.clientOid, side: o.side,
      positionSide: o.positionSide, reduceOnly: o.reduceOnly, kind: o.kind, timeInForce: o.tif,
      price: o.priceTicks === null ? null : this.price(b, o.priceTicks), size: this.size(b, o.sizeSteps), filledSize: filled,
      avgFillPrice: o.filledSteps === 0 ? null : o.filledValue.div(filled, 12), fee: o.fee, status: o.status,
      rawStatus: o.status, rawType: o.kind, createdAtMs: o.createdAt, updatedAtMs: o.updatedAt,
    };
  }

  rawOrder(orderId: string): SimOrder | undefined {
    return this.orders.get(orderId);
  }

  findOrder(symbol: string | undefined, lookup: { orderId?: string; clientOid?: string }): SimOrder | undefined {
    if (lookup.orderId) {
      const o = this.orders.get(lookup.orderId);
      return o && (!symbol || o.symbol === symbol) ? o : undefined;
    }
    // By client id: the newest order carrying it (ids are unique only among open orders).
    const books = symbol ? [this.books.get(symbol)].filter((b): b is Book => !!b) : [...this.books.values()];
    let found: SimOrder | undefined;
    for (const b of books) for (const o of b.history) if (o.clientOid === lookup.clientOid && (!found || o.createdAt >= found.createdAt)) found = o;
    return found;
  }

  openOrders(surface: Surface, symbol?: string): SimOrder[] {
    const out: SimOrder[] = [];
    for (const b of this.books.values()) if (b.inst.surface === surface && (!symbol || b.inst.symbol === symbol)) out.push(...b.open);
    return out;
  }

  /** Every order of a symbol, newest first (spot order history). */
  history(symbol: string): SimOrder[] {
    return [...(this.books.get(symbol)?.history ?? [])].reverse();
  }

  fills(symbol: string, orderId?: string): Fill[] {
    const b = this.books.get(symbol);
    if (!b) return [];
    return (orderId ? (b.fillsByOrder.get(orderId) ?? []) : b.fills).slice().reverse();
  }

  /** Maker/taker, position and realised PnL of a futures fill still kept. */
  fillDetail(symbol: string, fillId: string): FuturesFillDetail | undefined {
    return this.books.get(symbol)?.fillDetails.get(fillId);
  }

  spotBalances(): Balance[] {
    return [...this.spot.entries()].map(([asset, b]) => ({ surface: 'spot', asset, available: b.available, frozen: b.frozen, total: b.available.add(b.frozen) }));
  }

  futuresCollateral(): Decimal {
    return this.collateral;
  }

  positions(symbol: string): Position[] {
    const b = this.books.get(symbol);
    if (!b || b.inst.surface !== 'futures') return [];
    const out: Position[] = [];
    for (const side of ['long', 'short'] as const) {
      const p = b.positions[side];
      if (p.size.isZero()) continue;
      out.push({
        symbol, side, size: p.size, openValue: p.openValue, entryPrice: p.openValue.div(p.size, 12), leverage: this.leverage,
        marginMode: 'SHARED', isolatedMargin: Decimal.ZERO, openFee: p.openFee, fundingFee: Decimal.ZERO, updatedAtMs: p.updatedAt,
      });
    }
    return out;
  }

  /** Realised PnL of a position side since the start (for reports and accounting checks). */
  realized(symbol: string, side: PositionSide): Decimal {
    return this.books.get(symbol)?.positions[side].realized ?? Decimal.ZERO;
  }
}

function emptyPosition(): PositionState {
  return { size: Decimal.ZERO, openValue: Decimal.ZERO, openFee: Decimal.ZERO, realized: Decimal.ZERO, updatedAt: 0 };
}
