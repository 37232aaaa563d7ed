// An order as the simulator keeps it (price in ticks, sizes in steps of its instrument), and its domain view.
import { Decimal } from '../../domain/decimal.js';
import type { Instrument, PositionSide, Surface } from '../../domain/market.js';
import type { Order, OrderKind, OrderStatus, Side, TimeInForce } from '../../domain/order.js';

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
  createdAtMs: number;
  updatedAtMs: number;
  /** Spot: funds frozen for the rest of the order (quote for buys, base for sells). */
  reserved: Decimal;
  /** Trigger orders: price in ticks, the direction it fires in, and when it fired (null: not yet). */
  triggerTicks: number | null;
  triggerUp: boolean;
  isTrigger: boolean;
  firedAtMs: number | null;
  /**
   * Queue fill model (sim.fills: queue): the displayed size resting ahead of this order at its price when it began to
   * rest, lessened by each trade at that price and never more than what the level shows; the order fills at its price
   * only once none is left ahead. Unset while the order has not rested, and under the other models.
   */
  queueAheadSteps?: number;
  /** A position's take-profit or stop-loss (F23): a trigger closing up to its size of the position, canceled when the side goes flat. */
  role?: 'stop-loss' | 'take-profit';
  /** The trigger watches the mark price instead of the last price (F24 `triggerPriceType` 3). */
  triggerOnMark?: boolean;
  /** A liquidation close (the venue's `burst_liquidate_long` / `burst_liquidate_short`), made by the simulator. */
  liquidation?: boolean;
}

/** The domain Order of a simulator order; `inst` is its symbol's instrument. */
export function toDomainOrder(order: SimOrder, inst: Pick<Instrument, 'tickSize' | 'stepSize'>): Order {
  const filled = Decimal.ofSteps(order.filledSteps, inst.stepSize);
  return {
    surface: order.surface,
    symbol: order.symbol,
    orderId: order.orderId,
    clientOid: order.clientOid,
    side: order.side,
    positionSide: order.positionSide,
    reduceOnly: order.reduceOnly,
    kind: order.kind,
    timeInForce: order.tif,
    price: order.priceTicks === null ? null : Decimal.ofSteps(order.priceTicks, inst.tickSize),
    size: Decimal.ofSteps(order.sizeSteps, inst.stepSize),
    filledSize: filled,
    avgFillPrice: order.filledSteps === 0 ? null : order.filledValue.div(filled, 12),
    fee: order.fee,
    status: order.status,
    rawStatus: order.status,
    rawType: order.kind,
    createdAtMs: order.createdAtMs,
    updatedAtMs: order.updatedAtMs,
  };
}
