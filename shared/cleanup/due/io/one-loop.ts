// One tick loop per process (issue 33). Every tick used to run a loop of its own: N ticks at
// once read the due list N times as often and could act on one entry twice. A tick now joins
// the loop already running when that loop looks at least as far ahead as the tick would; one
// whose window outlasts the running loop waits for it to end and then runs its own (or joins
// the one another waiting tick started), so loops never overlap and no window is dropped.
// The state lives on the instance the process builds once (Due), never in the module.

export type Flight<A> = { joined: false; answer: A } | { joined: true; since: number; until: number };

export class OneLoop<A> {
  private running?: { since: number; until: number; done: Promise<A> };

  /**
   * `slackMs`: how far short of a tick's window the running loop may end and still cover it:
   * a loop's last look at the list is at most one poll before its end anyway.
   */
  constructor(
    private readonly slackMs: number,
    private readonly now: () => number,
  ) {}

  /** Whether a loop is running now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * `loop(until)` as the process's one loop, or joined to the running one when it looks far
   * enough ahead. A joined tick is answered at once: holding it would only hold a request slot
   * (a concurrency slot a pod event needs) for work the running loop does anyway.
   */
  async run(until: number, loop: (until: number) => Promise<A>): Promise<Flight<A>> {
    for (let r = this.running; r; r = this.running) {
      if (r.until >= until - this.slackMs) return { joined: true, since: r.since, until: r.until };
      // Its failure is its own request's answer (a 503 its sender retries); this tick still covers its window.
      await r.done.catch(() => undefined);
    }
    const done: Promise<A> = loop(until).finally(() => {
      // Cleared before anyone awaiting `done` resumes, so the first waiter starts the next loop.
      if (this.running?.done === done) this.running = undefined;
    });
    this.running = { since: this.now(), until, done };
    return { joined: false, answer: await done };
  }
}
