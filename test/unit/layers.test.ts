// The layer rules of DESIGN.md §3 hold in the source tree: no import a rule does not allow, no circle of imports.
// The check itself is shown to fail on a tree made to break them (test/fixtures/layers-bad), naming each rule broken.
import { describe, expect, it } from '@jest/globals';
import { importCircles, importGraph, layerOf, layerViolations } from '../fixtures/layer-rules.js';

describe('the layers of DESIGN.md §3', () => {
  it('the source tree keeps them: every import allowed by a rule, no circle', () => {
    // The project's own sources: a user's strategies/ in the checkout is the trader's, not the project's.
    const edges = importGraph('.', ['src', 'examples/strategies', 'templates']);
    // The graph is read: the tree's sources and their imports, strategies through the package's entry too.
    expect(edges.length).toBeGreaterThan(1000);
    expect(edges.some((e) => e.from.startsWith('examples/strategies/') && e.to === 'src/strategy/api.ts')).toBe(true);
    expect(edges.filter((e) => layerOf(e.from) === undefined).map((e) => e.from)).toEqual([]);
    expect(layerViolations(edges)).toEqual([]);
    expect(importCircles(edges)).toEqual([]);
  });

  it('fails on a tree that breaks them, naming the import, the layers and the rule, and each circle', () => {
    const edges = importGraph('test/fixtures/layers-bad');
    expect(layerViolations(edges)).toEqual([
      'src/domain/reaches-util.ts:2 imports src/util/helper.ts: domain -> util breaks "domain, util -> nothing in src"',
      'src/exchange/sim/uses-live.ts:2 imports src/exchange/live/face.ts: exchange/sim -> exchange/live breaks "exchange/sim -> exchange/{client,errors,endpoints,wire}, domain, util (never exchange/live)"',
      'strategies/peek/index.ts:2 imports src/execution/executor.ts: strategies -> execution breaks "strategies/* -> src/strategy/api.ts only (the package\'s public strategy entry), and their tests src/strategy/testing.ts"',
    ]);
    expect(importCircles(edges)).toEqual(['files that import each other in a circle: src/domain/circle-a.ts, src/domain/circle-b.ts']);
  });
});
