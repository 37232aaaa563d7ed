// Searches the seeds for each mutant of test/fixtures/simtest/mutants.json (with --regressions, each fix of
// regressions.json undone): the first seed that breaks the invariant it is meant for (and the first seed that catches
// it at all, when another invariant breaks first). Run after `npm run build`:
// node scripts/simtest-mutants.mjs [--regressions] [--seeds N] [names…]
import { readFileSync } from 'node:fs';
import { buildMutant, runSimtest } from '../test/fixtures/simtest/mutant.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const at = args.indexOf('--seeds');
const seeds = at >= 0 ? Number(args.splice(at, 2)[1]) : 2000;
const regressions = args.includes('--regressions');
if (regressions) args.splice(args.indexOf('--regressions'), 1);
const file = regressions ? 'regressions.json' : 'mutants.json';
const mutants = JSON.parse(readFileSync(new URL(`../test/fixtures/simtest/${file}`, import.meta.url), 'utf8')).filter(
  (m) => args.length === 0 || args.includes(m.name),
);
let missed = 0;
for (const m of mutants) {
  const started = performance.now();
  const { out } = await runSimtest(buildMutant(root, m), ['--seeds', String(seeds), '--stop-on', m.invariant, '--shrink', '0', '--quiet']);
  const failures = [...out.matchAll(/^FAILED seed (\d+): ([a-z-]+) /gm)].map((x) => ({ seed: Number(x[1]), invariant: x[2] })).sort((a, b) => a.seed - b.seed);
  const hit = failures.find((f) => f.invariant === m.invariant);
  const first = failures[0];
  const s = ((performance.now() - started) / 1000).toFixed(0);
  if (!hit) missed++;
  const also = first && first !== hit ? `; first caught by seed ${first.seed} as ${first.invariant}` : '';
  console.log(
    hit
      ? `${m.name} (${m.invariant}): caught by seed ${hit.seed}${also} (${s} s)`
      : `${m.name} (${m.invariant}): NOT caught as such in ${seeds} seeds${also} (${s} s)`,
  );
}
process.exit(missed ? 1 : 0);
