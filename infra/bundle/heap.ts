// How big V8's heap may grow where kube-tidy runs. Without a flag V8 sizes its old space from
// the memory it sees (4 GiB of old space on a 24 GiB host), not from the container's limit, so under a 256Mi limit a sweep over a large cluster would let garbage pile
// up until the kernel OOM-kills the instance instead of collecting it. --max-old-space-size puts
// the old space under the limit and leaves the rest for what V8 does not count there: the
// code (bundle, compiled functions, the code cache), Buffers and sockets outside the heap,
// the young generation (16-32 MiB of semi-spaces) and Node itself (about 40 MiB of RSS).
//
// 60% of the limit: `npm run bench planner-memory -- 150000` peaks at 221 MiB of RSS with a
// 160 MiB old space (252 MiB without the flag), so 153 MiB (256Mi) keeps the planner of a
// 150,000-pod cluster under its limit; the figures are in the issue 27 note.
//
// One figure for every function the image serves: V8 takes a code cache only under the flags it
// was written with, the heap size included (infra/bundle/warm.ts passes NODE_OPTIONS on), so
// the image warms its caches under IMAGE_NODE_OPTIONS and the manifests that run its server
// set the same flag; a limit above the image's (Cloud Run's 512Mi) keeps that old space and has
// the difference as headroom. The chart's standalone process (standalone.cjs) has no code cache:
// its old space follows its own limit (values.standalone.heapPercent).

/** Old space as a percentage of the container's memory limit. */
export const HEAP_PERCENT = 60;

/** The limit the image's default is sized for: the smallest a function's manifest sets (Knative's). */
export const FUNCTION_MEMORY_LIMIT = '256Mi';

const UNITS: Record<string, number> = { Mi: 1, Gi: 1024 };

/** A Kubernetes memory quantity in Mi or Gi (what the manifests write), in MiB. */
export function mebibytes(quantity: string): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!m) throw new Error(`memory limit ${JSON.stringify(quantity)}: expected <n>Mi or <n>Gi`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** V8's old space for a container limited to `limit`, in MiB (rounded down). */
export const maxOldSpaceMiB = (limit: string): number => Math.floor((mebibytes(limit) * HEAP_PERCENT) / 100);

/** NODE_OPTIONS for a container limited to `limit`. */
export const nodeOptionsFor = (limit: string): string => `--max-old-space-size=${maxOldSpaceMiB(limit)}`;

/** The image's ENV default (infra/docker/Dockerfile says the same; a test compares them), under which its code caches are warmed. */
export const IMAGE_NODE_OPTIONS = nodeOptionsFor(FUNCTION_MEMORY_LIMIT);

/** The old space a NODE_OPTIONS string asks for, in MiB, or undefined without one. */
export function oldSpaceOf(nodeOptions: string): number | undefined {
  const m = /(?:^|\s)--max[-_]old[-_]space[-_]size=(\d+)(?:\s|$)/.exec(nodeOptions);
  return m ? Number(m[1]) : undefined;
}
