// The self-contained HTML report: the run's period, price chart with entries and exits, equity (beside buy-and-hold,
// with a legend) and drawdown curves on UTC date-and-time axes (lightweight-charts, inlined so the file opens
// offline), the metrics labelled with their units, the per-strategy breakdown, the trade list, monthly returns, and
// any strategy fault; in a run that trades futures, the margin rate against the maintenance rate, funding, fees by
// kind and liquidations.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FuturesReport } from './futures.js';
import { esc, metricsRows, monthlyTable, periodText, row, strategiesTable, tradesSection, type StrategyLine } from './html-tables.js';
import type { Metrics } from './metrics.js';
import type { MonthlyReturn } from './monthly.js';
import type { RoundTrip } from './round-trips.js';

export interface ReportData {
  title: string;
  /** The replayed span (ms). */
  period: { fromMs: number; toMs: number };
  metrics: Metrics;
  orders: Record<string, number>;
  /** Orders the venue refused and those denied before sending, by reason. */
  rejected: Record<string, number>;
  denied: Record<string, number>;
  /** Per strategy: its PnL from its own fills, fees, funding, fills, round trips and hook errors. */
  strategies: StrategyLine[];
  /** The round trips, in order of entry (or the newest of them): the page shows the newest. */
  trades: readonly RoundTrip[];
  /** How many round trips there are in all, when `trades` holds only the newest. */
  tradeCount?: number;
  monthly: readonly MonthlyReturn[];
  /** Strategies that faulted: the run failed. */
  faults: Array<{ strategy: string; at: string; hook: string; error: string; reason: string }>;
  /** What the simulated venue counted: requests, weight per pool, 429s... (label -> value). */
  venue: Record<string, string | number>;
  /** Per symbol: [time s, price] points, and the fills as markers on them (fillMarkers, groupMarkers). */
  prices: Record<string, Array<[number, number]>>;
  markers: Record<string, Marker[]>;
  equity: Array<[number, number]>;
  /** Buy-and-hold of the starting account: [time s, value]. */
  hold: Array<[number, number]>;
  /** A run that trades futures: its futures figures and [time s, margin rate %, maintenance rate %] (null: flat). */
  futures?: { report: FuturesReport; margin: Array<[number, number | null, number | null]> };
}

/**
 * The page script's chart setup, shared by the reports: `LW` (the library), `utc` and `tick` (UTC dates and times on
 * the axes, the full UTC time on the crosshair) and `opts` (the charts' look); seconds on the axis when asked.
 */
export function chartSetup(secondsVisible: boolean): string {
  return `const LW = LightweightCharts;
// Times are UTC seconds: the axis shows dates and times, the crosshair the full UTC time.
const utc = (t) => new Date(t * 1000).toISOString();
const tick = (t, type) => { const s = utc(t); return type === 0 ? s.slice(0, 4) : type === 1 ? s.slice(0, 7) : type === 2 ? s.slice(0, 10) : type === 3 ? s.slice(5, 10) + ' ' + s.slice(11, 16) : s.slice(11, 19); };
const opts = { layout: { background: { color: '#ffffff' }, textColor: '#1d2330' }, grid: { vertLines: { color: '#f0f2f7' }, horzLines: { color: '#f0f2f7' } }, localization: { timeFormatter: (t) => utc(t).slice(0, 19).replace('T', ' ') + ' UTC' }, timeScale: { timeVisible: true, secondsVisible: ${secondsVisible}, minBarSpacing: 0.001, tickMarkFormatter: tick } };`;
}

/** lightweight-charts' standalone build, from node_modules (reports and the dashboard inline or serve it: no CDN). */
export function chartsLibrary(): string {
  // The package's exports map hides dist/: resolve its root through package.json.
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('lightweight-charts/package.json'));
  return readFileSync(join(root, 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
}

/** A chart marker on a price series (lightweight-charts' series marker). */
export interface Marker {
  time: number;
  position: 'belowBar' | 'aboveBar';
  color: string;
  shape: 'arrowUp' | 'arrowDown';
  text?: string;
}

/** At most this many markers per price chart: beyond it, fills are grouped by stretch of time and side. */
export const MAX_MARKERS = 600;

/** The time of the point at or before `t` of a series with points (the first point's for a time before it). */
export function snapToPoint(points: ReadonlyArray<readonly [number, number]>, t: number): number {
  let lo = 0;
  let hi = points.length - 1;
  if (t <= points[0]![0]) return points[0]![0];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (points[mid]![0] <= t) lo = mid;
    else hi = mid - 1;
  }
  return points[lo]![0];
}

/**
 * A symbol's fills as chart markers, each on the price point at or before it (markers sit on the series' own
 * times). Many fills are grouped by time and side, the count written on the marker, so a long run stays readable.
 */
export function fillMarkers(points: Array<[number, number]>, fills: ReadonlyArray<{ time: number; side: 'buy' | 'sell' }>): Marker[] {
  if (points.length === 0 || fills.length === 0) return [];
  return groupMarkers(
    points,
    fills.map((f) => [snapToPoint(points, f.time), f.side, 1] as const),
    fills.length,
  );
}

/**
 * Markers from counts of fills at points of the series ([point time, side, count], in the order of the fills),
 * `total` fills in all: one marker per point and side, or per stretch of time and side when there are more fills
 * than MAX_MARKERS (placed at the first point of the stretch that has some).
 */
export function groupMarkers(
  points: ReadonlyArray<readonly [number, number]>,
  counts: Iterable<readonly [number, 'buy' | 'sell', number]>,
  total: number,
): Marker[] {
  if (points.length === 0 || total === 0) return [];
  const first = points[0]![0];
  const span = points[points.length - 1]![0] - first + 1;
  const groups = Math.max(1, Math.floor(MAX_MARKERS / 2));
  const width = total <= MAX_MARKERS ? 0 : Math.ceil(span / groups);
  const byKey = new Map<string, { time: number; side: 'buy' | 'sell'; n: number }>();
  for (const [t, side, n] of counts) {
    const bucket = width ? first + Math.floor((t - first) / width) * width : t;
    const key = `${bucket}|${side}`;
    const g = byKey.get(key);
    if (g) g.n += n;
    else byKey.set(key, { time: t, side, n });
  }
  return [...byKey.values()]
    .sort((a, b) => a.time - b.time || (a.side < b.side ? -1 : 1))
    .map((g) => ({
      time: g.time,
      position: g.side === 'buy' ? 'belowBar' : 'aboveBar',
      color: g.side === 'buy' ? '#089981' : '#f23645',
      shape: g.side === 'buy' ? 'arrowUp' : 'arrowDown',
      ...(g.n > 1 ? { text: String(g.n) } : {}),
    }));
}

/** The futures figures: funding (in all and per contract), fees by kind, the tightest margin; and the liquidations. */
function futuresTables(f: FuturesReport): { figures: string; liquidations: string } {
  const fu = f.funding;
  const figures = [
    row('funding paid', fu.paid),
    row('funding received', fu.received),
    row('funding net', fu.net),
    row('funding settlements', fu.settlements),
    ...Object.entries(fu.bySymbol).map(([symbol, t]) => row(`funding net ${symbol}`, `${t.net} (paid ${t.paid}, received ${t.received})`)),
    row('fees maker', f.fees.maker),
    row('fees taker', f.fees.taker),
    row('fees liquidation', f.fees.liquidation),
    row('fees total', f.fees.total),
    ...(f.fees.unclassified ? [row('fees unclassified', f.fees.unclassified)] : []),
    row('liquidations', f.liquidations.length),
    ...(f.margin.tightest
      ? [row('tightest margin rate', `${f.margin.tightest.marginRate} (maintenance ${f.margin.tightest.maintenanceRate}) at ${f.margin.tightest.at}`)]
      : []),
  ].join('');
  const head = '<tr><th>time</th><th>symbol</th><th>side</th><th>size</th><th>price</th><th>mark</th><th>PnL</th><th>fee</th></tr>';
  const rows = f.liquidations
    .map((l) => `<tr><th>${esc(l.at)}</th>${[l.symbol, l.side, l.size, l.price, l.mark, l.pnl, l.fee].map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`)
    .join('');
  return { figures, liquidations: f.liquidations.length ? `<table id="liquidations">${head}${rows}</table>` : '<p id="liquidations">None.</p>' };
}

export function renderReport(d: ReportData): string {
  const rows = metricsRows(d.metrics);
  const orderRows = Object.entries(d.orders)
    .map(([k, v]) => row(`Orders ${k} (count)`, v))
    .join('');
  const refusalRows = [
    ...Object.entries(d.rejected).map(([k, v]) => row(`Rejected by the venue: ${k} (count)`, v)),
    ...Object.entries(d.denied).map(([k, v]) => row(`Denied before sending: ${k} (count)`, v)),
  ].join('');
  const faults = d.faults
    .map((f) => `<p><b>Strategy ${esc(f.strategy)} faulted</b> at ${esc(f.at)} in ${esc(f.hook)}: ${esc(f.error)} (${esc(f.reason)}). The run failed.</p>`)
    .join('');
  const venueRows = Object.entries(d.venue)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(String(v))}</td></tr>`)
    .join('');
  const markers = Object.fromEntries(Object.keys(d.prices).map((symbol) => [symbol, d.markers[symbol] ?? []]));
  const futures = d.futures ? futuresTables(d.futures.report) : undefined;
  // JSON inside a script: close tags cannot appear in it.
  const data = JSON.stringify({ prices: d.prices, equity: d.equity, hold: d.hold, markers, margin: d.futures?.margin ?? null }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(d.title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 16px} h2{font-size:15px;margin:20px 0 8px}
.grid{display:grid;grid-template-columns:minmax(0,1fr) 320px;gap:24px}
.chart{height:320px;border:1px solid #e3e6ee;border-radius:6px}
.faults{border:1px solid #f23645;background:#fdecee;border-radius:6px;padding:4px 12px;margin:0 0 16px}
table{border-collapse:collapse;width:100%}
.note{color:#5d6475;font-size:12px;margin:0 0 8px} #trades th,#trades td{white-space:nowrap} .scroll{max-height:480px;overflow:auto} #period{color:#5d6475;margin:-8px 0 16px}
.legend{font-size:12px;color:#5d6475;margin:0 0 4px} .legend span{display:inline-block;width:18px;height:0;border-top:2px solid #2962FF;vertical-align:middle;margin:0 4px 0 12px} .legend span.hold{border-top:2px dashed #787b86} th,td{padding:4px 8px;border-bottom:1px solid #eef0f5;text-align:left} td{text-align:right;font-variant-numeric:tabular-nums}
</style></head>
<body>
<h1>${esc(d.title)}</h1>
<p id="period">${esc(periodText(d.period.fromMs, d.period.toMs))}</p>
${faults ? `<div id="faults" class="faults">${faults}</div>` : ''}
<div class="grid"><div>
<div id="prices"></div>
<h2>Equity <small>(USDT)</small></h2><div id="equity-legend" class="legend"><span></span>Equity<span class="hold"></span>Buy-and-hold of the starting account</div><div id="equity" class="chart"></div>
<h2>Drawdown</h2><div id="drawdown" class="chart" style="height:180px"></div>
${
  futures
    ? `<h2>Margin rate <small>(% of the position value at mark; dashed: the maintenance rate; log scale; blank while flat)</small></h2><div id="margin" class="chart" style="height:220px"></div>
<h2>Liquidations</h2>${futures.liquidations}`
    : ''
}
<h2>Strategies</h2>${strategiesTable(d.strategies)}
<h2>Trades <small>(round trips)</small></h2>${tradesSection(d.trades, d.tradeCount)}
<h2>Monthly returns</h2>${monthlyTable(d.monthly)}
</div><div><h2>Metrics</h2><table id="metrics">${rows}${orderRows}${refusalRows}</table>${futures ? `<h2>Futures</h2><table id="futures">${futures.figures}</table>` : ''}<h2>Simulated venue</h2><table id="venue">${venueRows}</table></div></div>
<script>${chartsLibrary()}</script>
<script>
const D = ${data};
${chartSetup(true)}
const host = document.getElementById('prices');
for (const [symbol, points] of Object.entries(D.prices)) {
  const h = document.createElement('h2'); h.textContent = symbol; host.appendChild(h);
  const el = document.createElement('div'); el.className = 'chart'; el.dataset.chart = 'price'; host.appendChild(el);
  const chart = LW.createChart(el, opts);
  const s = chart.addSeries(LW.LineSeries, { color: '#2962FF', lineWidth: 2 });
  s.setData(points.map(([time, value]) => ({ time, value })));
  LW.createSeriesMarkers(s, D.markers[symbol] ?? []);
  chart.timeScale().fitContent();
}
const eq = LW.createChart(document.getElementById('equity'), opts);
eq.addSeries(LW.AreaSeries, { lineColor: '#2962FF', topColor: 'rgba(41,98,255,0.3)', bottomColor: 'rgba(41,98,255,0.02)' }).setData(D.equity.map(([time, value]) => ({ time, value })));
eq.addSeries(LW.LineSeries, { color: '#787b86', lineWidth: 1, lineStyle: LW.LineStyle.Dashed }).setData(D.hold.map(([time, value]) => ({ time, value })));
eq.timeScale().fitContent();
let peak = -Infinity;
const dd = D.equity.map(([time, value]) => { peak = Math.max(peak, value); return { time, value: peak > 0 ? -100 * (peak - value) / peak : 0 }; });
const ddc = LW.createChart(document.getElementById('drawdown'), opts);
ddc.addSeries(LW.AreaSeries, { lineColor: '#f23645', topColor: 'rgba(242,54,69,0.02)', bottomColor: 'rgba(242,54,69,0.3)' }).setData(dd);
ddc.timeScale().fitContent();
if (D.margin) {
  const mc = LW.createChart(document.getElementById('margin'), { ...opts, rightPriceScale: { mode: LW.PriceScaleMode.Logarithmic } });
  const line = (k) => D.margin.map((p) => (p[k] === null ? { time: p[0] } : { time: p[0], value: p[k] }));
  mc.addSeries(LW.LineSeries, { color: '#2962FF', lineWidth: 2 }).setData(line(1));
  mc.addSeries(LW.LineSeries, { color: '#f23645', lineWidth: 1, lineStyle: LW.LineStyle.Dashed }).setData(line(2));
  mc.timeScale().fitContent();
}
requestAnimationFrame(() => requestAnimationFrame(() => { window.__chartsReady = true; }));
</script>
</body></html>
`;
}
