// `sextant sim` for the tick-to-request bench, in a process of its own as a venue is (`node bench/sim-child.js
// <config>`): it sends its URL once listening, then the time each order request arrived, on the clock every process
// on the machine shares (performance.timeOrigin + performance.now()), and stops when its parent goes.
import { loadConfig } from '../dist/config/load.js';
import { createSimServer } from '../dist/app/kernel.js';
import { systemClock } from '../dist/util/clock.js';
import { silentLogger } from '../dist/util/logger.js';

const loaded = loadConfig(process.argv[2], {});
const sim = createSimServer(loaded, silentLogger, systemClock, (method, path) => {
  if (method === 'POST' && path.startsWith('/capi/v2/order/batchOrders')) process.send({ arrivedAtMs: performance.timeOrigin + performance.now() });
});
process.send({ url: await sim.listen(0, '127.0.0.1') });
process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
