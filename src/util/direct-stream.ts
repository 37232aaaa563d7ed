// A hot stream with the few subscribers a run wires once: next() calls each subscriber's handler in the order they
// subscribed, with nothing in between. A backtest hands millions of poll answers through its streams, and an RxJS
// Subject spends several calls per subscriber on each. Everything else is RxJS's: it is an Observable (pipe,
// operators and Subscriptions work as with a Subject), and a handler that throws is reported the way RxJS reports it
// (thrown from a timer: not to the caller of next(), and not swallowed).
import { Observable, Subscription, type Observer, type Subscriber } from 'rxjs';
// RxJS's own reporter (its timer provider, its config.onUnhandledError): reported exactly as a Subject's handler's error.
import { reportUnhandledError } from 'rxjs/internal/util/reportUnhandledError';

type Handler<T> = (value: T) => void;

export class DirectStream<T> extends Observable<T> {
  private handlers: Array<Handler<T>> = [];

  constructor() {
    super((subscriber: Subscriber<T>) => this.add((v) => subscriber.next(v)));
  }

  /** Subscribes a plain handler (the common case: no Subscriber in between); other forms go through RxJS. */
  override subscribe(observerOrNext?: Partial<Observer<T>> | Handler<T> | null, ...rest: unknown[]): Subscription {
    if (typeof observerOrNext === 'function' && rest.length === 0) return this.add(observerOrNext);
    return (super.subscribe as (...args: unknown[]) => Subscription)(observerOrNext, ...rest);
  }

  next(value: T): void {
    const hs = this.handlers;
    for (let i = 0; i < hs.length; i++) {
      try {
        hs[i]!(value);
      } catch (err) {
        reportUnhandledError(err);
      }
    }
  }

  private add(handler: Handler<T>): Subscription {
    // A new array: a next() in progress goes on over the handlers it started with (as a Subject's does).
    this.handlers = [...this.handlers, handler];
    return new Subscription(() => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    });
  }
}
