import { runSimulation } from '../src/app/simtest/world.js';
import { simEnvironment } from '../src/app/simtest/setup.js';
const env = await simEnvironment();
const seeds = process.argv.slice(2).map(Number);
for (const seed of seeds) {
  const t0 = performance.now();
  const r = await runSimulation({ seed, minutes: 10, ...env, dir: '/dev/shm' });
  console.log(seed, Math.round(performance.now() - t0), 'ms', JSON.stringify(r.figures), r.violations.slice(0, 3), JSON.stringify(r.schedule).slice(0, 400));
}
