// Own fills -> domain fills: spot (S2) and futures (F20). A fill's size must be above zero; its price is the
// venue's when it sends one, else amount / size, exact whenever that quotient terminates.
import { Decimal } from '../../domain/decimal.js';
import type { Fill } from '../../domain/market.js';
import { futuresSide } from '../../domain/order.js';
import { FUTURES_TYPE_FROM_NAME } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import type { WireFuturesFill, WireSpotFill } from '../wire/responses.js';
import { fieldsAt, type FieldNamer, type ParseContext } from './parse-context.js';

/** a / b, exact when the quotient terminates (the usual case: value = price × size); else rounded at 18 places. */
export function quotient(a: Decimal, b: Decimal): Decimal {
  // b = m·10^-s with m = 2^x·5^y·r: a terminating quotient needs at most a.scale + max(x, y) places, and
  // max(x, y) is below the bit length of m.
  const bits = (b.mantissa < 0n ? -b.mantissa : b.mantissa).toString(2).length;
  const q = a.div(b, a.scale + bits);
  return q.mul(b).eq(a) ? q : a.div(b, 18);
}

/** A wire field's name and text. */
type WireField = [name: string, text: string | undefined];

/** Size (above zero), amount, and price: `fillPrice` (so named on both surfaces), or amount / size when it is ""; above zero. */
function fillFigures(
  ctx: ParseContext,
  field: FieldNamer,
  [sizeName, sizeText]: WireField,
  [amountName, amountText]: WireField,
  fillPrice: string | undefined,
): Pick<Fill, 'price' | 'size' | 'amount'> {
  const size = ctx.positive(field(sizeName), sizeText);
  const amount = ctx.dec(field(amountName), amountText);
  const price = ctx.priceOpt(field('fillPrice'), fillPrice) ?? quotient(amount, size);
  if (!price.gt(Decimal.ZERO)) ctx.fail(field(amountName), `gives a non-positive price: ${JSON.stringify(amountText)} / ${JSON.stringify(sizeText)}`);
  return { price, size, amount };
}

export function spotFill(ctx: ParseContext, record: WireSpotFill, i: number): Fill {
  const field = fieldsAt(`data.fillsOrderResultList[${i}]`);
  const { price, size, amount } = fillFigures(ctx, field, ['fillQuantity', record.fillQuantity], ['fillTotalAmount', record.fillTotalAmount], record.fillPrice);
  const side = record.side === 'buy' || record.side === 'sell' ? record.side : ctx.fail(field('side'), `unknown side ${JSON.stringify(record.side)}`);
  return {
    symbol: record.symbol,
    orderId: longToString(record.orderId),
    fillId: longToString(record.fillId),
    side,
    price,
    size,
    amount,
    fee: ctx.dec(field('fees'), record.fees),
    timestampMs: ctx.time(record.cTime) ?? ctx.fail(field('cTime'), 'not a millisecond timestamp'),
  };
}

/** An F20 fill. The price is the venue's when a revision sends one, else fillValue / fillSize. */
export function futuresFill(ctx: ParseContext, record: WireFuturesFill, i: number): Fill {
  const field = fieldsAt(`list[${i}]`);
  const { price, size, amount } = fillFigures(ctx, field, ['fillSize', record.fillSize], ['fillValue', record.fillValue], record.fillPrice);
  return {
    symbol: record.symbol,
    orderId: longToString(record.orderId),
    fillId: longToString(record.tradeId),
    side: futuresFillSide(ctx, record, field),
    price,
    size,
    amount,
    // Sign convention unconfirmed: kept as the venue sends it.
    fee: ctx.dec(field('fillFee'), record.fillFee),
    timestampMs: ctx.time(record.createdTime) ?? ctx.fail(field('createdTime'), 'not a millisecond timestamp'),
  };
}

/** orderSide BUY/SELL; failing that, a direction name (OPEN_LONG...) from legacyOrdeDirection or direction. */
function futuresFillSide(ctx: ParseContext, record: WireFuturesFill, field: FieldNamer): 'buy' | 'sell' {
  const side = (record.orderSide ?? '').toLowerCase();
  if (side === 'buy' || side === 'sell') return side;
  if (record.orderSide) ctx.report(field('orderSide'), record.orderSide, 'unknown order side');
  for (const name of [record.legacyOrdeDirection, record.direction]) {
    const action = name ? FUTURES_TYPE_FROM_NAME[name.toLowerCase()] : undefined;
    if (action) return futuresSide(action.positionSide, action.reduceOnly);
  }
  return ctx.fail(field('orderSide'), `no side: orderSide ${JSON.stringify(record.orderSide ?? null)}, direction ${JSON.stringify(record.direction ?? null)}`);
}
