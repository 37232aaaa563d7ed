// The tables of the HTML report: the run's period in words, the metrics labelled with their units, the per-strategy
// breakdown, the trade list (round trips) and the monthly returns. Plain HTML strings, escaped.
import { Decimal } from '../domain/decimal.js';
import type { Metrics } from './metrics.js';
import type { MonthlyReturn } from './monthly.js';
import type { RoundTrip } from './round-trips.js';
import { isoTime } from './iso-time.js';

/** At most this many trades in the page (the newest); report.json and round-trips.csv carry them all. */
export const MAX_TRADES_SHOWN = 500;

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A table row: its label, and the key it shows (for tools reading the page) when given. */
export const row = (label: string, value: string | number, key?: string) =>
  `<tr${key ? ` data-key="${esc(key)}"` : ''}><th>${esc(label)}</th><td>${esc(String(value))}</td></tr>`;

/** Each metric in words with its unit (money in the account's quote currency, USDT). */
export const METRIC_LABELS: Record<keyof Metrics, string> = {
  strategyPnl: 'Strategy PnL (USDT, fees and funding included)',
  strategyReturnPct: 'Strategy return (% of starting equity)',
  buyAndHoldPnl: 'Buy-and-hold PnL (USDT)',
  buyAndHoldReturnPct: 'Buy-and-hold return (% of starting equity)',
  accountPnl: 'Account PnL (USDT)',
  accountReturnPct: 'Account return (% of starting equity)',
  startEquity: 'Starting equity (USDT)',
  endEquity: 'Ending equity (USDT)',
  maxDrawdownPct: "Max drawdown of the strategy's equity (% of its peak)",
  sharpe: 'Sharpe ratio',
  sortino: 'Sortino ratio',
  ratioBasis: 'Sharpe and Sortino',
  fills: 'Fills (count)',
  trades: 'Round trips closed (count)',
  feesPaid: 'Fees (USDT)',
  winRatePct: 'Win rate (% of closed round trips)',
  profitFactor: 'Profit factor (gross won / gross lost)',
  exposurePct: 'Exposure (% of samples holding a position)',
};

/** "2026-01-05 00:30" (UTC), seconds when there are some. */
export function utcText(ms: number): string {
  const iso = isoTime(ms);
  const seconds = iso.slice(17, 19);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`}`;
}

/** A length of time in words: "30 min", "2 h 5 min", "3 d 4 h", "45 s". */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const parts: Array<[number, string]> = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'min'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  const shown = parts.slice(first, first + 2).filter(([n]) => n > 0);
  const text = shown.map(([n, u]) => `${n} ${u}`).join(' ');
  return s < 3600 && s % 60 !== 0 ? `${text} ${s % 60} s` : text;
}

/** The run's period: "2026-01-05 00:00 → 2026-01-05 00:30 UTC, 30 min". */
export const periodText = (fromMs: number, toMs: number) => `${utcText(fromMs)} → ${utcText(toMs)} UTC, ${durationText(toMs - fromMs)}`;

/** Places money is shown to in pages and summaries: the quote currency's (USDT: cents); report.json and the CSVs keep every digit. */
export const MONEY_PLACES = 2;

/** An amount of the quote currency as shown: rounded half-up to MONEY_PLACES (empty stays empty). */
export function moneyText(amount: string): string {
  return amount === '' ? '' : Decimal.from(amount).toString(MONEY_PLACES);
}

/** The metrics that are amounts of money (shown to MONEY_PLACES). */
export const MONEY_METRICS: ReadonlySet<keyof Metrics> = new Set(['strategyPnl', 'buyAndHoldPnl', 'accountPnl', 'startEquity', 'endEquity', 'feesPaid']);

/** A metric's value as pages and summaries show it. */
export function metricText(m: Metrics, k: keyof Metrics): string {
  return MONEY_METRICS.has(k) ? moneyText(String(m[k])) : String(m[k]);
}

export function metricsRows(m: Metrics): string {
  return (Object.keys(METRIC_LABELS) as Array<keyof Metrics>).map((k) => row(METRIC_LABELS[k], metricText(m, k), k)).join('');
}

/** One strategy's line of the breakdown. */
export interface StrategyLine {
  id: string;
  pnl: string;
  realized: string;
  unrealized: string;
  fees: string;
  funding: string;
  fills: number;
  trades: number;
  winRatePct: string;
  profitFactor: string;
  errors: number;
}

const STRATEGY_HEAD = [
  'Strategy',
  'PnL (USDT)',
  'Realised (USDT)',
  'Unrealised (USDT)',
  'Fees (USDT)',
  'Funding (USDT)',
  'Fills',
  'Trades',
  'Win rate (%)',
  'Profit factor',
  'Errors',
];

const head = (cells: string[]) => `<tr>${cells.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
const cells = (first: string, rest: Array<string | number>) => `<tr><th>${esc(first)}</th>${rest.map((v) => `<td>${esc(String(v))}</td>`).join('')}</tr>`;

export function strategiesTable(lines: readonly StrategyLine[]): string {
  const body = lines
    .map((s) =>
      cells(s.id, [...[s.pnl, s.realized, s.unrealized, s.fees, s.funding].map(moneyText), s.fills, s.trades, s.winRatePct, s.profitFactor, s.errors]),
    )
    .join('');
  return `<table id="strategies">${head(STRATEGY_HEAD)}${body}</table>`;
}

// PnL first after what the trade was: it is read without scrolling on a narrow page.
const TRADE_HEAD = [
  'Strategy',
  'Symbol',
  'Side',
  'PnL (USDT)',
  'Fees (USDT)',
  'Entry (UTC)',
  'Entry price',
  'Exit (UTC)',
  'Exit price',
  'Duration',
  'Size',
  'MAE (USDT)',
  'MFE (USDT)',
];

/**
 * The newest trades (by entry), newest first; an open one shows "open" for its exit. `trips`: all of them, or the
 * newest of `total`.
 */
export function tradesSection(trips: readonly RoundTrip[], total = trips.length): string {
  if (total === 0) return '<p id="trades">No round trip.</p>';
  const shown = trips.slice(-MAX_TRADES_SHOWN).reverse();
  const body = shown
    .map((t) =>
      cells(t.strategy, [
        t.symbol,
        t.side,
        moneyText(t.pnl),
        moneyText(t.fees),
        utcText(t.entryMs),
        t.entryPrice,
        t.exitMs === null ? 'open' : utcText(t.exitMs),
        t.exitPrice ?? '',
        t.durationMs === null ? '' : durationText(t.durationMs),
        t.size,
        moneyText(t.mae),
        moneyText(t.mfe),
      ]),
    )
    .join('');
  const note = `${total > MAX_TRADES_SHOWN ? `The newest ${MAX_TRADES_SHOWN} of ${total} (all in report.json and round-trips.csv). ` : ''}PnL at average cost, fees included, shown to the cent (round-trips.csv has every digit); MAE/MFE: the worst and best unrealised PnL while open, measured on the report's price samples (a move between two samples is not seen).`;
  return `<p class="note">${esc(note)}</p><div class="scroll"><table id="trades">${head(TRADE_HEAD)}${body}</table></div>`;
}

export function monthlyTable(months: readonly MonthlyReturn[]): string {
  const body = months.map((m) => cells(m.month, [moneyText(m.startEquity), moneyText(m.endEquity), moneyText(m.pnl), m.returnPct])).join('');
  return `<table id="monthly">${head(['Month (UTC)', 'Start equity (USDT)', 'End equity (USDT)', 'Change (USDT)', 'Return (%)'])}${body}</table>`;
}
