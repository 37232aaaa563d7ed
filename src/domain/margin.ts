// Cross-margin arithmetic of USDT-margined futures, as the venue documents it (exchange extensions §7.2): the
// maintenance margin rate by position tier, unrealised PnL at mark, the account's margin rate, the liquidation
// trigger and the estimated liquidation price. The simulator liquidates with it and the risk gate watches the
// distance to it, so both read the same numbers. Exact decimals throughout.
import { Decimal } from './decimal.js';
import type { PositionSide } from './market.js';

/** Decimal places kept by the divisions here (rates, prices before rounding to the tick). */
export const MARGIN_SCALE = 12;

/**
 * One maintenance tier: positions up to `upToContracts` contracts (null: no upper bound) keep at least `rate` of
 * their value at mark as margin; `maxLeverage` is the venue's cap for the tier (shown, not enforced here).
 */
export interface MaintenanceTier {
  upToContracts: number | null;
  rate: Decimal;
  maxLeverage: number;
}

/**
 * The venue's published example (TRB/USDT from 2023-09-15, in contracts): 0–5,000 2.5 % (10×), –25,000 5 % (5×),
 * –400,000 10 % (3×), –1,000,000 12.5 % (2×), above 50 % (1×). No v2 endpoint serves the tiers of a contract.
 */
export const DEFAULT_MAINTENANCE_TIERS: readonly MaintenanceTier[] = [
  { upToContracts: 5_000, rate: Decimal.from('0.025'), maxLeverage: 10 },
  { upToContracts: 25_000, rate: Decimal.from('0.05'), maxLeverage: 5 },
  { upToContracts: 400_000, rate: Decimal.from('0.1'), maxLeverage: 3 },
  { upToContracts: 1_000_000, rate: Decimal.from('0.125'), maxLeverage: 2 },
  { upToContracts: null, rate: Decimal.from('0.5'), maxLeverage: 1 },
];

/**
 * What triggers a cross-margin liquidation. `maintenance`: equity at or below the maintenance margin (the venue's
 * estimated-liquidation-price formula). `maintenance-plus-fee`: at or below maintenance plus the closing fee of
 * the positions (its liquidation-process page, for cross margin). The sources disagree; configurable.
 */
export type LiquidationTrigger = 'maintenance' | 'maintenance-plus-fee';

/** The maintenance rate of a position of `contracts` contracts (its size / contract value). */
export function maintenanceRate(tiers: readonly MaintenanceTier[], contracts: Decimal): Decimal {
  for (const tier of tiers) if (tier.upToContracts === null || contracts.lte(Decimal.fromInt(tier.upToContracts))) return tier.rate;
  return tiers[tiers.length - 1]!.rate;
}

/** One side of one contract, as the margin arithmetic sees it. */
export interface MarginPosition {
  side: PositionSide;
  /** Base currency, > 0. */
  size: Decimal;
  /** Value at opening (quote). */
  openValue: Decimal;
  mark: Decimal;
  /** Base currency of one contract (tiers count contracts). */
  contractValue: Decimal;
  /** The contract's closing-fee rate for `maintenance-plus-fee`, where contracts differ; absent: the rules' rate. */
  closeFeeRate?: Decimal;
}

/** Unrealised PnL at mark: long size × mark − open value; short the opposite. */
export function unrealizedPnl(p: Pick<MarginPosition, 'side' | 'size' | 'openValue' | 'mark'>): Decimal {
  const value = p.size.mul(p.mark);
  return p.side === 'long' ? value.sub(p.openValue) : p.openValue.sub(value);
}

/** Position value at mark: size × mark. */
export function positionValue(p: Pick<MarginPosition, 'size' | 'mark'>): Decimal {
  return p.size.mul(p.mark);
}

export interface MarginRules {
  tiers: readonly MaintenanceTier[];
  trigger: LiquidationTrigger;
  /** The closing-fee rate counted by `maintenance-plus-fee` (the taker rate where the venue gives none). */
  closeFeeRate: Decimal;
}

/** The rate a position must keep to its value at mark before liquidation: its tier's rate, plus the fee rate if counted. */
export function requiredRate(rules: MarginRules, p: Pick<MarginPosition, 'size' | 'contractValue' | 'closeFeeRate'>): Decimal {
  const contracts = p.size.div(p.contractValue, MARGIN_SCALE, 'up');
  const mmr = maintenanceRate(rules.tiers, contracts);
  return rules.trigger === 'maintenance-plus-fee' ? mmr.add(p.closeFeeRate ?? rules.closeFeeRate) : mmr;
}

/** The state of a cross-margin account at mark. */
export interface CrossMargin {
  /** Collateral + unrealised PnL. */
  equity: Decimal;
  unrealizedPnl: Decimal;
  /** Σ size × mark. */
  positionValue: Decimal;
  /** Σ size × mark × required rate: liquidation when equity is at or below it. */
  maintenance: Decimal;
  /** Equity / position value; null with no position. */
  marginRate: Decimal | null;
  /** Maintenance / position value (the rate the margin rate is compared to); null with no position. */
  maintenanceRate: Decimal | null;
  liquidating: boolean;
}

/** The account's margin at mark: every position backed by the whole collateral (SHARED margin). */
export function crossMargin(collateral: Decimal, positions: readonly MarginPosition[], rules: MarginRules): CrossMargin {
  let upnl = Decimal.ZERO;
  let value = Decimal.ZERO;
  let maintenance = Decimal.ZERO;
  for (const p of positions) {
    if (p.size.isZero()) continue;
    upnl = upnl.add(unrealizedPnl(p));
    const v = positionValue(p);
    value = value.add(v);
    maintenance = maintenance.add(v.mul(requiredRate(rules, p)));
  }
  const equity = collateral.add(upnl);
  const open = !value.isZero();
  return {
    equity,
    unrealizedPnl: upnl,
    positionValue: value,
    maintenance,
    marginRate: open ? equity.div(value, MARGIN_SCALE, 'down') : null,
    maintenanceRate: open ? maintenance.div(value, MARGIN_SCALE, 'up') : null,
    liquidating: open && equity.lte(maintenance),
  };
}

/**
 * The estimated liquidation price of one contract in a cross account, the venue's formula for the net position
 * (long − short): mark − (equity − maintenance) ÷ (net × (1 ∓ rate)), − for a net long and + for a net short,
 * where `rate` is the contract's required rate; every other contract is held at its mark. Null when the contract is
 * flat net, or when no positive price would liquidate it. Not rounded (see roundLiquidationPrice).
 */
export function liquidationPrice(account: CrossMargin, contract: readonly MarginPosition[], rules: MarginRules): Decimal | null {
  let net = Decimal.ZERO;
  let mark: Decimal | null = null;
  let gross = Decimal.ZERO;
  let contractValue: Decimal | null = null;
  let closeFeeRate: Decimal | undefined;
  for (const p of contract) {
    if (p.size.isZero()) continue;
    net = p.side === 'long' ? net.add(p.size) : net.sub(p.size);
    gross = gross.add(p.size);
    mark = p.mark;
    contractValue = p.contractValue;
    closeFeeRate = p.closeFeeRate;
  }
  if (net.isZero() || mark === null || contractValue === null) return null;
  const rate = requiredRate(rules, { size: gross, contractValue, ...(closeFeeRate ? { closeFeeRate } : {}) });
  const one = Decimal.fromInt(1);
  const divisor = net.mul(net.isNegative() ? one.add(rate) : one.sub(rate));
  if (divisor.isZero()) return null;
  const price = mark.sub(account.equity.sub(account.maintenance).div(divisor, MARGIN_SCALE, 'half-up'));
  return price.gt(Decimal.ZERO) ? price : null;
}

/** A liquidation price on the tick: up for a net long (it is reached sooner), down for a net short. */
export function roundLiquidationPrice(price: Decimal, tick: Decimal, netLong: boolean): Decimal {
  return price.roundToStep(tick, netLong ? 'up' : 'down');
}

/**
 * How far the mark is from the liquidation price, as a percentage of the mark (0 at or past it); null without a
 * liquidation price.
 */
export function liquidationDistancePct(mark: Decimal, liquidation: Decimal | null, side: PositionSide): Decimal | null {
  if (liquidation === null || mark.isZero()) return null;
  const gap = side === 'long' ? mark.sub(liquidation) : liquidation.sub(mark);
  if (!gap.gt(Decimal.ZERO)) return Decimal.ZERO;
  return gap.mul(Decimal.fromInt(100)).div(mark, 6, 'down');
}

/** How a venue margins futures, as the config writes it (`exchange.margin`: rates as decimal text). */
export interface MarginConfig {
  maintenanceTiers: ReadonlyArray<{ upToContracts: number | null; rate: string; maxLeverage: number }>;
  liquidationTrigger: LiquidationTrigger;
}

/** The configured tiers and trigger, for the arithmetic here (the simulator and the risk gate read the same). */
export function marginSettingsOf(m: MarginConfig): { tiers: MaintenanceTier[]; trigger: LiquidationTrigger } {
  return {
    tiers: m.maintenanceTiers.map((t) => ({ upToContracts: t.upToContracts, rate: Decimal.from(t.rate), maxLeverage: t.maxLeverage })),
    trigger: m.liquidationTrigger,
  };
}
