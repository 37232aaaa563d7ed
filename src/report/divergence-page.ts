// The divergence report as one page: the summary, the causes, the PnL of both sides over time, every pair and lone
// order. Plain HTML, every value escaped, no script.
import { esc, moneyText, utcText } from './html-tables.js';
import { divergenceSummary, type DivergenceReport } from './divergence.js';

const td = (v: string | number | null) => `<td>${esc(v === null ? '' : String(v))}</td>`;

/** The report as one page: the summary, the causes, the PnL of both sides over time, every pair and lone order. */
export function renderDivergence(r: DivergenceReport): string {
  const s = r.summary;
  const causeRows = s.causes
    .map((c) => `<tr data-cause="${esc(c.cause)}"><th>${esc(c.cause)}</th>${td(c.orders)}${td(moneyText(c.money))}<td class="why">${esc(c.why)}</td></tr>`)
    .join('');
  const pairRows = r.pairs
    .map(
      (p) =>
        `<tr data-cause="${esc(p.cause)}">${td(utcText(p.live.createdAtMs))}${td(p.strategyId)}${td(p.symbol)}${td(p.side)}${td(p.price)}${td(p.size)}${td(p.live.filledSize)}${td(p.sim.filledSize)}${td(p.live.avgPrice)}${td(p.sim.avgPrice)}${td(p.fillTimeDiffMs)}${td(p.feeDiff)}${td(p.cause)}</tr>`,
    )
    .join('');
  const loneRows = [...r.liveOnly.map((o) => ['live', o] as const), ...r.simOnly.map((o) => ['simulated', o] as const)]
    .map(
      ([side, o]) =>
        `<tr>${td(side)}${td(utcText(o.createdAtMs))}${td(o.clientOid)}${td(o.error ? `${o.state}: ${o.error}` : o.state)}${td(o.filledSize)}${td(o.avgPrice)}</tr>`,
    )
    .join('');
  const pnlRows = r.pnl.map((p) => `<tr>${td(utcText(p.atMs))}${td(moneyText(p.live))}${td(moneyText(p.sim))}${td(moneyText(p.gap))}</tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Live against the simulator</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff} h1{font-size:20px} h2{font-size:15px;margin:20px 0 8px}
table{border-collapse:collapse} th,td{padding:4px 8px;border-bottom:1px solid #eef0f5;text-align:left} td{text-align:right;font-variant-numeric:tabular-nums} td.why{text-align:left}
.scroll{max-height:480px;overflow:auto}
</style></head>
<body>
<h1>Live against the simulator</h1>
<ul id="summary">${divergenceSummary(r)
    .map((line) => `<li>${esc(line)}</li>`)
    .join('')}</ul>
<h2>Causes</h2>
${causeRows ? `<table id="causes"><tr><th>Cause</th><th>Orders</th><th>Money moved (USDT)</th><th>Why</th></tr>${causeRows}</table>` : '<p id="causes">None: every pair agrees.</p>'}
<h2>PnL over time <small>(USDT; fills marked at each side’s last fill price)</small></h2>
<div class="scroll"><table id="pnl"><tr><th>Time (UTC)</th><th>Live</th><th>Simulated</th><th>Gap</th></tr>${pnlRows}</table></div>
<h2>Pairs</h2>
<div class="scroll"><table id="pairs"><tr><th>Placed (UTC)</th><th>Strategy</th><th>Symbol</th><th>Side</th><th>Price</th><th>Size</th><th>Filled live</th><th>Filled sim</th><th>Avg live</th><th>Avg sim</th><th>Fill time Δ (ms)</th><th>Fees Δ</th><th>Cause</th></tr>${pairRows}</table></div>
<h2>On one side only</h2>
${loneRows ? `<table id="lone"><tr><th>Side</th><th>Placed (UTC)</th><th>Client id</th><th>State</th><th>Filled</th><th>Avg price</th></tr>${loneRows}</table>` : '<p id="lone">None.</p>'}
</body></html>
`;
}
