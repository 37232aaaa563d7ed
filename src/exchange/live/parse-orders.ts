// Order records -> domain orders: spot (S1, S3, S15), futures (F5, F18, F19) and futures trigger orders (F21,
// F22). Unknown statuses, sides and types are reported and kept as unknown; a market order's price "0" is no price.
import { Decimal } from '../../domain/decimal.js';
import { futuresSide, type Order, type OrderKind, type OrderStatus, type TimeInForce } from '../../domain/order.js';
import type { PositionSide } from '../../domain/market.js';
import type { TriggerOrder } from '../client.js';
import { FUTURES_TYPE_FROM_NAME, PLAN_STATUS_FROM_CODE, PLAN_TYPE_FROM_CODE, TIF_FROM_CODE, TIF_FROM_NAME } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import type { WireFuturesOrder, WirePlanOrder, WireSpotOrder } from '../wire/responses.js';
import { fieldsAt, type ParseContext } from './parse-context.js';

// Spot status values: "open" is confirmed; the others are reported by third-party clients of this venue.
const SPOT_STATUS: Record<string, OrderStatus> = {
  open: 'open',
  new: 'open',
  init: 'pending',
  partial_fill: 'open',
  partially_filled: 'open',
  full_fill: 'filled',
  filled: 'filled',
  cancelled: 'canceled',
  canceled: 'canceled',
  canceling: 'canceling',
};

const FUTURES_STATUS: Record<string, OrderStatus> = {
  pending: 'pending',
  open: 'open',
  filled: 'filled',
  canceling: 'canceling',
  canceled: 'canceled',
  untriggered: 'untriggered',
};

/** "0", "0.0", "0.000": how market orders report their price. */
function isZeroText(text: string): boolean {
  return /^0+(?:\.0*)?$/.test(text);
}

/** A spot order record; `path` locates it in the answer (`data[0]`, `data.orderInfoResultList[3]`). */
export function spotOrder(ctx: ParseContext, record: WireSpotOrder, path: string): Order {
  const field = fieldsAt(path);
  const status = SPOT_STATUS[record.status];
  if (status === undefined) ctx.report(field('status'), record.status, 'unknown spot order status');
  const side = record.side === 'buy' || record.side === 'sell' ? record.side : null;
  if (side === null) ctx.report(field('side'), record.side, 'unknown side');
  const kind: OrderKind | null = record.orderType === 'limit' || record.orderType === 'market' ? record.orderType : null;
  if (kind === null && record.orderType !== '') ctx.report(field('orderType'), record.orderType, 'unknown order type');
  const filled = ctx.decOpt(record.fillQuantity) ?? Decimal.ZERO;
  const total = ctx.decOpt(record.fillTotalAmount);
  return {
    surface: 'spot',
    symbol: record.symbol,
    orderId: longToString(record.orderId),
    clientOid: record.clientOrderId || null,
    side,
    positionSide: null,
    reduceOnly: false,
    kind,
    timeInForce: null,
    // A market order carries price "0": no price. Any other non-positive price is reported and unknown.
    price: kind === 'market' || isZeroText(record.price) ? null : ctx.priceOpt(field('price'), record.price),
    size: ctx.dec(field('quantity'), record.quantity),
    filledSize: filled,
    avgFillPrice: total && !filled.isZero() ? total.div(filled, 12) : null,
    fee: null,
    status: status ?? 'unknown',
    rawStatus: record.status,
    rawType: record.orderType,
    createdAtMs: ctx.time(record.cTime),
    updatedAtMs: ctx.time(record.uTime),
  };
}

/** What a futures order record and a trigger order record (F5, F18, F19; F21, F22) share, once decoded. */
interface FuturesRecordCodes {
  status: OrderStatus | undefined;
  action: { positionSide: PositionSide; reduceOnly: boolean } | undefined;
  tif: TimeInForce | undefined;
  rawStatus: string;
  rawType: string;
}

/**
 * The order fields of a futures order record, plain or trigger. A market order comes back as ioc with price "0" /
 * "0.0" (no price); a negative price is reported and unknown; price_avg is "0" until something fills.
 */
function futuresOrderFields(ctx: ParseContext, record: WireFuturesOrder | WirePlanOrder, field: (name: string) => string, codes: FuturesRecordCodes): Order {
  const { action } = codes;
  const market = isZeroText(record.price);
  const avg = ctx.decOpt(record.price_avg);
  return {
    surface: 'futures',
    symbol: record.symbol,
    orderId: longToString(record.order_id),
    clientOid: record.client_oid || null,
    side: action ? futuresSide(action.positionSide, action.reduceOnly) : null,
    positionSide: action?.positionSide ?? null,
    reduceOnly: action?.reduceOnly ?? false,
    kind: market ? 'market' : 'limit',
    timeInForce: codes.tif ?? null,
    price: market ? null : ctx.priceOpt(field('price'), record.price),
    size: ctx.dec(field('size'), record.size),
    filledSize: ctx.decOpt(record.filled_qty) ?? Decimal.ZERO,
    avgFillPrice: avg !== null && avg.gt(Decimal.ZERO) ? avg : null,
    fee: ctx.decOpt(record.fee),
    status: codes.status ?? 'unknown',
    rawStatus: codes.rawStatus,
    rawType: codes.rawType,
    createdAtMs: ctx.time(record.createTime),
    updatedAtMs: null,
  };
}

/** A futures order record (F5, F18, F19); `path` locates it in the answer (`[3]`, or "" for a bare object). */
export function futuresOrder(ctx: ParseContext, record: WireFuturesOrder, path: string): Order {
  const field = fieldsAt(path);
  const status = FUTURES_STATUS[record.status];
  if (status === undefined) ctx.report(field('status'), record.status, 'unknown futures order status');
  const action = FUTURES_TYPE_FROM_NAME[record.type];
  if (action === undefined) ctx.report(field('type'), record.type, 'unknown futures order type');
  const tif = TIF_FROM_NAME[record.order_type];
  if (tif === undefined) ctx.report(field('order_type'), record.order_type, 'unknown futures order_type');
  return futuresOrderFields(ctx, record, field, { status, action, tif, rawStatus: record.status, rawType: record.type });
}

/**
 * A futures trigger order record (F21, F22); `path` locates it in the answer (`[3]`, `list[3]`). Status, type and
 * order_type come as digits. Execution at market shows as price "0". `triggerTime` is taken as the firing time
 * only once the order is past pending: a pending order has not fired, whatever the field holds ("0", "" or, in the
 * documented sample, the creation time).
 */
export function triggerOrder(ctx: ParseContext, record: WirePlanOrder, path: string): TriggerOrder {
  const field = fieldsAt(path);
  const [rawStatus, rawType, rawTif] = [String(record.status), String(record.type), String(record.order_type)];
  const status = PLAN_STATUS_FROM_CODE[rawStatus];
  if (status === undefined) ctx.report(field('status'), record.status, 'unknown trigger order status');
  const action = PLAN_TYPE_FROM_CODE[rawType];
  if (action === undefined) ctx.report(field('type'), record.type, 'unknown trigger order type');
  const tif = TIF_FROM_CODE[rawTif] ?? TIF_FROM_NAME[rawTif];
  if (tif === undefined) ctx.report(field('order_type'), record.order_type, 'unknown trigger order order_type');
  const firedMs = status === 'untriggered' || record.triggerTime === null ? null : ctx.time(record.triggerTime);
  return {
    ...futuresOrderFields(ctx, record, field, { status, action, tif, rawStatus, rawType }),
    triggerPrice: ctx.priceOpt(field('triggerPrice'), record.triggerPrice),
    triggeredAtMs: firedMs !== null && firedMs > 0 ? firedMs : null,
  };
}
