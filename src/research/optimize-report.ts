// The optimisation's self-contained HTML page: the folds with their chosen params and the degradation out of
// sample, the lookahead verdict, the walk-forward chart (the stitched out-of-sample PnL next to each fold's
// in-sample PnL, on a UTC date axis), the heatmap of the objective over two params, the Monte Carlo percentiles
// with the distribution of final PnL, and each fold's ranked candidates. The charts library is inlined: the file
// opens offline.
import { chartSetup, chartsLibrary } from '../report/html.js';
import { METRIC_LABELS, esc, periodText, utcText } from '../report/html-tables.js';
import type { HeatmapGrid } from './heatmap.js';
import type { LookaheadVerdict } from './lookahead.js';
import { asTradedNote, type MonteCarloResult } from './monte-carlo.js';
import { numberText } from './objective.js';
import type { FoldResult, OptimizeResult } from './optimizer.js';

const OBJECTIVE_LABELS: Record<string, string> = {
  strategyPnl: METRIC_LABELS.strategyPnl,
  sharpe: METRIC_LABELS.sharpe,
  sortino: METRIC_LABELS.sortino,
  calmar: 'Calmar ratio (annualised strategy return / max drawdown)',
  profitFactor: METRIC_LABELS.profitFactor,
};

const th = (cells: string[]) => `<tr>${cells.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
const td = (v: unknown) => `<td>${esc(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}</td>`;
const paramsText = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
const ratio = (x: number | null) => (x === null ? 'n/a' : numberText(x));

function foldsTable(r: OptimizeResult): string {
  const metric = r.spec.objective.metric;
  const perWindow = metric === 'strategyPnl' ? 'per day' : 'as is';
  const head = th([
    'Fold',
    'In sample (UTC)',
    'Out of sample (UTC)',
    'Chosen params',
    `In-sample objective`,
    `Out-of-sample objective`,
    'Out-of-sample strategy PnL (USDT)',
    'Out-of-sample trades (count)',
    `Efficiency (out / in, ${perWindow})`,
  ]);
  const body = r.folds
    .map(
      (f) =>
        `<tr data-fold="${f.index + 1}"><th>${f.index + 1}</th>${td(periodText(f.inSample.fromMs, f.inSample.toMs))}${td(periodText(f.outOfSample.fromMs, f.outOfSample.toMs))}${td(paramsText(f.best.params))}${td(f.inSampleRun.score.text)}${td(f.outOfSampleRun.score.text)}${td(f.outOfSampleRun.metrics.strategyPnl)}${td(f.outOfSampleRun.tradePnls.length)}${td(ratio(f.efficiency))}</tr>`,
    )
    .join('');
  const o = r.outOfSample;
  const summary = `<tr class="total"><th>All</th><td colspan="3">stitched out of sample: max drawdown ${esc(o.maxDrawdownPct)} % of the strategy equity's peak</td>${td(numberText(o.meanInSample))}${td(numberText(o.meanOutOfSample))}${td(o.strategyPnl)}${td(o.trades)}${td(ratio(o.efficiency))}</tr>`;
  return `<table id="folds">${head}${body}${summary}</table><p class="note">Objective: ${esc(OBJECTIVE_LABELS[metric] ?? metric)}. "All": the means of the folds' objective ${metric === 'strategyPnl' ? 'per day (USDT/day)' : ''} and their ratio; efficiency 1 keeps the whole in-sample edge out of sample, 0 none, below 0 loses.</p>`;
}

function lookaheadSection(v: LookaheadVerdict | null): string {
  if (!v) return '<p id="lookahead" data-verdict="skipped">The lookahead check was not asked for.</p>';
  const rows = v.cuts
    .map((c) => {
      const d = c.difference;
      const what = d
        ? `decision ${d.index + 1} differs: whole data ${d.full ? `${utcText(d.full.ts)} ${d.full.intent}` : '(none)'}; cut data ${d.cut ? `${utcText(d.cut.ts)} ${d.cut.intent}` : '(none)'}`
        : 'the same';
      return `<tr data-peeks="${d ? 'yes' : 'no'}"><th>${esc(utcText(c.cutMs))}</th>${td(utcText(c.untilMs))}${td(c.compared)}<td class="diff">${esc(what)}</td></tr>`;
    })
    .join('');
  const verdict = v.peeks
    ? `<p class="verdict bad"><b>The strategy peeks ahead:</b> run on data cut at a time T, it decided otherwise before T than on the whole data. Its backtests use what it could not have known.</p>`
    : `<p class="verdict good"><b>No lookahead found:</b> cut at ${v.cuts.length} time${v.cuts.length === 1 ? '' : 's'}, the strategy decided the same before each cut as on the whole data (${v.decisions} decisions on the whole data).</p>`;
  return `<div id="lookahead" data-verdict="${v.peeks ? 'peeks' : 'clean'}">${verdict}<p class="note">Params checked: ${esc(paramsText(v.params))}. Decisions within ${v.marginMs} ms of a cut are not compared. ${v.copies ? 'The cut runs replayed a copy of the data ending at the cut (a strategy reading the data file for itself read the copy).' : 'The cut runs replayed the data up to the cut (several data files: no copies; a strategy reading the files for itself is not caught).'}</p><table>${th(['Cut (UTC)', 'Compared up to (UTC)', 'Decisions compared (count)', 'First difference'])}${rows}</table></div>`;
}

/** Cell colour from red (worst) through white to green (best), by rank of the value among the grid's values. */
function heatmapTable(g: HeatmapGrid, fold: FoldResult, label: string): string {
  if (!g.x) return '';
  const values = [...new Set(g.rows.flat().flatMap((c) => (c && !c.score.fault ? [c.score.value] : [])))].sort((a, b) => a - b);
  const colour = (v: number) => {
    const t = values.length < 2 ? 0.5 : values.indexOf(v) / (values.length - 1);
    const mix = (a: number, b: number, k: number) => Math.round(a + (b - a) * k);
    return t < 0.5
      ? `rgb(${mix(242, 255, t * 2)},${mix(54, 255, t * 2)},${mix(69, 255, t * 2)})`
      : `rgb(${mix(255, 8, (t - 0.5) * 2)},${mix(255, 153, (t - 0.5) * 2)},${mix(255, 129, (t - 0.5) * 2)})`;
  };
  const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const head = `<tr><th class="corner">${esc(g.y ? `${g.y} ↓ / ${g.x} →` : `${g.x} →`)}</th>${g.xs.map((x) => `<th>${esc(show(x))}</th>`).join('')}</tr>`;
  const body = g.rows
    .map(
      (row, j) =>
        `<tr><th>${esc(show(g.ys[j]))}</th>${row
          .map((c) => {
            if (!c) return '<td class="heat-cell empty" title="not drawn">–</td>';
            const note = c.score.fault ? 'faulted' : !c.score.qualified ? 'too few trades' : '';
            const style = c.score.fault ? '' : ` style="background:${colour(c.score.value)}"`;
            return `<td class="heat-cell${note ? ' weak' : ''}"${style} data-candidate="${esc(c.candidate)}" data-value="${esc(c.score.text)}" title="${esc(`${c.candidate}: ${c.score.text}${note ? ` (${note})` : ''}`)}">${esc(c.score.text)}${note ? '*' : ''}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('');
  return `<figure class="heatmap" data-fold="${fold.index + 1}"><figcaption>Fold ${fold.index + 1}: ${esc(label)} over ${esc(g.x)}${g.y ? ` and ${esc(g.y)}` : ''}, in sample ${esc(periodText(fold.rungs[0]!.window.fromMs, fold.rungs[0]!.window.toMs))}</figcaption><table>${head}${body}</table></figure>`;
}

function monteCarloSection(mc: MonteCarloResult | null, stitchedPnl: string): string {
  if (!mc) return '<p id="monte-carlo">Monte Carlo was not asked for.</p>';
  if (mc.runs === 0) return '<p id="monte-carlo">No out-of-sample trade closed: nothing to resample.</p>';
  const rows = mc.percentiles.map((p) => `<tr><th>${p.p}</th>${td(p.finalPnl)}${td(p.returnPct)}${td(p.maxDrawdown)}${td(p.maxDrawdownPct)}</tr>`).join('');
  const actual = `<tr class="total"><th>As traded</th>${td(mc.actual.finalPnl)}${td(mc.actual.returnPct)}${td(mc.actual.maxDrawdown)}${td(mc.actual.maxDrawdownPct)}</tr>`;
  return `<div id="monte-carlo"><p class="note">${mc.runs} paths of ${mc.trades} out-of-sample trades each, drawn with replacement (seed ${mc.seed}), from ${esc(mc.startEquity)} USDT. Each column's percentiles are taken on its own. ${esc(mc.lossProbabilityPct)} % of the paths end below the start. ${esc(asTradedNote(mc, stitchedPnl))}</p>
<table id="mc-percentiles">${th(['Percentile', 'Final PnL (USDT)', 'Final return (% of starting equity)', 'Max drawdown (USDT)', 'Max drawdown (% of peak equity)'])}${rows}${actual}</table>
<h3>Final PnL of the resampled paths</h3><canvas id="mc-histogram" width="900" height="260" aria-label="Histogram: final out-of-sample PnL (USDT) by number of paths"></canvas></div>`;
}

function rankingSection(r: OptimizeResult): string {
  const names = Object.keys(r.spec.params);
  const params = new Map(r.candidates.map((c) => [c.id, c.params]));
  return r.folds
    .map((f, i) => {
      const head = th([
        'Rank',
        'Candidate',
        ...names,
        'Rung (window)',
        'Objective',
        'Strategy PnL (USDT)',
        'Sharpe (annualised)',
        'Max drawdown (%)',
        'Closing fills (count)',
        'Note',
      ]);
      const body = f.ranking
        .map((c) => {
          const note = [
            c.candidate === f.best.candidate ? 'chosen' : '',
            c.score.fault ? `faulted: ${c.score.fault}` : '',
            !c.score.qualified ? 'too few trades' : '',
          ]
            .filter(Boolean)
            .join('; ');
          return `<tr data-candidate="${esc(c.candidate)}"${c.candidate === f.best.candidate ? ' class="chosen"' : ''}><th>${c.rank}</th>${td(c.candidate)}${names.map((n) => td(params.get(c.candidate)![n])).join('')}${td(`${c.rung + 1} (${periodText(c.window.fromMs, c.window.toMs)})`)}${td(c.score.text)}${td(c.metrics.strategyPnl)}${td(c.metrics.sharpe)}${td(c.metrics.maxDrawdownPct)}${td(c.metrics.trades)}${td(note)}</tr>`;
        })
        .join('');
      return `<details${i === r.folds.length - 1 ? ' open' : ''}><summary>Fold ${f.index + 1}: ${f.ranking.length} candidates, ${f.rungs.length} rung${f.rungs.length === 1 ? '' : 's'}</summary><div class="scroll"><table class="ranking" data-fold="${f.index + 1}">${head}${body}</table></div></details>`;
    })
    .join('');
}

/** [time s, value] points, one per second (the last of each), for the chart library. */
function chartPoints(series: ReadonlyArray<readonly [number, string]>, base: string | undefined): Array<[number, number]> {
  const zero = base === undefined ? 0 : Number(base);
  const out: Array<[number, number]> = [];
  for (const [ms, v] of series) {
    const t = Math.floor(ms / 1000);
    if (out.length && out[out.length - 1]![0] >= t) out.pop();
    out.push([t, Number(v) - zero]);
  }
  return out;
}

export function renderOptimizeReport(r: OptimizeResult, title: string): string {
  const metric = r.spec.objective.metric;
  const label = OBJECTIVE_LABELS[metric] ?? metric;
  const oos = chartPoints(r.outOfSample.equity, r.outOfSample.equity[0]?.[1]);
  const inSample = r.folds.map((f) => chartPoints(f.inSampleRun.equity, f.inSampleRun.equity[0]?.[1]));
  const data = JSON.stringify({
    oos,
    inSample,
    histogram: r.monteCarlo?.histogram ?? [],
    percentiles: r.monteCarlo?.runs ? r.monteCarlo.percentiles.map((p) => ({ p: p.p, pnl: Number(p.finalPnl) })) : [],
  }).replace(/</g, '\\u003c');
  const s = r.spec;
  const searchText = `${r.candidates.length} candidates (${s.search.method === 'grid' ? 'the whole grid' : `random, seed ${s.search.seed}`})${s.halving.enabled ? `, successive halving (eta ${s.halving.eta})` : ''}, ${r.folds.length} ${s.walkForward.mode} walk-forward fold${r.folds.length === 1 ? '' : 's'}, ${r.jobs} backtests`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 8px} h2{font-size:15px;margin:24px 0 8px} h3{font-size:13px;margin:16px 0 6px}
.note{color:#5d6475;font-size:12px;margin:4px 0 8px} #period{color:#5d6475;margin:0 0 16px}
table{border-collapse:collapse} th,td{padding:4px 8px;border-bottom:1px solid #eef0f5;text-align:left} td{text-align:right;font-variant-numeric:tabular-nums}
tr.total{font-weight:600} tr.chosen{background:#eef4ff} .scroll{max-height:520px;overflow:auto}
.chart{height:340px;border:1px solid #e3e6ee;border-radius:6px;max-width:1100px}
.legend{font-size:12px;color:#5d6475;margin:0 0 4px} .legend span{display:inline-block;width:18px;height:0;border-top:2px solid #2962FF;vertical-align:middle;margin:0 4px 0 12px} .legend span.is{border-top:2px dashed #787b86}
.verdict{border-radius:6px;padding:8px 12px;margin:0 0 8px} .verdict.bad{border:1px solid #f23645;background:#fdecee} .verdict.good{border:1px solid #089981;background:#e8f6f3}
td.diff{text-align:left;font-family:ui-monospace,monospace;font-size:12px;max-width:700px;word-break:break-all}
.heatmaps{display:flex;flex-wrap:wrap;gap:24px} figure{margin:0} figcaption{font-size:12px;color:#5d6475;margin:0 0 4px;max-width:520px}
.heat-cell{min-width:56px;text-align:center;border:1px solid #fff} .heat-cell.empty{color:#b0b4bf} .heat-cell.weak{color:#5d6475;font-style:italic} th.corner{font-weight:400;color:#5d6475}
canvas#mc-histogram{border:1px solid #e3e6ee;border-radius:6px;max-width:100%}
</style></head>
<body>
<h1>${esc(title)}</h1>
<p id="period">Data ${esc(periodText(r.data.fromMs, r.data.toMs))} (${esc(r.data.files.join(', '))}); ${esc(searchText)}.</p>
<h2>Walk-forward folds</h2>${foldsTable(r)}
<h2>Lookahead check</h2>${lookaheadSection(r.lookahead)}
<h2>Walk-forward PnL <small>(USDT, the strategy's PnL from each window's start: buy-and-hold left out)</small></h2>
<div class="legend"><span></span>Out of sample, folds stitched end to end<span class="is"></span>In sample, each fold's chosen params</div>
<div id="walk-forward" class="chart"></div>
<h2>Heatmap: ${esc(label)}</h2><p class="note">Each cell: the best candidate with that pair of values (over the other params), on the first rung of the fold's in-sample window. *: too few closed round trips or faulted (ranked last). –: not drawn.</p><div class="heatmaps">${r.folds.map((f) => heatmapTable(f.heatmap, f, label)).join('')}</div>
<h2>Monte Carlo of the out-of-sample trades</h2>${monteCarloSection(r.monteCarlo, r.outOfSample.strategyPnl)}
<h2>Candidates, ranked in sample</h2><p class="note">Each candidate at the last rung it reached (those of the last rung first), by ${esc(label)}.</p>${rankingSection(r)}
<script>${chartsLibrary()}</script>
<script>
const D = ${data};
${chartSetup(false)}
const wf = LW.createChart(document.getElementById('walk-forward'), opts);
for (const points of D.inSample) wf.addSeries(LW.LineSeries, { color: '#787b86', lineWidth: 1, lineStyle: LW.LineStyle.Dashed, priceLineVisible: false, lastValueVisible: false }).setData(points.map(([time, value]) => ({ time, value })));
wf.addSeries(LW.LineSeries, { color: '#2962FF', lineWidth: 2 }).setData(D.oos.map(([time, value]) => ({ time, value })));
wf.timeScale().fitContent();
const canvas = document.getElementById('mc-histogram');
if (canvas && D.histogram.length) {
  const g = canvas.getContext('2d');
  const W = canvas.width, H = canvas.height, L = 64, R = 40, T = 16, B = 52;
  const max = Math.max(...D.histogram.map((b) => b.count));
  const lo = Number(D.histogram[0].from), hi = Number(D.histogram[D.histogram.length - 1].to);
  const x = (v) => L + (hi === lo ? 0.5 : (v - lo) / (hi - lo)) * (W - L - R);
  const bw = (W - L - R) / D.histogram.length;
  g.fillStyle = '#ffffff'; g.fillRect(0, 0, W, H);
  g.fillStyle = 'rgba(41,98,255,0.75)';
  D.histogram.forEach((b, i) => { const h = (b.count / max) * (H - T - B); g.fillRect(L + i * bw + 1, H - B - h, Math.max(1, bw - 2), h); });
  g.strokeStyle = '#1d2330'; g.beginPath(); g.moveTo(L, T); g.lineTo(L, H - B); g.lineTo(W - R, H - B); g.stroke();
  g.fillStyle = '#1d2330'; g.font = '12px system-ui, sans-serif'; g.textAlign = 'center';
  for (let k = 0; k <= 4; k++) { const v = lo + ((hi - lo) * k) / 4; g.fillText(v.toFixed(2), x(v), H - B + 16); }
  g.fillText('Final out-of-sample PnL of a resampled path (USDT)', L + (W - L - R) / 2, H - 8);
  g.textAlign = 'right';
  for (let k = 0; k <= 2; k++) g.fillText(String(Math.round((max * k) / 2)), L - 6, H - B - ((H - T - B) * k) / 2 + 4);
  g.save(); g.translate(14, T + (H - T - B) / 2); g.rotate(-Math.PI / 2); g.textAlign = 'center'; g.fillText('Paths (count)', 0, 0); g.restore();
  g.strokeStyle = '#f23645'; g.setLineDash([4, 3]); g.textAlign = 'left';
  for (const p of D.percentiles) { const px = x(p.pnl); g.beginPath(); g.moveTo(px, T); g.lineTo(px, H - B); g.stroke(); g.fillStyle = '#f23645'; g.fillText('p' + p.p, px + 3, T + 10); }
}
requestAnimationFrame(() => requestAnimationFrame(() => { window.__chartsReady = true; }));
</script>
</body></html>
`;
}
