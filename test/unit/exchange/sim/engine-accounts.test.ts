// The simulator's accounts apart from matching: spot funds frozen, moved by fills and given back; futures margin,
// the checks on opening and closing orders, and settlement into positions with realised PnL.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { createBook, type Book } from '../../../../src/exchange/sim/book.js';
import { FuturesAccount } from '../../../../src/exchange/sim/futures-account.js';
import { domainPositions } from '../../../../src/exchange/sim/position-views.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import type { SimOrder } from '../../../../src/exchange/sim/sim-order.js';
import { SpotWallet } from '../../../../src/exchange/sim/spot-wallet.js';

const d = (s: string) => Decimal.from(s);

function bookOf(symbol: string, bidTicks: number): Book {
  const source = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: 0, tickIntervalMs: 100 });
  const market = source.symbols.find((m) => m.spec.symbol === symbol)!;
  market.bid = bidTicks;
  market.ask = bidTicks + 1;
  market.last = bidTicks;
  return createBook(market);
}

function order(fields: Partial<SimOrder>): SimOrder {
  return {
    orderId: '1',
    clientOid: 'a',
    surface: 'spot',
    symbol: 'x',
    side: 'buy',
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    tif: 'gtc',
    priceTicks: null,
    sizeSteps: 1,
    filledSteps: 0,
    filledValue: Decimal.ZERO,
    fee: Decimal.ZERO,
    status: 'open',
    createdAtMs: 0,
    updatedAtMs: 0,
    reserved: Decimal.ZERO,
    triggerTicks: null,
    triggerUp: false,
    isTrigger: false,
    firedAtMs: null,
    ...fields,
  };
}

const balanceOf = (wallet: SpotWallet, asset: string) => {
  const b = wallet.balances().find((x) => x.asset === asset)!;
  return `${b.available!.toString()} / ${b.frozen!.toString()}`;
};

describe('spot wallet', () => {
  // BTCUSDT_SPBL: tick 0.1, step 0.000001, fees 0.1 %.
  const book = bookOf('BTCUSDT_SPBL', 10_000);

  it('freezes worst price × size × (1 + taker fee) for a buy, moves each fill, gives back the rest when final', () => {
    const wallet = new SpotWallet({ USDT: '10' });
    const buy = order({ side: 'buy', priceTicks: 10_000, sizeSteps: 2000 });
    expect(wallet.reserve(book, buy)).toBeUndefined();
    expect(buy.reserved.toString()).toBe('2.002');
    expect(balanceOf(wallet, 'USDT')).toBe('7.998 / 2.002');
    wallet.settle(book, buy, d('0.001'), d('1'), d('0.001'));
    expect(balanceOf(wallet, 'USDT')).toBe('7.998 / 1.001');
    expect(balanceOf(wallet, 'BTC')).toBe('0.001 / 0');
    wallet.release(book, buy);
    expect(balanceOf(wallet, 'USDT')).toBe('8.999 / 0');
    expect(buy.reserved.isZero()).toBe(true);
  });

  it('prices a market buy at the deepest level it may sweep', () => {
    const wallet = new SpotWallet({ USDT: '10' });
    const buy = order({ side: 'buy', priceTicks: null, sizeSteps: 1000 });
    wallet.reserve(book, buy);
    // ask 1000.1, four levels deeper: 1000.5 × 0.001 × 1.001
    expect(buy.reserved.toString()).toBe('1.0015005');
  });

  it('freezes base for a sell and pays the quote less the fee; refuses what is not there', () => {
    const wallet = new SpotWallet({ BTC: '0.001' });
    expect(wallet.reserve(book, order({ side: 'sell', sizeSteps: 500_000 }))).toEqual({
      code: '43002',
      message: 'Failed to place order: insufficient balance: BTC available 0.001, needs 0.5',
    });
    const sell = order({ side: 'sell', priceTicks: 10_000, sizeSteps: 1000 });
    expect(wallet.reserve(book, sell)).toBeUndefined();
    wallet.settle(book, sell, d('0.001'), d('1'), d('0.001'));
    expect(balanceOf(wallet, 'BTC')).toBe('0 / 0');
    expect(balanceOf(wallet, 'USDT')).toBe('0.999 / 0');
  });
});

describe('futures account', () => {
  // cmt_ethusdt: tick 0.01, step 0.001, taker fee 0.06 %; bid 1000.00.
  const setup = (collateral: string) => {
    const book = bookOf('cmt_ethusdt', 100_000);
    return { book, account: new FuturesAccount(collateral, 10, [book]) };
  };
  const long = (fields: Partial<SimOrder>) => order({ surface: 'futures', side: 'buy', positionSide: 'long', priceTicks: 100_000, sizeSteps: 1000, ...fields });

  it('holds notional / leverage plus the taker fee for an opening order, and the same share of open positions', () => {
    const { book, account } = setup('1000');
    const open = long({});
    // 1000 × 1 / 10 + 1000 × 0.0006
    expect(account.openMargin(book, open, 1000).toString()).toBe('100.6');
    book.open.push(open);
    expect(account.available().toString()).toBe('899.4');
    expect(account.available(open).toString()).toBe('1000');
    account.settle(book, open, d('1'), d('1000'), d('0.6'), 5);
    book.open.length = 0;
    expect(account.total().toString()).toBe('999.4');
    expect(account.available().toString()).toBe('899.4');
  });

  it('refuses an open beyond the margin and a close beyond the position', () => {
    const { book, account } = setup('50');
    expect(account.check(book, long({}))).toEqual({
      code: '40017',
      message: 'Parameter validation failed: insufficient balance: margin available 50, needs 100.6',
    });
    expect(account.check(book, long({ side: 'sell', reduceOnly: true }))).toEqual({
      code: '40017',
      message: 'Parameter validation failed: close size exceeds the position',
    });
  });

  it('settles opens into the position and closes pro rata with realised PnL; an empty side is not listed', () => {
    const { book, account } = setup('1000');
    account.settle(book, long({}), d('2'), d('2000'), d('1.2'), 10);
    const [position] = domainPositions(account, book);
    expect({ size: position!.size.toString(), entry: String(position!.entryPrice), updatedAtMs: position!.updatedAtMs }).toEqual({
      size: '2',
      entry: '1000',
      updatedAtMs: 10,
    });
    const close = long({ side: 'sell', reduceOnly: true });
    expect(account.settle(book, close, d('1'), d('1100'), d('0.66'), 20)!.toString()).toBe('100');
    expect(account.settle(book, close, d('1'), d('900'), d('0.54'), 30)!.toString()).toBe('-100');
    expect(domainPositions(account, book)).toEqual([]);
    expect(book.positions.long.realized.toString()).toBe('0');
    expect(account.total().toString()).toBe('997.6');
  });

  it('cancels a firing trigger whose margin or position is not there', () => {
    const { book, account } = setup('100');
    expect(account.refusesFiring(book, long({}))).toBe(true);
    expect(account.refusesFiring(book, long({ sizeSteps: 500 }))).toBe(false);
    expect(account.refusesFiring(book, long({ side: 'sell', reduceOnly: true }))).toBe(true);
  });
});
