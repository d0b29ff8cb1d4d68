// Client-side politeness, as client-go's: a token bucket (QPS with a burst) that every
// request of one set of clients waits on, and a pause for everyone when the API server says
// "too many requests" (API Priority and Fairness rejecting a request, or the max-inflight
// filter), for as long as its Retry-After asks. The bucket keeps a concurrent sweep from
// turning into a storm; the pause keeps a storm that happens anyway (other clients, a small
// priority level) from being made worse by retries. Each throttling episode also halves the
// rate (and the burst), which then grows back by qps/100 per answered request: the sending
// rate settles where the server's priority level stops rejecting, like TCP's AIMD.
import { sleepLong } from '../config/long-timeout.js';

export interface ThrottleOptions {
  /** Requests per second in the long run. */
  qps: number;
  /** How many may go at once after a quiet spell. */
  burst: number;
  /** For tests: the clock and the sleeper. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

// --client-connection-qps may be tiny: a wait past 2^31-1 ms is waited in steps.
const realSleep = (ms: number) => sleepLong(ms);

export class Throttle {
  private tokens: number;
  private last: number;
  /** The rate in force: options.qps, or less after throttling. */
  private rate: number;
  private pausedUntil = 0;
  /** Time spent waiting for a token or a pause, in ms: for the pass summary and the benches. */
  waitedMs = 0;
  /** How many throttling answers (429 from APF or max-inflight) the server gave. */
  throttled = 0;
  /** Requests let through (retries included): every request of these clients. */
  sent = 0;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  // The bucket is reserved in call order: each caller takes its slot at once (tokens may go
  // negative) and sleeps until then, so waiting callers are served first come, first served.

  constructor(private readonly options: ThrottleOptions) {
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? realSleep;
    this.tokens = options.burst;
    this.last = this.now();
    this.rate = options.qps;
  }

  /** Requests per second allowed now. */
  get currentRate(): number {
    return this.rate;
  }

  /** Wait until a request may be sent. */
  async take(): Promise<void> {
    this.sent++;
    for (let wait = this.reserve(); wait > 0; wait = this.reserve()) {
      this.waitedMs += wait;
      await this.sleep(wait);
      // A pause that began while this request slept holds it too: it takes a slot after the pause.
      if (this.now() >= this.pausedUntil) return;
    }
  }

  /** Takes the next slot of the bucket: how long until it, in ms. */
  private reserve(): number {
    const now = this.now();
    this.refill(now);
    this.tokens -= 1;
    // `last` is past `now` during a pause: slots are counted from the pause's end.
    return this.last - now + (this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate);
  }

  /** The tokens the rate in force gave since `last`, up to the burst (scaled with the rate). */
  private refill(now: number): void {
    if (now <= this.last) return;
    const { qps, burst } = this.options;
    this.tokens = Math.min((burst * this.rate) / qps, this.tokens + ((now - this.last) * this.rate) / 1000);
    this.last = now;
  }

  /** The server answered a request (not with throttling): win back some of the rate. */
  answered(): void {
    if (this.rate < this.options.qps) this.rate = Math.min(this.options.qps, this.rate + this.options.qps / 100);
  }

  /**
   * The server asked everyone to hold off: no request of these clients leaves before then, and
   * after it they leave one by one at the (halved) rate, not all at once: the requests it
   * refused, sent again together at the pause's end, were a new storm that APF answered with a
   * longer Retry-After each time (it doubles while rejections go on), until a sweep's deadline
   * passed.
   */
  pause(seconds: number): void {
    this.throttled += 1;
    const now = this.now();
    this.refill(now);
    // One episode, one halving: the answers to requests already in flight say the same thing.
    // The first request leaves at the pause's end, the rest one by one after it.
    if (now >= this.pausedUntil) {
      this.rate = Math.max(1, this.rate / 2);
      this.tokens = 1;
    }
    const until = now + Math.min(Math.max(seconds, 1), MAX_PAUSE_SECONDS) * 1000;
    if (until > this.pausedUntil) this.pausedUntil = until;
    // No tokens accrue during a pause.
    if (until > this.last) this.last = until;
  }
}

/** client-go's rest.Config defaults are 5/10, for controllers watching; a sweep acts in
 *  bursts, 32 writes in flight, and is held by the API server's fairness anyway: 500/1000
 *  lets one instance reach most of what an API server gives (measured: 250 capped it at half
 *  of a plain 32-in-flight loop; docs/scale.md), and a 429 halves it. */
export const DEFAULT_QPS = 500;
export const DEFAULT_BURST = 1000;

/** A Retry-After above this is capped: a function's deadline is under a minute. */
export const MAX_PAUSE_SECONDS = 10;
