// scale-snapshot.ts's ratios and its closing table (issue 35): each kube-tidy experiment's
// deletes/s against the ceilings of its own run, and its CPU per removal against the plain
// client's (the ceilings' mean CPU per DELETE, with and without its LIST), one line per
// experiment to copy from the console.

/** The figures the ratios and the table read (each experiment has some of them). */
interface Figures {
  deletesPerSecond?: number;
  cpuMsPerRemovedPod?: number;
  cpuMsPerDelete?: number;
  cpuMsPerDeleteWithList?: number;
  cpuMsPerDeletedPod?: number | null;
  requestsPer1000Removed?: number | null;
  peakRssMiB?: number;
  controllerManagerPeakRssMiB?: number | null;
}

export const KUBE_TIDY_EXPERIMENTS = ['kubeTidyBaseline', 'kubeTidy', 'kubeTidyDev', 'kubeTidyDevHeapLimit'] as const;

const round2 = (x: number) => Math.round(x * 100) / 100;
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || !b ? null : round2(a / b));
const mean = (xs: (number | undefined)[]) => {
  const known = xs.filter((x): x is number => x !== undefined);
  return known.length ? round2(known.reduce((a, b) => a + b, 0) / known.length) : undefined;
};

/** The plain client's CPU per DELETE in this run: the mean of the ceilings that ran. */
function plainCpu(r: Record<string, unknown>) {
  const ceilings = [r.ceilingBefore, r.ceilingAfter] as (Figures | undefined)[];
  return { perDelete: mean(ceilings.map((c) => c?.cpuMsPerDelete)), withList: mean(ceilings.map((c) => c?.cpuMsPerDeleteWithList)) };
}

export function ratios(r: Record<string, unknown>): Record<string, unknown> {
  const before = (r.ceilingBefore as Figures | undefined)?.deletesPerSecond;
  const after = (r.ceilingAfter as Figures | undefined)?.deletesPerSecond;
  const plain = plainCpu(r);
  const out: Record<string, unknown> = { plainClientCpuMsPerDelete: plain.perDelete ?? null, plainClientCpuMsPerDeleteWithList: plain.withList ?? null };
  for (const name of KUBE_TIDY_EXPERIMENTS) {
    const x = r[name] as Figures | undefined;
    if (!x) continue;
    out[name] = {
      toCeilingBefore: ratio(x.deletesPerSecond, before),
      toCeilingAfter: ratio(x.deletesPerSecond, after),
      cpuToPlainClient: ratio(x.cpuMsPerRemovedPod, plain.perDelete),
      cpuToPlainClientWithList: ratio(x.cpuMsPerRemovedPod, plain.withList),
    };
  }
  const podGc = r.podGc as Figures | undefined;
  if (podGc)
    out.podGc = {
      toCeilingBefore: ratio(podGc.deletesPerSecond, before),
      toCeilingAfter: ratio(podGc.deletesPerSecond, after),
      // The whole controller manager's CPU per pod PodGC deleted.
      cpuToPlainClient: ratio(podGc.cpuMsPerDeletedPod ?? undefined, plain.perDelete),
    };
  return out;
}

const COLUMNS = [
  'experiment',
  'deletes/s',
  'vs ceil before',
  'vs ceil after',
  'cpu ms/removal',
  'plain cpu ms/DELETE',
  'cpu ratio',
  'requests/1000',
  'peak RSS MiB',
];

/** One line per experiment that ran, in the sequence's order, under a header. */
export function summaryTable(size: number, r: Record<string, unknown>, sequence: string[]): string[] {
  const rs = ratios(r);
  const plain = rs.plainClientCpuMsPerDelete as number | null;
  const rows = sequence.map((name) => {
    const x = r[name] as Figures;
    const q = rs[name] as { toCeilingBefore?: number | null; toCeilingAfter?: number | null; cpuToPlainClient?: number | null } | undefined;
    // A ceiling's own CPU per DELETE (its writes alone); PodGC's: the whole controller manager's.
    const cpu = x.cpuMsPerRemovedPod ?? x.cpuMsPerDelete ?? x.cpuMsPerDeletedPod;
    return [
      name,
      x.deletesPerSecond,
      q?.toCeilingBefore,
      q?.toCeilingAfter,
      cpu,
      plain,
      q?.cpuToPlainClient,
      x.requestsPer1000Removed,
      x.peakRssMiB ?? x.controllerManagerPeakRssMiB,
    ];
  });
  const cells = [COLUMNS, ...rows.map((row) => row.map((c) => (c === undefined || c === null ? '-' : String(c))))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return [
    `[scale-snapshot] ${size} pods:`,
    ...cells.map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join(' | ')
        .trimEnd(),
    ),
  ];
}
