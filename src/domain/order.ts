// Normalised order records, whichever surface they come from.
import type { Decimal } from './decimal.js';
import type { PositionSide, Surface } from './market.js';

export type Side = 'buy' | 'sell';
export type OrderKind = 'limit' | 'market';
export type TimeInForce = 'gtc' | 'post_only' | 'fok' | 'ioc';
/** `open` covers partially filled orders (filledSize > 0); `unknown` is a status value the venue sent that we do not know. */
export type OrderStatus = 'pending' | 'open' | 'filled' | 'canceling' | 'canceled' | 'untriggered' | 'unknown';

export interface Order {
  surface: Surface;
  symbol: string;
  /** Venue order id, digit for digit (spot ids exceed 2^53). */
  orderId: string;
  clientOid: string | null;
  side: Side | null;
  /** Futures: the position this order opens or closes. */
  positionSide: PositionSide | null;
  reduceOnly: boolean;
  kind: OrderKind | null;
  timeInForce: TimeInForce | null;
  price: Decimal | null;
  size: Decimal;
  filledSize: Decimal;
  avgFillPrice: Decimal | null;
  fee: Decimal | null;
  status: OrderStatus;
  /** The venue's own status and type strings, kept for unknown values and audits. */
  rawStatus: string;
  rawType: string;
  createdAtMs: number | null;
  updatedAtMs: number | null;
}

/** The side a futures order trades: opening a long and closing a short buy; opening a short and closing a long sell. */
export function futuresSide(positionSide: PositionSide, reduceOnly: boolean): Side {
  return (positionSide === 'long') !== reduceOnly ? 'buy' : 'sell';
}
