// The only wire -> domain mapping: venue records become normalised domain values. "" stays unknown (null)
// and is an error where a value is required; unknown enum values are reported, never guessed; a price or size
// that can only be positive is never taken when it is zero or negative.
import { Decimal } from '../../domain/decimal.js';
import type { Balance, Fill, Instrument, Position, PublicTrade, Ticker } from '../../domain/market.js';
import { futuresSide, type Order, type OrderKind, type OrderStatus } from '../../domain/order.js';
import type { CancelTarget, ItemResult, OrderRequest } from '../client.js';
import type { WireFuturesOrderItem, WireSpotOrderItem } from '../wire/requests.js';
import type { EndpointId } from '../endpoints.js';
import { ExchangeError, classifyItemError } from '../errors.js';
import { FUTURES_TYPE_FROM_NAME, TIF_CODE, TIF_FROM_NAME, TIF_NAME, futuresTypeCode } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import type {
  WireCollateral, WireContract, WireFuturesFill, WireFuturesOrder, WirePosition, WireSpotAsset, WireSpotFill, WireSpotOrder,
  WireSpotSymbol, WireSpotTrade, WireTicker, ResponseOf,
} from '../wire/responses.js';

export interface Anomaly {
  endpoint: EndpointId;
  field: string;
  value: unknown;
  note: string;
}

/** Where a record came from, and where its oddities are reported. */
export class ParseContext {
  readonly anomalies: Anomaly[] = [];
  constructor(readonly endpoint: EndpointId) {}

  report(field: string, value: unknown, note: string): void {
    this.anomalies.push({ endpoint: this.endpoint, field, value, note });
  }

  fail(field: string, message: string): never {
    throw new ExchangeError('bad-response', `${field}: ${message}`, { endpoint: this.endpoint, field });
  }

  /** A decimal that must be known. */
  dec(field: string, v: string | undefined): Decimal {
    if (v === undefined || v === '') return this.fail(field, `a value is required, got ${v === undefined ? 'nothing' : '""'}`);
    const d = Decimal.parse(v);
    return d ?? this.fail(field, `not a decimal: ${JSON.stringify(v)}`);
  }

  /** A decimal that may be unknown ("" or absent -> null). */
  decOpt(v: string | undefined | null): Decimal | null {
    if (v === undefined || v === null || v === '') return null;
    return Decimal.parse(v);
  }

  /** A decimal that must be known and above zero (tick and step sizes). */
  positive(field: string, v: string | undefined): Decimal {
    const d = this.dec(field, v);
    return d.gt(Decimal.ZERO) ? d : this.fail(field, `must be above zero, got ${JSON.stringify(v)}`);
  }

  /** A price that may be unknown; zero or negative is reported and taken as unknown (null), never as a price. */
  priceOpt(field: string, v: string | undefined | null): Decimal | null {
    const d = this.decOpt(v);
    if (d === null || d.gt(Decimal.ZERO)) return d;
    this.report(field, v, 'non-positive price taken as unknown');
    return null;
  }

  time(v: number | string | undefined): number | null {
    if (v === undefined || v === '') return null;
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isSafeInteger(n) ? n : null;
  }
}

/** "4" (decimal places, as futures contracts give it) or "0.0001" (a step) -> the step. */
function stepFrom(ctx: ParseContext, field: string, v: string, unit: Decimal = Decimal.of(1n)): Decimal {
  if (v.includes('.')) return ctx.positive(field, v);
  const places = Number(v);
  if (!Number.isInteger(places) || places < 0 || places > 30) ctx.fail(field, `not a count of decimal places: ${JSON.stringify(v)}`);
  return unit.mul(Decimal.of(1n, places));
}

export function spotInstrument(ctx: ParseContext, w: WireSpotSymbol, i: number): Instrument {
  const f = (name: string) => `data[${i}].${name}`;
  return {
    surface: 'spot',
    symbol: w.symbol,
    base: w.baseCoin,
    quote: w.quoteCoin,
    tickSize: ctx.positive(f('tickSize'), w.tickSize),
    stepSize: ctx.positive(f('stepSize'), w.stepSize),
    minSize: ctx.dec(f('minTradeAmount'), w.minTradeAmount),
    maxSize: ctx.decOpt(w.maxTradeAmount),
    makerFeeRate: ctx.dec(f('makerFeeRate'), w.makerFeeRate),
    takerFeeRate: ctx.dec(f('takerFeeRate'), w.takerFeeRate),
    buyLimitPriceRatio: ctx.decOpt(w.buyLimitPriceRatio),
    sellLimitPriceRatio: ctx.decOpt(w.sellLimitPriceRatio),
    tradingEnabled: w.enableTrade,
    contractValue: null,
    maxPositionSize: null,
    minLeverage: null,
    maxLeverage: null,
  };
}

export function futuresInstrument(ctx: ParseContext, w: WireContract, i: number): Instrument {
  const f = (name: string) => `[${i}].${name}`;
  const endStep = w.priceEndStep === undefined ? 1n : BigInt(typeof w.priceEndStep === 'number' ? w.priceEndStep : Number(w.priceEndStep));
  if (endStep < 1n) ctx.fail(f('priceEndStep'), `must be at least 1, got ${String(w.priceEndStep)}`);
  return {
    surface: 'futures',
    symbol: w.symbol,
    base: w.underlying_index,
    quote: w.quote_currency,
    tickSize: stepFrom(ctx, f('tick_size'), w.tick_size, Decimal.of(endStep)),
    stepSize: stepFrom(ctx, f('size_increment'), w.size_increment),
    minSize: ctx.dec(f('minOrderSize'), w.minOrderSize),
    maxSize: ctx.decOpt(w.maxOrderSize),
    makerFeeRate: ctx.dec(f('makerFeeRate'), w.makerFeeRate),
    takerFeeRate: ctx.dec(f('takerFeeRate'), w.takerFeeRate),
    buyLimitPriceRatio: ctx.decOpt(w.buyLimitPriceRatio),
    sellLimitPriceRatio: ctx.decOpt(w.sellLimitPriceRatio),
    tradingEnabled: true,
    // contract_val "0" appears in official samples: unknown, not a zero-sized contract.
    contractValue: ((d) => (d && !d.isZero() ? d : null))(ctx.decOpt(w.contract_val)),
    maxPositionSize: ctx.decOpt(w.maxPositionSize),
    minLeverage: w.minLeverage ?? null,
    maxLeverage: w.maxLeverage ?? null,
  };
}

export function ticker(ctx: ParseContext, w: WireTicker, i: number): Ticker {
  const ts = ctx.time(w.timestamp);
  const f = (name: string) => `[${i}].${name}`;
  return {
    symbol: w.symbol,
    last: ctx.priceOpt(f('last'), w.last),
    bestBid: ctx.priceOpt(f('best_bid'), w.best_bid),
    bestAsk: ctx.priceOpt(f('best_ask'), w.best_ask),
    markPrice: ctx.priceOpt(f('markPrice'), w.markPrice),
    indexPrice: ctx.priceOpt(f('indexPrice'), w.indexPrice),
    high24h: ctx.decOpt(w.high_24h),
    low24h: ctx.decOpt(w.low_24h),
    volume24h: ctx.decOpt(w.volume_24h),
    baseVolume24h: ctx.decOpt(w.base_volume),
    timestampMs: ts ?? ctx.fail(`[${i}].timestamp`, `not a millisecond timestamp: ${JSON.stringify(w.timestamp)}`),
  };
}

/** A public trade, or null (reported) when its price or size is not above zero: such a trade is dropped. */
export function publicTrade(ctx: ParseContext, w: WireSpotTrade, i: number): PublicTrade | null {
  const price = ctx.dec(`data[${i}].fillPrice`, w.fillPrice);
  const size = ctx.dec(`data[${i}].fillQuantity`, w.fillQuantity);
  if (!price.gt(Decimal.ZERO) || !size.gt(Decimal.ZERO)) {
    const [field, value] = price.gt(Decimal.ZERO) ? ['fillQuantity', w.fillQuantity] : ['fillPrice', w.fillPrice];
    ctx.report(`data[${i}].${field}`, value, 'trade with a non-positive price or size dropped');
    return null;
  }
  return {
    symbol: w.symbol,
    tradeId: w.tradeId,
    timestampMs: ctx.time(w.fillTime) ?? ctx.fail(`data[${i}].fillTime`, 'not a millisecond timestamp'),
    price,
    size,
    buyerMaker: w.buyerMaker,
  };
}

// Spot status values: "open" is confirmed; the others are reported by third-party clients of this venue.
const SPOT_STATUS: Record<string, OrderStatus> = {
  open: 'open', new: 'open', init: 'pending', partial_fill: 'open', partially_filled: 'open',
  full_fill: 'filled', filled: 'filled', cancelled: 'canceled', canceled: 'canceled', canceling: 'canceling',
};

export function spotOrder(ctx: ParseContext, w: WireSpotOrder, path: string): Order {
  const status = SPOT_STATUS[w.status];
  if (status === undefined) ctx.report(`${path}.status`, w.status, 'unknown spot order status');
  const side = w.side === 'buy' || w.side === 'sell' ? w.side : null;
  if (side === null) ctx.report(`${path}.side`, w.side, 'unknown side');
  const kind: OrderKind | null = w.orderType === 'limit' || w.orderType === 'market' ? w.orderType : null;
  if (kind === null && w.orderType !== '') ctx.report(`${path}.orderType`, w.orderType, 'unknown order type');
  const filled = ctx.decOpt(w.fillQuantity) ?? Decimal.ZERO;
  const total = ctx.decOpt(w.fillTotalAmount);
  return {
    surface: 'spot',
    symbol: w.symbol,
    orderId: longToString(w.orderId),
    clientOid: w.clientOrderId || null,
    side,
    positionSide: null,
    reduceOnly: false,
    kind,
    timeInForce: null,
    // A market order carries price "0": no price. Any other non-positive price is reported and unknown.
    price: kind === 'market' || isZeroText(w.price) ? null : ctx.priceOpt(`${path}.price`, w.price),
    size: ctx.dec(`${path}.quantity`, w.quantity),
    filledSize: filled,
    avgFillPrice: total && !filled.isZero() ? total.div(filled, 12) : null,
    fee: null,
    status: status ?? 'unknown',
    rawStatus: w.status,
    rawType: w.orderType,
    createdAtMs: ctx.time(w.cTime),
    updatedAtMs: ctx.time(w.uTime),
  };
}

const FUTURES_STATUS: Record<string, OrderStatus> = {
  pending: 'pending', open: 'open', filled: 'filled', canceling: 'canceling', canceled: 'canceled', untriggered: 'untriggered',
};

/** A futures order record (F5, F18, F19); `path` locates it in the answer (`[3]`, or "" for a bare object). */
export function futuresOrder(ctx: ParseContext, w: WireFuturesOrder, path: string): Order {
  const f = (name: string) => (path ? `${path}.${name}` : name);
  const status = FUTURES_STATUS[w.status];
  if (status === undefined) ctx.report(f('status'), w.status, 'unknown futures order status');
  const t = FUTURES_TYPE_FROM_NAME[w.type];
  if (t === undefined) ctx.report(f('type'), w.type, 'unknown futures order type');
  const tif = TIF_FROM_NAME[w.order_type];
  if (tif === undefined) ctx.report(f('order_type'), w.order_type, 'unknown futures order_type');
  // A market order comes back as ioc with price "0" / "0.0"; a negative price is reported and unknown.
  const market = isZeroText(w.price);
  const price = market ? null : ctx.priceOpt(f('price'), w.price);
  const avg = ctx.decOpt(w.price_avg);
  const filled = ctx.decOpt(w.filled_qty) ?? Decimal.ZERO;
  return {
    surface: 'futures',
    symbol: w.symbol,
    orderId: longToString(w.order_id),
    clientOid: w.client_oid || null,
    side: t ? futuresSide(t.positionSide, t.reduceOnly) : null,
    positionSide: t?.positionSide ?? null,
    reduceOnly: t?.reduceOnly ?? false,
    kind: market ? 'market' : 'limit',
    timeInForce: tif ?? null,
    price,
    size: ctx.dec(f('size'), w.size),
    filledSize: filled,
    // price_avg is "0" until something fills.
    avgFillPrice: avg !== null && avg.gt(Decimal.ZERO) ? avg : null,
    fee: ctx.decOpt(w.fee),
    status: status ?? 'unknown',
    rawStatus: w.status,
    rawType: w.type,
    createdAtMs: ctx.time(w.createTime),
    updatedAtMs: null,
  };
}

export function position(ctx: ParseContext, w: WirePosition, i: number, symbol: string): Position | null {
  const side = w.side.toUpperCase();
  if (side !== 'LONG' && side !== 'SHORT') {
    ctx.report(`[${i}].side`, w.side, 'unknown position side');
    return null;
  }
  const size = ctx.dec(`[${i}].size`, w.size);
  if (size.isZero()) return null;
  const openValue = ctx.dec(`[${i}].open_value`, w.open_value);
  return {
    symbol: w.symbol ?? symbol,
    side: side === 'LONG' ? 'long' : 'short',
    size,
    openValue,
    entryPrice: openValue.div(size, 12),
    leverage: ctx.decOpt(w.leverage),
    marginMode: w.margin_mode ?? '',
    isolatedMargin: ctx.decOpt(w.isolated_margin),
    openFee: ctx.decOpt(w.open_fee),
    fundingFee: ctx.decOpt(w.funding_fee),
    updatedAtMs: ctx.time(w.updated_time),
  };
}

export function spotBalance(ctx: ParseContext, w: WireSpotAsset, i: number): Balance {
  return {
    surface: 'spot',
    asset: w.coinName,
    available: ctx.decOpt(w.available),
    frozen: ctx.decOpt(w.frozen),
    total: ctx.dec(`data[${i}].equity`, w.equity),
  };
}

/** Collateral coin id 2 is USDT (the default collateral currency). */
const COIN_IDS: Record<number, string> = { 2: 'USDT' };

export function futuresBalance(ctx: ParseContext, w: WireCollateral, i: number): Balance {
  const asset = w.coin ?? (w.coin_id !== undefined ? COIN_IDS[w.coin_id] : undefined);
  if (asset === undefined) ctx.report(`collateral[${i}].coin_id`, w.coin_id, 'unknown collateral coin id');
  return {
    surface: 'futures',
    asset: asset ?? `coin_${String(w.coin_id ?? '?')}`,
    available: null,
    frozen: null,
    total: ctx.dec(`collateral[${i}].amount`, w.amount),
  };
}

export function spotFill(ctx: ParseContext, w: WireSpotFill, i: number): Fill {
  const path = `data.fillsOrderResultList[${i}]`;
  const size = ctx.dec(`${path}.fillQuantity`, w.fillQuantity);
  const amount = ctx.dec(`${path}.fillTotalAmount`, w.fillTotalAmount);
  if (!size.gt(Decimal.ZERO)) ctx.fail(`${path}.fillQuantity`, `must be above zero, got ${JSON.stringify(w.fillQuantity)}`);
  // fillPrice may be "": derive it from amount / size.
  const price = ctx.priceOpt(`${path}.fillPrice`, w.fillPrice) ?? quotient(amount, size);
  if (!price.gt(Decimal.ZERO)) ctx.fail(`${path}.fillTotalAmount`, `gives a non-positive price: ${JSON.stringify(w.fillTotalAmount)} / ${JSON.stringify(w.fillQuantity)}`);
  const side = w.side === 'buy' || w.side === 'sell' ? w.side : ctx.fail(`${path}.side`, `unknown side ${JSON.stringify(w.side)}`);
  return {
    symbol: w.symbol,
    orderId: longToString(w.orderId),
    fillId: longToString(w.fillId),
    side,
    price,
    size,
    amount,
    fee: ctx.dec(`${path}.fees`, w.fees),
    timestampMs: ctx.time(w.cTime) ?? ctx.fail(`${path}.cTime`, 'not a millisecond timestamp'),
  };
}

/** An F20 fill. The price is the venue's when a revision sends one, else fillValue / fillSize, exact when it terminates. */
export function futuresFill(ctx: ParseContext, w: WireFuturesFill, i: number): Fill {
  const path = `list[${i}]`;
  const size = ctx.dec(`${path}.fillSize`, w.fillSize);
  if (!size.gt(Decimal.ZERO)) ctx.fail(`${path}.fillSize`, `must be above zero, got ${JSON.stringify(w.fillSize)}`);
  const amount = ctx.dec(`${path}.fillValue`, w.fillValue);
  const price = ctx.priceOpt(`${path}.fillPrice`, w.fillPrice) ?? quotient(amount, size);
  if (!price.gt(Decimal.ZERO)) ctx.fail(`${path}.fillValue`, `gives a non-positive price: ${JSON.stringify(w.fillValue)} / ${JSON.stringify(w.fillSize)}`);
  return {
    symbol: w.symbol,
    orderId: longToString(w.orderId),
    fillId: longToString(w.tradeId),
    side: futuresFillSide(ctx, w, path),
    price,
    size,
    amount,
    // Sign convention unconfirmed: kept as the venue sends it.
    fee: ctx.dec(`${path}.fillFee`, w.fillFee),
    timestampMs: ctx.time(w.createdTime) ?? ctx.fail(`${path}.createdTime`, 'not a millisecond timestamp'),
  };
}

/** orderSide BUY/SELL; failing that, a direction name (OPEN_LONG...) from legacyOrdeDirection or direction. */
function futuresFillSide(ctx: ParseContext, w: WireFuturesFill, path: string): 'buy' | 'sell' {
  const side = (w.orderSide ?? '').toLowerCase();
  if (side === 'buy' || side === 'sell') return side;
  if (w.orderSide) ctx.report(`${path}.orderSide`, w.orderSide, 'unknown order side');
  for (const name of [w.legacyOrdeDirection, w.direction]) {
    const a = name ? FUTURES_TYPE_FROM_NAME[name.toLowerCase()] : undefined;
    if (a) return futuresSide(a.positionSide, a.reduceOnly);
  }
  return ctx.fail(`${path}.orderSide`, `no side: orderSide ${JSON.stringify(w.orderSide ?? null)}, direction ${JSON.stringify(w.direction ?? null)}`);
}

/** a / b, exact when the quotient terminates (the usual case: value = price × size); else rounded at 18 places. */
export function quotient(a: Decimal, b: Decimal): Decimal {
  // b = m·10^-s with m = 2^x·5^y·r: a terminating quotient needs at most a.scale + max(x, y) places, and
  // max(x, y) is below the bit length of m.
  const bits = (b.mantissa < 0n ? -b.mantissa : b.mantissa).toString(2).length;
  const q = a.div(b, a.scale + bits);
  return q.mul(b).eq(a) ? q : a.div(b, 18);
}

/** "0", "0.0", "0.000": how market orders report their price. */
function isZeroText(v: string): boolean {
  return /^0+(?:\.0*)?$/.test(v);
}

// ---- domain -> wire (requests) ----


export function spotOrderItem(o: OrderRequest): WireSpotOrderItem {
  return {
    side: o.side,
    orderType: o.kind,
    force: TIF_NAME[o.timeInForce],
    ...(o.kind === 'limit' && o.price ? { price: o.price.toString() } : {}),
    quantity: o.size.toString(),
    clientOrderId: o.clientOid,
  };
}

export function futuresOrderItem(o: OrderRequest): WireFuturesOrderItem {
  const positionSide = o.positionSide ?? (o.side === 'buy' ? 'long' : 'short');
  return {
    client_oid: o.clientOid,
    size: o.size.toString(),
    type: futuresTypeCode(positionSide, o.reduceOnly ?? false),
    order_type: TIF_CODE[o.timeInForce],
    match_price: o.kind === 'market' ? '1' : '0',
    // The venue requires a price even for market orders and ignores it.
    price: o.kind === 'limit' && o.price ? o.price.toString() : '0',
  };
}

// ---- wire -> per-item results ----

/** A failure of the whole request becomes every item's result: unknown if the venue may have acted. */
export function wholeRequestResults(err: ExchangeError, items: Array<{ clientOid: string | null; orderId: string | null }>): ItemResult[] {
  return items.map((i) => (err.outcomeUnknown ? { outcome: 'unknown', ...i, error: err } : { outcome: 'rejected', ...i, error: err }));
}

function missing(endpoint: EndpointId, what: string): ExchangeError {
  return new ExchangeError('bad-response', `${what} is missing from the answer: its outcome is unknown`, { endpoint });
}

/** S6: accepted items come back in resultList by clientOrderId; an item missing from it is unknown. */
export function spotPlaceResults(data: ResponseOf<'S6'>, sent: OrderRequest[]): ItemResult[] {
  const byOid = new Map(data.resultList.map((r) => [r.clientOrderId ?? '', longToString(r.orderId)]));
  return sent.map((o) => {
    const orderId = byOid.get(o.clientOid);
    return orderId !== undefined
      ? { outcome: 'accepted', clientOid: o.clientOid, orderId }
      : { outcome: 'unknown', clientOid: o.clientOid, orderId: null, error: missing('S6', `order ${o.clientOid}`) };
  });
}

/** F6: order_info per item by client_oid; result false is a refusal with its code. */
export function futuresPlaceResults(data: ResponseOf<'F6'>, sent: OrderRequest[]): ItemResult[] {
  const byOid = new Map(data.order_info.map((r) => [r.client_oid ?? '', r]));
  return sent.map((o, i) => {
    const r = byOid.get(o.clientOid) ?? (data.order_info.length === sent.length && !data.order_info[i]!.client_oid ? data.order_info[i] : undefined);
    if (!r) return { outcome: 'unknown', clientOid: o.clientOid, orderId: null, error: missing('F6', `order ${o.clientOid}`) };
    const orderId = r.order_id === undefined || r.order_id === null || r.order_id === '' ? null : longToString(r.order_id);
    if (r.result && orderId) return { outcome: 'accepted', clientOid: o.clientOid, orderId };
    if (r.result) return { outcome: 'unknown', clientOid: o.clientOid, orderId: null, error: missing('F6', `order id of ${o.clientOid}`) };
    return { outcome: 'rejected', clientOid: o.clientOid, orderId, error: classifyItemError('F6', r.error_code, r.error_message) };
  });
}

/** S4 / S5: successList holds order ids; failureList the refusals. */
export function spotCancelResults(endpoint: 'S4' | 'S5', data: ResponseOf<'S4'>, target: CancelTarget): ItemResult[] {
  const ok = data.successList.map((id) => longToString(id));
  const failures = data.failureList.map((f) => ({
    orderId: f.orderId === undefined ? null : longToString(f.orderId),
    clientOid: f.clientOid || null,
    error: classifyItemError(endpoint, undefined, f.errMsg),
  }));
  if (endpoint === 'S5' || (!target.orderIds && !target.clientOids)) {
    return [
      ...ok.map((orderId): ItemResult => ({ outcome: 'accepted', clientOid: null, orderId })),
      ...failures.map((f): ItemResult => ({ outcome: 'rejected', ...f })),
    ];
  }
  if (target.orderIds) {
    const okSet = new Set(ok);
    return target.orderIds.map((orderId) => {
      if (okSet.has(orderId)) return { outcome: 'accepted', clientOid: null, orderId };
      const f = failures.find((x) => x.orderId === orderId);
      return f ? { outcome: 'rejected', ...f } : { outcome: 'unknown', clientOid: null, orderId, error: missing(endpoint, `order ${orderId}`) };
    });
  }
  // By client ids: successes name order ids only and the venue's failures may leave the client id empty, so an item
  // is accepted only when every item succeeded; a failure is matched by its client id; anything else is unknown
  // (resolved by query: a "canceled" guessed by position could be an order that filled).
  const oids = target.clientOids ?? [];
  const failed = new Map(failures.filter((f) => f.clientOid).map((f) => [f.clientOid!, f]));
  const allOk = failures.length === 0 && ok.length === oids.length;
  return oids.map((clientOid, i) => {
    const f = failed.get(clientOid);
    if (f) return { outcome: 'rejected', ...f };
    if (allOk) return { outcome: 'accepted', clientOid, orderId: ok[i]! };
    return { outcome: 'unknown', clientOid, orderId: null, error: missing(endpoint, `cancel of ${clientOid}`) };
  });
}

/** F7: cancelOrderResultList / failInfos per id. */
export function futuresCancelResults(data: ResponseOf<'F7'>, target: CancelTarget): ItemResult[] {
  const rows = [...data.cancelOrderResultList, ...(data.failInfos ?? [])];
  const byId = (id: string) => rows.find((r) => r.order_id !== undefined && r.order_id !== '' && longToString(r.order_id) === id);
  const byOid = (oid: string) => rows.find((r) => r.client_oid === oid);
  const keys = target.orderIds ? target.orderIds.map((id) => ({ orderId: id, clientOid: null as string | null })) : (target.clientOids ?? []).map((oid) => ({ orderId: null as string | null, clientOid: oid }));
  return keys.map((k) => {
    const r = k.orderId !== null ? byId(k.orderId) : byOid(k.clientOid!);
    if (!r) return { outcome: 'unknown', ...k, error: missing('F7', `cancel of ${k.orderId ?? k.clientOid}`) };
    if (r.result) return { outcome: 'accepted', clientOid: k.clientOid, orderId: k.orderId ?? (r.order_id ? longToString(r.order_id) : '') };
    return { outcome: 'rejected', ...k, error: classifyItemError('F7', r.err_code, r.err_msg) };
  });
}
