// The venue's instrument lists by surface: what `record` polls each symbol on, and what plan caches.
import { describe, expect, it } from '@jest/globals';
import { bySurface, readVenueInstruments } from '../../../src/app/instrument-list.js';
import type { Instrument, Surface } from '../../../src/domain/market.js';

describe('readVenueInstruments', () => {
  it('reads both surfaces (S7, then F1) and keeps their symbols apart', async () => {
    const asked: Surface[] = [];
    const client = {
      instruments: async (surface: Surface) => {
        asked.push(surface);
        const symbols = surface === 'spot' ? ['BTCUSDT_SPBL', 'ETHUSDT_SPBL'] : ['cmt_btcusdt'];
        return symbols.map((symbol) => ({ surface, symbol }) as Instrument);
      },
    };
    expect(await readVenueInstruments(client)).toEqual({ spot: ['BTCUSDT_SPBL', 'ETHUSDT_SPBL'], futures: ['cmt_btcusdt'] });
    expect(asked).toEqual(['spot', 'futures']);
  });
});

describe('bySurface', () => {
  it('puts each symbol on the surface whose list has it, by the list and not by its name; the rest are unknown', () => {
    // A futures contract whose name carries no cmt_ prefix is still futures: the list says so.
    const listed = { spot: ['BTCUSDT_SPBL'], futures: ['cmt_btcusdt', 'XAUTUSDT'] };
    expect(bySurface(['cmt_btcusdt', 'BTCUSDT_SPBL', 'XAUTUSDT', 'cmt_nope', 'NOPE_SPBL'], listed)).toEqual({
      spot: ['BTCUSDT_SPBL'],
      futures: ['cmt_btcusdt', 'XAUTUSDT'],
      unknown: ['cmt_nope', 'NOPE_SPBL'],
    });
  });
});
