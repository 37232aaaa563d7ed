// The `shadow` section: live (or dry-run) trading watched by the same strategies against the in-process simulator,
// fed the market data the daemon polls, and the divergence report of the two.
import { z } from 'zod';

export const shadowSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        "Run a shadow beside `live` or `dry-run`: the same strategies, in this process, trading the in-process simulator (sim.fills) fed the market data the daemon polls (the spot pairs' public trades, S9, read on daemon.polls.tradesMs; the futures tickers as polled), never the venue. Each live order is paired with its shadow twin in the divergence report (`GET /api/v1/shadow`, and the files written at shutdown).",
      ),
    latencyMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(0)
      .describe(
        "The shadow's order round trip: its orders reach its simulator half of it after the strategy decided (0: at the instant the live order was decided).",
      ),
    settleMs: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(500)
      .describe(
        "How far behind the newest trades poll the shadow runs: a trade the venue made while that poll's answer was on its way is in the next poll, and the shadow must not have moved past it. Longer than the venue's answer time; the shadow runs this much plus up to a tickers period behind the live daemon.",
      ),
    out: z
      .string()
      .min(1)
      .default('reports/shadow')
      .describe(
        "Folder the divergence report (divergence.json, divergence.html) is written to at shutdown, relative to the config file's folder; by default reports/shadow in the user folder (the working directory).",
      ),
  })
  .prefault({})
  .describe("The live shadow: the strategies against the simulator on the daemon's own market data, and how live differs from it.");
