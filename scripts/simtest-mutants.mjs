// Searches the seeds for each mutant of test/fixtures/simtest/mutants.json: which seed first catches it, and with
// which invariant. Run after `npm run build`: node scripts/simtest-mutants.mjs [--seeds N] [names…]
import { readFileSync } from 'node:fs';
import { buildMutant, firstFailure, runSimtest } from '../test/fixtures/simtest/mutant.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const at = args.indexOf('--seeds');
const seeds = at >= 0 ? Number(args.splice(at, 2)[1]) : 2000;
const mutants = JSON.parse(readFileSync(new URL('../test/fixtures/simtest/mutants.json', import.meta.url), 'utf8')).filter(
  (m) => args.length === 0 || args.includes(m.name),
);
let missed = 0;
for (const m of mutants) {
  const started = performance.now();
  const { out } = await runSimtest(buildMutant(root, m), ['--seeds', String(seeds), '--stop', '--shrink', '0', '--quiet']);
  const f = firstFailure(out);
  const s = ((performance.now() - started) / 1000).toFixed(0);
  if (!f) missed++;
  console.log(
    f ? `${m.name} (${m.invariant}): caught by seed ${f.seed} as ${f.invariant} (${s} s)` : `${m.name} (${m.invariant}): NOT caught in ${seeds} seeds (${s} s)`,
  );
}
process.exit(missed ? 1 : 0);
