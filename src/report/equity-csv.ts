// equity.csv: a line per equity sample (with the margin rate against the maintenance rate in a run that trades
// futures), written as the samples are taken and moved into place at the end.
import type { Decimal } from '../domain/decimal.js';
import type { EquityPoint } from './metrics.js';
import { SpillFile } from './spill-file.js';

/** A rate in equity.csv: empty while flat. */
const rateText = (x: Decimal | null | undefined) => (x ? x.toString() : '');

export const equityCsvHeader = (futures: boolean) => (futures ? 'ts,equity,buy_and_hold,margin_rate,maintenance_rate' : 'ts,equity,buy_and_hold');

export const equityCsvLine = (p: EquityPoint, futures: boolean) =>
  `${p.ts},${p.equity.toString(8)},${p.hold.toString(8)}${futures ? `,${rateText(p.marginRate)},${rateText(p.maintenanceRate)}` : ''}`;

export class EquityCsv {
  private readonly spill: SpillFile;
  private written = 0;

  /** `path`: where the lines are spilled until the file is moved into place. */
  constructor(
    path: string,
    private readonly futures: boolean,
  ) {
    this.spill = new SpillFile(path, 1 << 16);
    this.spill.write(`${equityCsvHeader(futures)}\n`);
  }

  /** Writes the lines of the samples not written yet. */
  take(points: readonly EquityPoint[]): void {
    for (; this.written < points.length; this.written++) this.spill.write(`${equityCsvLine(points[this.written]!, this.futures)}\n`);
  }

  moveTo(file: string): void {
    this.spill.moveTo(file);
  }

  discard(): void {
    this.spill.remove();
  }
}
