// Kubernetes resource quantities ("500m", "2", "1Gi", "1e3") as plain numbers in base units
// (cores for cpu, bytes for memory). Precision beyond a double is not needed for fit checks.

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

/** NaN when the text is not a quantity. */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined) return 0;
  if (typeof q === 'number') return q;
  const m = QUANTITY.exec(q.trim());
  if (!m) return Number.NaN;
  return Number(m[1]) * SUFFIX[m[2] ?? '']!;
}
