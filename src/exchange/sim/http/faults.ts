// The simulator's scriptable faults: standing settings (latency, clock skew, read-after-write lag, a 429 storm, keys
// refused) and a script of one-off faults taken by the requests they match, in order.
import type { EndpointId } from '../../endpoints.js';
import type { ResponseOf } from '../../wire/responses.js';

export type FaultKind = 'accept-then-500' | 'accept-then-drop' | 'timeout' | 'html-502' | 'proxy-403' | 'truncated-json' | '429' | 'latency' | 'leave-out';

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
  /** Every signed request is refused with the venue's 40018 (Invalid IP request), as when the key's IP whitelist or permissions change. */
  refuseKeys: boolean;
  scripted: ScriptedFault[];
}

export function noFaults(): FaultSettings {
  return { latencyMs: 0, clockSkewMs: 0, visibilityLagMs: 0, storm429UntilMs: 0, refuseKeys: false, scripted: [] };
}

/** `leave-out`: a batch placement's answer (S6, F6) without its last item, which the venue placed all the same; any other answer as it is. */
export function leaveOut<T>(id: EndpointId, payload: T): T {
  if (id === 'S6') {
    const { resultList } = payload as ResponseOf<'S6'>;
    return Object.assign({}, payload, { resultList: resultList.slice(0, -1) });
  }
  if (id === 'F6') {
    const { order_info } = payload as ResponseOf<'F6'>;
    return Object.assign({}, payload, { order_info: order_info.slice(0, -1) });
  }
  return payload;
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
/** What a proxy or CDN in front of the venue answers when it blocks a request: the venue never sees it. */
export const PROXY_403_PAGE = '<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1></center></body></html>';
