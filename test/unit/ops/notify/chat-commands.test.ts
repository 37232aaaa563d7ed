// The chat commands on their own, over a fake Control and a manual clock: every command that changes trading says
// what it will do and acts only on its code within 30 s (typed or pressed), one confirmation per chat (a new ask
// replaces it), a wrong or late code does nothing; /forceexit checks its strategy and symbol before it asks; a flood
// of commands from one chat is told once and ignored until the window has room; the rate and the waits go by the
// clock. /profit and /performance over a real core are in test/unit/app/control-force-exit.test.ts.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { ChatCommands, CONFIRM_BUTTON, CONFIRM_TTL_MS, parseCommand, shortDecimal, type ChatReply } from '../../../../src/ops/notify/chat-commands.js';
import { registerSecret } from '../../../../src/util/secrets.js';
import { ChatRate } from '../../../../src/ops/notify/chat-rate.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakeControl, strategyView } from './fake-control.js';

let control: FakeControl;
let clock: ManualClock;
let chat: ChatCommands;

beforeEach(() => {
  control = new FakeControl();
  control.strategyList.push(
    strategyView('fx', {
      symbols: ['cmt_btcusdt', 'BTCUSDT_SPBL'],
      positions: [{ symbol: 'cmt_btcusdt', side: 'long', size: '0.01', entryPrice: '90000', unrealizedPnl: '1' }],
    }),
  );
  control.orderList = [
    {
      clientOid: 'sx_fx_1',
      orderId: '1',
      strategyId: 'fx',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      side: 'buy',
      kind: 'limit',
      price: '88000',
      size: '0.01',
      filledSize: '0',
      avgPrice: null,
      state: 'open',
      role: null,
      createdAtMs: 1,
      updatedAtMs: 1,
    },
    {
      clientOid: 'sx_fx_2',
      orderId: '2',
      strategyId: 'fx',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      side: 'buy',
      kind: 'limit',
      price: '88000',
      size: '0.01',
      filledSize: '0',
      avgPrice: null,
      state: 'open',
      role: null,
      createdAtMs: 1,
      updatedAtMs: 1,
    },
  ];
  clock = new ManualClock(control.nowMs);
  chat = new ChatCommands(control, clock);
});

const codeOf = (reply: ChatReply | null): string => {
  const typed = /\/confirm (\d{6})/.exec(reply!.text)![1]!;
  // The button carries the same code, in the form telegram.ts matches.
  expect(CONFIRM_BUTTON.exec(reply!.button!.data)![1]).toBe(typed);
  return typed;
};

const other = (code: string) => (code === '111111' ? '222222' : '111111');

describe('commands that change trading wait for their confirmation', () => {
  it('say what they will do, and act when the code comes back within 30 s, typed or pressed', async () => {
    const halt = await chat.handle('1001', '/halt venue incident');
    expect(halt!.text).toMatch(
      /^Halt trading \(cancels only, until reset\)\?\nReason: venue incident\nSend \/confirm \d{6} within 30 s, or press the button\.$/,
    );
    expect(halt!.button!.label).toBe('Confirm halt');
    clock.advance(CONFIRM_TTL_MS);
    expect(control.commands).toEqual([]);
    expect((await chat.handle('1001', `/confirm ${codeOf(halt)}`))!.text).toBe('halted: venue incident');
    expect(control.commands).toEqual([{ command: 'halt', args: ['venue incident'], actor: { via: 'telegram', who: '1001' } }]);
    // Used once.
    expect((await chat.handle('1001', `/confirm ${codeOf(halt)}`))!.text).toBe('nothing to confirm with that code');

    const flatten = await chat.handle('1001', '/flatten');
    expect(flatten!.text).toMatch(
      /^Halt trading and flatten now: cancel every own order and close 1 futures position at market \(spot holdings are not sold\)\?\nReason: flattened from Telegram chat 1001\n/,
    );
    expect((await chat.pressed('1001', codeOf(flatten)))!.text).toBe('flattened');
    expect(control.commands.at(-1)).toEqual({ command: 'flatten', args: ['flattened from Telegram chat 1001'], actor: { via: 'telegram', who: '1001' } });

    const pause = await chat.handle('1002', '/pause mm cancel');
    expect(pause!.text).toMatch(/^Pause mm \(no new intents\) and cancel its 2 open orders\?\n/);
    expect((await chat.handle('1002', '/pause grid'))!.text).toMatch(/^Pause grid \(no new intents; its 2 open orders stay\)\?\n/);
  });

  it('do nothing after 30 s, with a clear answer', async () => {
    const asked = await chat.handle('1001', '/pause mm');
    clock.advance(CONFIRM_TTL_MS + 1);
    expect((await chat.handle('1001', `/confirm ${codeOf(asked)}`))!.text).toBe('that confirmation expired (30 s): nothing was done; send /pause mm again');
    expect(control.commands).toEqual([]);
    expect(control.strategyList[0]!.state).toBe('running');
    // Gone once answered: the same code again is nothing.
    expect((await chat.handle('1001', `/confirm ${codeOf(asked)}`))!.text).toBe('nothing to confirm with that code');
  });

  it('do nothing on a wrong code or from another chat, and still take the right one', async () => {
    const asked = await chat.handle('1001', '/halt');
    const code = codeOf(asked);
    expect((await chat.handle('1001', `/confirm ${other(code)}`))!.text).toBe('nothing to confirm with that code');
    expect((await chat.handle('1001', '/confirm'))!.text).toBe('nothing to confirm with that code');
    expect((await chat.pressed('1002', code))!.text).toBe('nothing to confirm with that code');
    expect(control.commands).toEqual([]);
    expect((await chat.handle('1001', `/confirm ${code}`))!.text).toBe('halted: halted from Telegram chat 1001');
  });

  it("in a group chat, wait for the member who asked: another member's confirmation does nothing, typed or pressed", async () => {
    const asked = await chat.handle('-100200', '/halt incident', 'u-alice');
    const code = codeOf(asked);
    expect((await chat.handle('-100200', `/confirm ${code}`, 'u-bob'))!.text).toBe('only the one who sent /halt can confirm it');
    expect((await chat.pressed('-100200', code, 'u-bob'))!.text).toBe('only the one who sent /halt can confirm it');
    expect((await chat.pressed('-100200', code))!.text).toBe('only the one who sent /halt can confirm it');
    expect(control.commands).toEqual([]);
    expect((await chat.pressed('-100200', code, 'u-alice'))!.text).toBe('halted: incident');
    expect(control.commands.map((c) => c.command)).toEqual(['halt']);
  });

  it('wait one per chat: a new ask replaces the one before, whose code then does nothing', async () => {
    const first = await chat.handle('1001', '/halt');
    let second = await chat.handle('1001', '/pause mm');
    expect(second!.text).toMatch(/\n\(This replaces the \/halt waiting for its confirmation\.\)$/);
    // (Codes are random: one equal to the first by chance is asked again.)
    while (codeOf(second) === codeOf(first)) second = await chat.handle('1001', '/pause mm');
    expect((await chat.handle('1001', `/confirm ${codeOf(first)}`))!.text).toBe('nothing to confirm with that code');
    expect((await chat.handle('1001', `/confirm ${codeOf(second)}`))!.text).toBe('mm paused');
    expect(control.commands.map((c) => c.command)).toEqual(['pause']);
    // One that expired is not said to be replaced.
    await chat.handle('1001', '/halt');
    clock.advance(CONFIRM_TTL_MS + 1);
    expect((await chat.handle('1001', '/flatten'))!.text).not.toContain('replaces');
  });

  it('/resume and the reads act at once', async () => {
    expect((await chat.handle('1001', '/resume mm back'))!.text).toBe('mm resumed');
    expect(control.commands).toEqual([{ command: 'resume', args: ['mm', 'back'], actor: { via: 'telegram', who: '1001' } }]);
    expect((await chat.handle('1001', '/help'))!.text).toContain('/forceexit ID SYMBOL [reason]');
    expect((await chat.handle('1001', '/performance'))!.text).toBe('No fills yet');
  });
});

describe('/forceexit', () => {
  it('checks the strategy and the symbol, says what it will do, and acts on the confirmation', async () => {
    expect((await chat.handle('1001', '/forceexit fx'))!.text).toBe('usage: /forceexit ID SYMBOL [reason]');
    expect((await chat.handle('1001', '/forceexit nope cmt_btcusdt'))!.text).toBe('refused (404): no strategy nope');
    expect((await chat.handle('1001', '/forceexit fx ETHUSDT_SPBL'))!.text).toBe(
      'refused (404): fx does not trade ETHUSDT_SPBL (its symbols: cmt_btcusdt, BTCUSDT_SPBL)',
    );
    expect(control.commands).toEqual([]);

    const asked = await chat.handle('1001', '/forceexit fx CMT_BTCUSDT stop out');
    expect(asked!.text.split('\n').slice(0, 2)).toEqual([
      'Force exit fx on cmt_btcusdt: pause fx (it stays paused until /resume fx), cancel its 1 open order on cmt_btcusdt and close its position there at market (reduce-only; the account holds long 0.01)?',
      'Reason: stop out',
    ]);
    expect(asked!.button!.label).toBe('Confirm force exit fx');
    expect(control.commands).toEqual([]);
    expect((await chat.pressed('1001', codeOf(asked)))!.text).toBe('fx paused; cmt_btcusdt closed');
    expect(control.commands).toEqual([{ command: 'forceExit', args: ['fx', 'cmt_btcusdt', 'stop out'], actor: { via: 'telegram', who: '1001' } }]);

    const spot = await chat.handle('1001', '/forceexit fx btcusdt_spbl');
    expect(spot!.text).toMatch(
      /^Force exit fx on BTCUSDT_SPBL: pause fx .*, cancel its 1 open order on BTCUSDT_SPBL and sell at market what it bought there\?\nSend/,
    );
    clock.advance(CONFIRM_TTL_MS + 1);
    expect((await chat.handle('1001', `/confirm ${codeOf(spot)}`))!.text).toBe(
      'that confirmation expired (30 s): nothing was done; send /forceexit fx BTCUSDT_SPBL again',
    );
    expect(control.commands).toHaveLength(1);
  });
});

describe('a flood of commands', () => {
  it('reads and trading commands have a window each: a flood of either is told once and ignored, and a flood of reads never holds up a halt', async () => {
    // 10 reads, one every 2 s: their window (60 s) is full from t0 + 18 s until the first leaves it at t0 + 60 s.
    for (let i = 0; i < 10; i++) {
      expect((await chat.handle('1001', '/status'))!.text).toContain('Trading: active');
      clock.advance(2000);
    }
    clock.advance(2000); // t0 + 22 s
    expect((await chat.handle('1001', '/status'))!.text).toBe('too many commands (more than 10 in 60 s): ignoring them for 38 s');
    for (let i = 0; i < 5; i++) expect(await chat.handle('1001', '/balance')).toBeNull();
    // A trading command is not held up by the reads.
    expect((await chat.handle('1001', '/resume mm'))!.text).toBe('mm resumed');
    // Another chat has its own windows.
    expect((await chat.handle('1002', '/status'))!.text).toContain('Trading: active');
    // Not a command: not counted, not answered.
    expect(await chat.handle('1001', 'hello')).toBeNull();

    clock.advance(37_999); // t0 + 59.999 s: still full
    expect(await chat.handle('1001', '/status')).toBeNull();
    clock.advance(1); // t0 + 60 s: the first read has left the window
    expect((await chat.handle('1001', '/status'))!.text).toContain('Trading: active');
    // The window is full again: a new flood, told again (once).
    expect((await chat.handle('1001', '/status'))!.text).toBe('too many commands (more than 10 in 60 s): ignoring them for 2 s');
    expect(await chat.handle('1001', '/status')).toBeNull();

    // Trading commands: 9 more fill their window (the resume at t0 + 22 s was the first); then told once, ignored.
    for (let i = 0; i < 9; i++) expect((await chat.handle('1001', '/resume mm'))!.text).toBe('mm resumed');
    expect((await chat.handle('1001', '/halt'))!.text).toBe(
      'too many trading commands (/pause /resume /forceexit /halt /flatten /confirm) (more than 10 in 60 s): ignoring them for 22 s',
    );
    expect(await chat.handle('1001', '/halt')).toBeNull();
    expect(await chat.pressed('1001', '123456')).toBeNull();
    expect(control.commands.filter((c) => c.command !== 'resume')).toEqual([]);
    expect(control.commands).toHaveLength(10);
  });

  it('is counted in a sliding window of the limits given', () => {
    const rate = new ChatRate({ max: 2, windowMs: 1000 }, clock);
    expect(rate.take('a')).toEqual({ verdict: 'take' });
    clock.advance(400);
    expect(rate.take('a')).toEqual({ verdict: 'take' });
    expect(rate.take('a')).toEqual({ verdict: 'tell', waitMs: 600 });
    expect(rate.take('a')).toEqual({ verdict: 'ignore' });
    clock.advance(600);
    expect(rate.take('a')).toEqual({ verdict: 'take' });
    expect(rate.take('a')).toEqual({ verdict: 'tell', waitMs: 400 });
    expect(() => new ChatRate({ max: 0, windowMs: 1000 }, clock)).toThrow(RangeError);
  });
});

describe('decimals as the chat shows them', () => {
  it('drops the trailing zeros of the fraction only', () => {
    expect(['12.50000000', '-3.00000000', '0.00000000', '100', '0.10', '-0.00001000'].map(shortDecimal)).toEqual(['12.5', '-3', '0', '100', '0.1', '-0.00001']);
  });
});

describe('a secret pasted into a command', () => {
  it('is scrubbed from its words before they are asked about, journaled or notified', () => {
    registerSecret('pasted-ops-token/7f3+q');
    const parsed = parseCommand('/halt oops pasted-ops-token/7f3+q and pasted-ops-token%2F7f3%2Bq');
    expect(parsed).toEqual({ command: 'halt', args: ['oops', '[redacted]', 'and', '[redacted]'] });
  });
});
