// The simulator's scriptable faults: standing settings (latency, clock skew, read-after-write lag, a 429 storm)
// and a script of one-off faults taken by the requests they match, in order.
import type { EndpointId } from '../../endpoints.js';

export type FaultKind = 'accept-then-500' | 'accept-then-drop' | 'timeout' | 'html-502' | 'truncated-json' | '429' | 'latency';

export interface ScriptedFault {
  /** Which endpoint it hits; any endpoint when absent. */
  endpoint?: EndpointId;
  kind: FaultKind;
  /** How many requests it hits (default 1). */
  times?: number;
  /** For latency and timeout: how long to hold the answer, in ms (the control API's field name). */
  ms?: number;
}

export interface FaultSettings {
  /** Added to every answer. */
  latencyMs: number;
  /** The venue's clock runs this far ahead of ours (negative: behind). */
  clockSkewMs: number;
  /** An accepted order stays invisible to reads for this long. */
  visibilityLagMs: number;
  /** Every request is answered 429 until this time (venue clock). */
  storm429UntilMs: number;
  scripted: ScriptedFault[];
}

export function noFaults(): FaultSettings {
  return { latencyMs: 0, clockSkewMs: 0, visibilityLagMs: 0, storm429UntilMs: 0, scripted: [] };
}

/** Takes the first scripted fault that matches the endpoint (one of its `times`); undefined when none does. */
export function takeFault(faults: FaultSettings, id: EndpointId | undefined): ScriptedFault | undefined {
  const i = faults.scripted.findIndex((f) => !f.endpoint || f.endpoint === id);
  if (i < 0) return undefined;
  const fault = faults.scripted[i]!;
  const left = (fault.times ?? 1) - 1;
  if (left <= 0) faults.scripted.splice(i, 1);
  else faults.scripted[i] = { ...fault, times: left };
  return fault;
}

/** What a gateway in front of the venue answers when the venue is down. */
export const HTML_502_PAGE = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';
