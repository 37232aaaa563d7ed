// Walk-forward windows over the data: each fold picks its params in sample and is judged on the out-of-sample
// window that follows it. Rolling: the in-sample window keeps its length and moves; anchored: it starts at the
// data's start and grows. The folds end at the data's end (the most recent data is always tested); whatever does
// not fit a whole fold is left out at the start (rolling) or joins the first in-sample window (anchored).

/** A stretch of time, half open: fromMs included, toMs excluded. */
export interface Window {
  fromMs: number;
  toMs: number;
}

export interface Fold {
  index: number;
  inSample: Window;
  outOfSample: Window;
}

export interface WalkForwardSpec {
  mode: 'rolling' | 'anchored';
  inSampleMs?: number;
  outOfSampleMs?: number;
  folds?: number;
  /** With folds alone: in-sample length over out-of-sample length (default 3). */
  ratio?: number;
}

export class WalkForwardError extends Error {}

const DEFAULT_RATIO = 3;

/** The in-sample and out-of-sample lengths and the number of folds the spec gives over `spanMs`. */
export function foldShape(spanMs: number, wf: WalkForwardSpec): { inSampleMs: number; outOfSampleMs: number; folds: number } {
  const { inSampleMs, outOfSampleMs, folds } = wf;
  let shape: { inSampleMs: number; outOfSampleMs: number; folds: number };
  if (inSampleMs !== undefined && outOfSampleMs !== undefined) {
    shape = { inSampleMs, outOfSampleMs, folds: Math.floor((spanMs - inSampleMs) / outOfSampleMs) };
  } else if (folds !== undefined && inSampleMs !== undefined) {
    shape = { inSampleMs, outOfSampleMs: Math.floor((spanMs - inSampleMs) / folds), folds };
  } else if (folds !== undefined && outOfSampleMs !== undefined) {
    shape = { inSampleMs: spanMs - folds * outOfSampleMs, outOfSampleMs, folds };
  } else if (folds !== undefined) {
    const ratio = wf.ratio ?? DEFAULT_RATIO;
    const oos = Math.floor(spanMs / (ratio + folds));
    shape = { inSampleMs: ratio * oos, outOfSampleMs: oos, folds };
  } else {
    throw new WalkForwardError('walk-forward: give inSample and outOfSample, or folds');
  }
  if (shape.folds < 1 || shape.inSampleMs < 1 || shape.outOfSampleMs < 1) {
    throw new WalkForwardError(`walk-forward: the data spans ${spanMs} ms (${(spanMs / 86_400_000).toFixed(2)} d): too short for ${describeShape(wf)}`);
  }
  return shape;
}

function describeShape(wf: WalkForwardSpec): string {
  const parts = [
    wf.inSampleMs !== undefined ? `in-sample ${wf.inSampleMs} ms` : '',
    wf.outOfSampleMs !== undefined ? `out-of-sample ${wf.outOfSampleMs} ms` : '',
    wf.folds !== undefined ? `${wf.folds} fold${wf.folds === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  return parts.join(', ') || 'any fold';
}

/** The folds over the data `span` (first event included, last excluded: pass the last event's time + 1). */
export function walkForwardFolds(span: Window, wf: WalkForwardSpec): Fold[] {
  const { inSampleMs, outOfSampleMs, folds } = foldShape(span.toMs - span.fromMs, wf);
  return Array.from({ length: folds }, (_, index) => {
    const oosFrom = span.toMs - (folds - index) * outOfSampleMs;
    return {
      index,
      inSample: { fromMs: wf.mode === 'anchored' ? span.fromMs : oosFrom - inSampleMs, toMs: oosFrom },
      outOfSample: { fromMs: oosFrom, toMs: oosFrom + outOfSampleMs },
    };
  });
}

/** A job's range for a window: the replay includes both ends, so the window's exclusive end is one ms before. */
export const jobRange = (w: Window) => ({ fromMs: w.fromMs, toMs: w.toMs - 1 });
