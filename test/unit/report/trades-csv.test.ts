// trades.csv put together from the executions as a run spilled them and the funding rows known at the end: each
// funding row after the executions of its instant, before any later one, whatever the spill's chunks cut through.
import { mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { ExecutionLedger } from '../../../src/report/execution-ledger.js';
import { tradeCsvRows, type TradeCsvRow } from '../../../src/report/futures.js';
import { realize } from '../../../src/report/metrics.js';
import { SpillFile } from '../../../src/report/spill-file.js';
import { executionCsvBytes, executionCsvLine, putExecutionCsvLine, TRADES_CSV_HEADER, tradesCsvLine, writeTradesCsv } from '../../../src/report/trades-csv.js';
import { randomRun } from './random-run.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-trades-'));

describe('trades.csv', () => {
  it.each([
    [21, 1 << 18],
    [22, 64],
    [23, 7],
    [24, 100],
  ])('seed %i, spilled through %i bytes: the lines of the whole list, funding merged in', (seed, bufferBytes) => {
    const run = randomRun(seed, 400);
    const spill = new SpillFile(join(dir, `${seed}.part`), bufferBytes);
    spill.write(`${TRADES_CSV_HEADER}\n`);
    const ledger = new ExecutionLedger(run.futures);
    run.fills.forEach((f, i) => {
      const kind = run.kinds.get(f.fillId);
      ledger.record(f, kind);
      const line = `${executionCsvLine(f, ledger.realizedText(), kind)}\n`;
      // Written into the spill's buffer as bytes, the same as the text.
      const bytes = executionCsvBytes(f) + ledger.realizedBytes();
      expect(bytes).toBeGreaterThanOrEqual(Buffer.byteLength(line));
      if (i % 2 === 1 && bytes <= spill.capacity) spill.commit(putExecutionCsvLine(spill.buffer, spill.room(bytes), f, ledger, kind));
      else spill.write(line);
    });
    const times = [
      run.fills[0]!.timestampMs - 1,
      run.fills[0]!.timestampMs,
      ...run.fills.filter((_, i) => i % 37 === 5).map((f) => f.timestampMs),
      run.fills[run.fills.length - 1]!.timestampMs + 1,
    ];
    const funding: TradeCsvRow[] = times.map((timestampMs, i) => ({
      kind: 'funding',
      symbol: 'A',
      timestampMs,
      amount: Decimal.from(i % 2 ? '-0.5' : '0.25'),
      rate: null,
      positionSide: null,
    }));
    writeTradesCsv(join(dir, `${seed}.csv`), spill, funding);
    expect(readFileSync(join(dir, `${seed}.csv`), 'utf8')).toBe(
      [TRADES_CSV_HEADER, ...tradeCsvRows(realize(run.fills), run.kinds, funding).map(tradesCsvLine)].join('\n') + '\n',
    );
    spill.remove();
  });

  it('a spill counts its bytes (text beyond ASCII included) and copies any range of them', () => {
    const spill = new SpillFile(join(dir, 'bytes.part'), 5);
    const parts = ['ab', 'ü€', 'a long line longer than the buffer 📈\n', '', 'z'];
    const offsets = parts.map((p) => {
      spill.write(p);
      return spill.offset();
    });
    const all = Buffer.from(parts.join(''), 'utf8');
    expect(offsets).toEqual(parts.map((_, i) => Buffer.byteLength(parts.slice(0, i + 1).join(''), 'utf8')));
    for (const [from, to] of [
      [0, all.length],
      [2, 9],
      [3, 40],
      [all.length, all.length],
    ] as const) {
      const fd = openSync(join(dir, 'range'), 'w');
      spill.copyTo(fd, from, to);
      closeSync(fd);
      expect(readFileSync(join(dir, 'range'))).toEqual(all.subarray(from, to));
    }
    spill.moveTo(join(dir, 'moved'));
    expect(readFileSync(join(dir, 'moved'))).toEqual(all);
    spill.remove();
  });
});
