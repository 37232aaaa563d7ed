// The dashboard's page and style: a static skeleton (no data in it: the script fills it from the control API), the
// one dialog that asks before a command changes trading (its text and buttons set by the script), and one stylesheet. Everything it loads comes from the daemon itself (/dashboard/*), so it works offline and under a
// content security policy without inline scripts or styles.

/** The page served at `/`. */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sextant</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/style.css">
<script src="/dashboard/lightweight-charts.js" defer></script>
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header>
  <div class="brand">Sextant</div>
  <dl class="facts">
    <div><dt>mode</dt><dd id="mode">-</dd></div>
    <div><dt>venue</dt><dd id="venue">-</dd></div>
    <div><dt>uptime</dt><dd id="uptime">-</dd></div>
    <div><dt>stream</dt><dd id="stream" data-stream="connecting">connecting</dd></div>
  </dl>
  <div class="trading"><span id="trading-state" class="state" data-state="">-</span><span id="latches"></span><span id="fenced"></span></div>
  <div class="kill" role="group" aria-label="Kill switch">
    <button type="button" data-command="halt" class="danger">Halt</button>
    <button type="button" data-command="reduce">Reduce</button>
    <button type="button" data-command="reset">Reset</button>
    <button type="button" data-command="flatten" class="danger">Flatten</button>
  </div>
  <div id="answer" role="status" aria-live="polite"></div>
</header>
<main>
  <section class="panel charts">
    <div><h2>Equity</h2><div id="equity" class="chart"></div></div>
    <div><h2>Drawdown <small>% below peak</small></h2><div id="drawdown" class="chart"></div></div>
    <div id="chart-legend" class="legend"></div>
  </section>
  <div class="side">
    <section class="panel">
      <h2>Rate budget <small>available / queued</small></h2><div id="budget"></div>
      <h2>Polls <small>age of the latest success</small></h2><table id="polls"><tbody></tbody></table>
      <p id="reconciliation" class="muted"></p>
    </section>
    <section class="panel">
      <h2>Events <small>newest first</small></h2>
      <ol id="events" class="events"></ol>
    </section>
  </div>
  <section class="panel wide">
    <h2>Strategies</h2><div id="strategies" class="cards"></div>
  </section>
  <section class="panel">
    <h2>Open orders <small id="orders-count"></small></h2>
    <div class="scroll"><table id="orders"><thead><tr><th>strategy</th><th>symbol</th><th>side</th><th>kind</th><th>price</th><th>size</th><th>filled</th><th>state</th><th>age</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section class="panel">
    <h2>Recent fills</h2>
    <div class="scroll"><table id="fills"><thead><tr><th>time</th><th>strategy</th><th>symbol</th><th>price</th><th>size</th><th>fee</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section class="panel">
    <h2>Balances</h2>
    <div class="scroll"><table id="balances"><thead><tr><th>surface</th><th>asset</th><th>total</th><th>available</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section class="panel">
    <h2>Positions</h2>
    <div class="scroll"><table id="positions"><thead><tr><th>symbol</th><th>side</th><th>size</th><th>entry</th><th>mark</th><th>uPnL</th><th>liquidation</th></tr></thead><tbody></tbody></table></div>
  </section>
</main>
<dialog id="ask" aria-labelledby="ask-title" aria-describedby="ask-text">
  <h2 id="ask-title"></h2>
  <p id="ask-text"></p>
  <label id="ask-reason-field" hidden><span>Reason <small>journaled with the command</small></span><input id="ask-reason" type="text" autocomplete="off" maxlength="500"></label>
  <p id="ask-problem" role="alert"></p>
  <div id="ask-choices" class="choices"></div>
</dialog>
</body></html>
`;

/** The page's stylesheet, served at `/dashboard/style.css`. */
export const DASHBOARD_CSS = `
:root{--fg:#1d2330;--muted:#6b7385;--line:#e3e6ee;--bg:#f5f6f9;--card:#fff;--ok:#089981;--warn:#c77c02;--bad:#f23645;--blue:#2962ff}
*{box-sizing:border-box}
body{font:13px/1.35 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 20px;padding:8px 16px;background:var(--card);border-bottom:1px solid var(--line);position:sticky;top:0;z-index:5}
.brand{font-weight:700;font-size:16px}
.facts{display:flex;gap:16px;margin:0}
.facts div{display:flex;flex-direction:column}
dt{font-size:11px;color:var(--muted)} dd{margin:0;font-weight:600;max-width:280px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#stream[data-stream=live]{color:var(--ok)} #stream[data-stream=connecting],#stream[data-stream=down]{color:var(--bad)}
.trading{display:flex;align-items:center;gap:8px;flex:1;min-width:200px}
.state{padding:3px 10px;border-radius:12px;font-weight:700;text-transform:uppercase;background:#e8eaf0}
.state[data-state=active]{background:#d9f2ec;color:var(--ok)}
.state[data-state=reducing]{background:#fdf0d8;color:var(--warn)}
.state[data-state=halted]{background:#fde0e3;color:var(--bad)}
#latches,#fenced{color:var(--muted);font-size:12px}
#fenced{color:var(--warn)}
button{font:inherit;padding:4px 12px;border:1px solid #c9cedb;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:#f0f2f7} button:disabled{opacity:.5;cursor:default}
button.danger{border-color:var(--bad);color:var(--bad)}
.kill{display:flex;gap:6px}
#answer{font-size:12px}
#answer:empty{display:none}
#answer.ok{color:var(--ok)} #answer.error{color:var(--bad)}
main{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;padding:12px 16px}
.panel{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:0}
.wide{grid-column:1/-1}
.charts{display:flex;flex-direction:column;gap:4px}
.chart{height:210px}
.side{display:flex;flex-direction:column;gap:12px;min-width:0}
.side .panel:last-child{flex:1}
.legend{display:flex;gap:12px;font-size:12px;color:var(--muted)}
.legend span::before{content:"";display:inline-block;width:10px;height:3px;margin-right:4px;vertical-align:middle;background:var(--swatch,var(--blue))}
h2{font-size:13px;margin:4px 0 6px} small{font-weight:400;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:3px 6px;border-bottom:1px solid #eef0f5;text-align:left;white-space:nowrap}
thead th{position:sticky;top:0;background:var(--card);font-size:11px;color:var(--muted);font-weight:600}
td.num{text-align:right}
.scroll{max-height:220px;overflow:auto}
.side-buy{color:var(--ok)} .side-sell{color:var(--bad)}
.muted{color:var(--muted);font-size:12px;margin:4px 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.card header{all:unset;display:flex;align-items:center;gap:8px;margin-bottom:4px}
.card .id{font-weight:700;white-space:nowrap}
.card .name{color:var(--muted);min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.card .badge{margin-left:auto;padding:1px 8px;border-radius:10px;font-size:11px;font-weight:700;text-transform:uppercase;background:#e8eaf0}
.badge[data-state=running]{background:#d9f2ec;color:var(--ok)}
.badge[data-state=paused]{background:#fdf0d8;color:var(--warn)}
.badge[data-state=faulted]{background:#fde0e3;color:var(--bad)}
.card dl{display:grid;grid-template-columns:auto 1fr;gap:1px 10px;margin:4px 0}
.card dd{font-weight:400;white-space:normal;max-width:none}
.card .error{color:var(--bad);font-size:12px;overflow-wrap:anywhere}
.card .actions{display:flex;gap:6px;margin-top:6px}
.gauge{display:grid;grid-template-columns:120px 1fr 90px;align-items:center;gap:8px;margin:3px 0}
.gauge .bar{height:8px;background:#eef0f5;border-radius:4px;overflow:hidden}
.gauge .fill{height:100%;background:var(--ok)}
.gauge .fill.low{background:var(--warn)} .gauge .fill.empty{background:var(--bad)}
.gauge .figures{text-align:right;font-variant-numeric:tabular-nums}
.events{list-style:none;margin:0;padding:0;max-height:190px;overflow:auto;font-size:12px}
.events li{display:flex;gap:8px;padding:2px 0;border-bottom:1px solid #f2f3f7}
.events time{color:var(--muted);font-variant-numeric:tabular-nums}
.events .kind{min-width:66px;font-weight:600}
.events .count{margin-left:auto;padding:0 6px;border-radius:8px;background:#e8eaf0;font-weight:600;font-variant-numeric:tabular-nums}
.kind-fill{color:var(--ok)} .kind-state{color:var(--bad)} .kind-command{color:var(--blue)} .kind-strategy{color:var(--warn)}
dialog{border:1px solid var(--line);border-radius:8px;padding:14px 18px;width:min(600px,calc(100vw - 32px));color:var(--fg);box-shadow:0 8px 30px rgba(0,0,0,.2)}
dialog::backdrop{background:rgba(29,35,48,.35)}
dialog h2{font-size:15px;margin:0 0 8px}
dialog p{margin:0 0 10px}
#ask-reason-field{display:flex;flex-direction:column;gap:4px;margin-bottom:8px}
#ask-reason-field[hidden]{display:none}
#ask-reason{font:inherit;padding:4px 6px;border:1px solid #c9cedb;border-radius:4px}
#ask-problem{color:var(--bad);font-size:12px}
#ask-problem:empty{display:none}
.choices{display:flex;flex-wrap:wrap;justify-content:flex-end;gap:8px}
.choices button:focus,#ask-reason:focus{outline:2px solid var(--blue);outline-offset:1px}
`;
