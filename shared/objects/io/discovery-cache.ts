// Discovery answers a process keeps a while: a ttl kind's event is read by name, and asking the
// API server which plural serves its Kind on every event would be a third request per removal.
// An answer is kept for `ttlMs` (a CRD installed or removed is seen within it); a failed one is
// dropped at once, so the next event asks again. Per process (the handle's), never module state.
export class DiscoveryCache {
  private readonly entries = new Map<string, { at: number; answer: Promise<unknown> }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = 60_000,
  ) {}

  has(gv: string): boolean {
    const e = this.entries.get(gv);
    if (e && this.now() - e.at < this.ttlMs) return true;
    this.entries.delete(gv);
    return false;
  }

  get(gv: string): Promise<unknown> | undefined {
    return this.has(gv) ? this.entries.get(gv)!.answer : undefined;
  }

  /** `answer` resolves to the APIResourceList, or to the Error it failed with (ttl-read.ts servedAs). */
  set(gv: string, answer: Promise<unknown>): this {
    const entry = { at: this.now(), answer };
    this.entries.set(gv, entry);
    void answer.then((v) => {
      if (v instanceof Error && this.entries.get(gv) === entry) this.entries.delete(gv);
    });
    return this;
  }
}
