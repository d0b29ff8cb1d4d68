// A log that a flood cannot fill: per key (a fixed reason), the first `perWindow` occurrences
// in a window get a line each; the rest are only counted, and said in one summary line when
// the window ends (by a timer that never keeps the process up) or when the next window opens,
// whichever comes first. Metrics count every occurrence; this only decides what is written.
// Used by the front's refusals (serve/http/refusals.ts) and the writer's (kube/write-refusals.ts).

export interface SampleOptions<K> {
  perWindow: number;
  windowMs: number;
  now?: () => number;
  /** Says how many occurrences of `key` were not logged one by one in the window that ended. */
  summary(key: K, suppressed: number): void;
}

interface Window {
  start: number;
  logged: number;
  suppressed: number;
}

/** Whether this occurrence of `key` gets its own line (false: counted for the summary). */
export type Sampler<K> = (key: K) => boolean;

export function logSampler<K>({ perWindow, windowMs, now = Date.now, summary }: SampleOptions<K>): Sampler<K> {
  const windows = new Map<K, Window>();
  const summarise = (key: K, w: Window) => {
    if (!w.suppressed) return;
    summary(key, w.suppressed);
    w.suppressed = 0;
  };
  return (key) => {
    const t = now();
    let w = windows.get(key);
    if (!w || t - w.start >= windowMs) {
      if (w) summarise(key, w);
      windows.set(key, (w = { start: t, logged: 0, suppressed: 0 }));
    }
    if (w.logged < perWindow) {
      w.logged++;
      return true;
    }
    if (w.suppressed++ === 0) {
      // The summary also comes when the flood stops: at the window's end (never keeping the process up).
      const ended = w;
      setTimeout(() => summarise(key, ended), Math.max(0, ended.start + windowMs - t)).unref();
    }
    return false;
  };
}
