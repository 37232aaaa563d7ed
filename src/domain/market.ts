// Normalised market and account data the layers above the exchange client work with (no venue field names).
import type { Decimal } from './decimal.js';

export type Surface = 'spot' | 'futures';

/**
 * The surface a venue symbol names, by the venue's naming rule (futures `cmt_…`, spot `…_SPBL`), for where no
 * instrument list is at hand (checking a configuration offline). With an instrument list, its `surface` decides.
 */
export function surfaceOfSymbol(symbol: string): Surface {
  return symbol.startsWith('cmt_') ? 'futures' : 'spot';
}

export interface Instrument {
  surface: Surface;
  /** Venue symbol: `BTCUSDT_SPBL` (spot) or `cmt_btcusdt` (futures). */
  symbol: string;
  base: string;
  quote: string;
  /** Smallest price increment. Futures: priceEndStep × 10^-tick_size. */
  tickSize: Decimal;
  /** Smallest size increment (base currency). Futures: 10^-size_increment. */
  stepSize: Decimal;
  minSize: Decimal;
  maxSize: Decimal | null;
  makerFeeRate: Decimal;
  takerFeeRate: Decimal;
  /** Allowed distance of a buy / sell limit price from the market, as a ratio (0.015 = 1.5 %); null if unknown. */
  buyLimitPriceRatio: Decimal | null;
  sellLimitPriceRatio: Decimal | null;
  tradingEnabled: boolean;
  /** Futures only: base-currency size of one contract, max position size, leverage bounds. */
  contractValue: Decimal | null;
  maxPositionSize: Decimal | null;
  minLeverage: number | null;
  maxLeverage: number | null;
}

export interface Ticker {
  symbol: string;
  last: Decimal | null;
  bestBid: Decimal | null;
  bestAsk: Decimal | null;
  markPrice: Decimal | null;
  indexPrice: Decimal | null;
  high24h: Decimal | null;
  low24h: Decimal | null;
  /** 24 h volume in quote currency and in base currency. */
  volume24h: Decimal | null;
  baseVolume24h: Decimal | null;
  timestampMs: number;
  /**
   * Set when the "ticker" is a spot pair's last public trade (the venue has no spot ticker in the interface): its
   * time moves only when someone trades, so a quiet pair is not a frozen feed.
   */
  fromTrade?: true;
}

export interface PublicTrade {
  symbol: string;
  tradeId: string;
  timestampMs: number;
  price: Decimal;
  size: Decimal;
  /** True when the buyer was the resting (maker) side, i.e. the aggressor sold. */
  buyerMaker: boolean;
}

export type PositionSide = 'long' | 'short';

export interface Position {
  symbol: string;
  side: PositionSide;
  size: Decimal;
  /** Value at opening (quote currency) and the average entry price derived from it; null when size is 0. */
  openValue: Decimal;
  entryPrice: Decimal | null;
  leverage: Decimal | null;
  marginMode: string;
  isolatedMargin: Decimal | null;
  openFee: Decimal | null;
  fundingFee: Decimal | null;
  updatedAtMs: number | null;
  /**
   * Where the venue gives them (F29, the simulator's F4): the venue's position id, the mark price, the unrealised
   * PnL at mark, the margin held, the funding settled over the position's life (as a change of collateral:
   * negative when paid), and the venue's estimated liquidation price (null: no liquidation price, low risk).
   */
  positionId?: string;
  markPrice?: Decimal | null;
  unrealizedPnl?: Decimal | null;
  margin?: Decimal | null;
  cumFundingFee?: Decimal | null;
  liquidationPrice?: Decimal | null;
}

export interface Balance {
  surface: Surface;
  asset: string;
  /** Null when the venue does not report it for this account kind. */
  available: Decimal | null;
  frozen: Decimal | null;
  total: Decimal;
  /**
   * Futures collateral (F3) only, where the venue gives them: funding settled over the account's life as a change
   * of collateral (negative when paid, `cum_position_funding_amount`), and whether a liquidation is in progress.
   */
  cumFunding?: Decimal | null;
  liquidating?: boolean;
}

/**
 * What moved a futures account's collateral (F30 `businessType`): funding, fees, realised PnL of opens and closes,
 * liquidation, a liquidation loss compensated, transfers; `other` for a type we do not know (the raw one is kept).
 */
export type LedgerKind = 'funding' | 'fee' | 'open' | 'close' | 'liquidation-start' | 'liquidation-finish' | 'liquidation-compensation' | 'transfer' | 'other';

/** One F30 bill. */
export interface LedgerEntry {
  /** Digit for digit (the venue sends it as a number above 2^53). */
  billId: string;
  asset: string;
  symbol: string | null;
  kind: LedgerKind;
  /** The venue's `businessType`. */
  rawKind: string;
  /** Signed change of collateral: positive a credit, negative a debit. */
  amount: Decimal;
  /** Collateral after the entry; null when not given. */
  balance: Decimal | null;
  fee: Decimal | null;
  timestampMs: number;
}

/** One execution of one of our orders. */
export interface Fill {
  symbol: string;
  orderId: string;
  fillId: string;
  side: 'buy' | 'sell';
  /** Derived from amount / size when the venue leaves the price empty. */
  price: Decimal;
  size: Decimal;
  /** Quote amount: price × size. */
  amount: Decimal;
  fee: Decimal;
  timestampMs: number;
}

/** One price level of an order book: price and size (base currency). */
export interface BookLevel {
  price: Decimal;
  size: Decimal;
}

/** The top of an order book (S13 / F13): bids best first (descending), asks best first (ascending). */
export interface OrderBook {
  symbol: string;
  bids: BookLevel[];
  asks: BookLevel[];
  /** The venue's time of the book (ms). */
  timestampMs: number;
}

/** A contract's current funding rate (F14): the rate, the settlement cycle and the venue's time of the reading. */
export interface FundingRate {
  symbol: string;
  /** A ratio (0.0001 = 0.01 %): positive, longs pay shorts. */
  rate: Decimal;
  /** Minutes between settlements (`collectCycle`). */
  cycleMinutes: number;
  /** The reading's time as the venue gives it (not the next settlement: F15 says when that is). */
  timestampMs: number;
}

/** One settled funding rate (F16). */
export interface FundingSettlement {
  symbol: string;
  rate: Decimal;
  fundingTimeMs: number;
}

/** A contract's index or mark price (F17). */
export interface PriceIndex {
  symbol: string;
  kind: 'index' | 'mark';
  price: Decimal;
  timestampMs: number;
}

/** One liquidation of a futures position side: the forced close, its price, the mark that triggered it, its loss and fee. */
export interface Liquidation {
  symbol: string;
  side: PositionSide;
  atMs: number;
  size: Decimal;
  price: Decimal;
  /** Mark when it triggered. */
  mark: Decimal;
  /** Realised PnL of the close (negative: a loss) and the liquidation fee. */
  pnl: Decimal;
  fee: Decimal;
  orderId: string;
}
