// infra/docker/Dockerfile read as the one description of the image, for the daemon-less build
// (`npm run image`, infra/image/build.ts). A forge builds the same file with `docker buildx`;
// here each instruction of its runtime stage becomes a step this builder carries out, and every
// instruction it does not know is refused with its line, so a change to the Dockerfile can
// never be silently left out of the image built here. Pure: text in, a plan or errors out.

export interface Instruction {
  op: string;
  args: string;
  line: number;
}

export interface Stage {
  from: string;
  name?: string;
  line: number;
  instructions: Instruction[];
}

/** The base both stages name: node:<version>-<suite>-slim (Node's official image). */
export interface Base {
  image: string;
  node: string;
  suite: string;
}

export type Step =
  | { kind: 'env'; vars: Record<string, string> }
  | { kind: 'workdir'; path: string }
  | { kind: 'copy'; sources: string[]; dest: string; line: number }
  | { kind: 'run'; command: string; line: number }
  | { kind: 'user'; user: string }
  | { kind: 'expose'; port: string }
  | { kind: 'entrypoint'; argv: string[] }
  | { kind: 'cmd'; argv: string[] };

export interface Plan {
  base: Base;
  /** The build stage's WORKDIR: `COPY --from=<build> <buildRoot>/x` is the repository's x. */
  buildRoot: string;
  buildStage: string;
  steps: Step[];
}

export class DockerfileError extends Error {
  constructor(readonly problems: string[]) {
    super(`infra/docker/Dockerfile: this builder cannot carry out:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Lines joined over trailing backslashes, comments and blank lines dropped, grouped by FROM. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!pending && (!line || line.startsWith('#'))) return;
    if (!pending) start = i + 1;
    pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
    if (line.endsWith('\\')) return;
    const op = pending.split(/\s+/)[0]!.toUpperCase();
    const args = pending.slice(pending.indexOf(' ') + 1).trim();
    pending = '';
    if (op === 'FROM') {
      const [from, as, name] = args.split(/\s+/);
      stages.push({ from: from!, line: start, instructions: [], ...(as?.toUpperCase() === 'AS' ? { name } : {}) });
    } else if (stages.length) stages.at(-1)!.instructions.push({ op, args, line: start });
    else throw new DockerfileError([`line ${start}: ${op} before FROM`]);
  });
  return stages;
}

/** `node:22.23.3-bookworm-slim` (optionally @sha256:...): the Node version and Debian suite. */
export function baseOf(from: string): Base | undefined {
  const m = /^node:(\d+\.\d+\.\d+)-([a-z]+)-slim(?:@sha256:[0-9a-f]{64})?$/.exec(from);
  return m ? { image: from, node: m[1]!, suite: m[2]! } : undefined;
}

/** The build stage's RUN lines this builder stands in for (infra/image/build.ts runs the bundle itself). */
const BUILD_RUNS = [/^npm ci(?:\s+--[a-z-]+)*$/, /^npm run bundle$/];

function checkBuildStage(stage: Stage, problems: string[]): string {
  let root = '';
  for (const i of stage.instructions) {
    if (i.op === 'WORKDIR') root = i.args;
    else if (i.op === 'COPY' && !i.args.startsWith('--')) continue;
    else if (i.op === 'RUN' && BUILD_RUNS.some((r) => r.test(i.args))) continue;
    else problems.push(`line ${i.line}: ${i.op} ${i.args} in the build stage`);
  }
  if (!root.startsWith('/')) problems.push(`line ${stage.line}: the build stage needs an absolute WORKDIR`);
  return root;
}

/** `A=1 B=x=y`: a value may hold `=`; quotes and the old `ENV A 1` form are refused. */
function envOf(i: Instruction, problems: string[]): Record<string, string> {
  const pairs = i.args.split(/\s+/);
  if (pairs.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*=[^"'$]*$/.test(p))) problems.push(`line ${i.line}: ENV ${i.args} (only unquoted NAME=value pairs)`);
  return Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

function execForm(i: Instruction, problems: string[]): string[] {
  try {
    const argv = JSON.parse(i.args) as unknown;
    if (Array.isArray(argv) && argv.every((a) => typeof a === 'string')) return argv as string[];
  } catch {
    // reported below
  }
  problems.push(`line ${i.line}: ${i.op} ${i.args} (only the exec form, a JSON array of strings)`);
  return [];
}

function copyOf(i: Instruction, build: string, buildRoot: string, problems: string[]): Step | undefined {
  const parts = i.args.split(/\s+/);
  if (parts[0] !== `--from=${build}` || parts.length < 3 || parts.slice(1).some((p) => p.startsWith('--'))) {
    problems.push(`line ${i.line}: COPY ${i.args} (the runtime stage copies only --from=${build}, no other flag)`);
    return undefined;
  }
  const sources = parts.slice(1, -1);
  const outside = sources.filter((s) => !s.startsWith(`${buildRoot}/`) || /[*?[]|\/\.\.?(\/|$)/.test(s));
  if (outside.length) problems.push(`line ${i.line}: COPY of ${outside.join(', ')} (files under ${buildRoot}/ by name, no patterns)`);
  return { kind: 'copy', sources, dest: parts.at(-1)!, line: i.line };
}

function stepOf(i: Instruction, build: string, buildRoot: string, problems: string[]): Step | undefined {
  switch (i.op) {
    case 'ENV':
      return { kind: 'env', vars: envOf(i, problems) };
    case 'WORKDIR':
      if (!i.args.startsWith('/')) problems.push(`line ${i.line}: WORKDIR ${i.args} (absolute only)`);
      return { kind: 'workdir', path: i.args };
    case 'COPY':
      return copyOf(i, build, buildRoot, problems);
    case 'RUN':
      if (i.args.startsWith('[') || i.args.startsWith('--')) problems.push(`line ${i.line}: RUN ${i.args} (the shell form only, no flags)`);
      return { kind: 'run', command: i.args, line: i.line };
    case 'USER':
      if (!/^\d+(:\d+)?$/.test(i.args)) problems.push(`line ${i.line}: USER ${i.args} (numeric uid[:gid] only)`);
      return { kind: 'user', user: i.args };
    case 'EXPOSE':
      if (!/^\d+(\/tcp)?$/.test(i.args)) problems.push(`line ${i.line}: EXPOSE ${i.args} (one TCP port)`);
      return { kind: 'expose', port: i.args.replace(/\/tcp$/, '') };
    case 'ENTRYPOINT':
    case 'CMD':
      return { kind: i.op === 'CMD' ? 'cmd' : 'entrypoint', argv: execForm(i, problems) };
    default:
      problems.push(`line ${i.line}: ${i.op} ${i.args}`);
      return undefined;
  }
}

/** The runtime stage (the last) as steps, after checking both stages; throws every problem at once. */
export function planOf(text: string): Plan {
  const stages = parseDockerfile(text);
  const problems: string[] = [];
  if (stages.length !== 2) problems.push(`${stages.length} stages: a build stage and a runtime stage expected`);
  const [build, runtime] = stages as [Stage, Stage];
  const base = baseOf(runtime?.from ?? '');
  for (const s of stages) if (!baseOf(s.from)) problems.push(`line ${s.line}: FROM ${s.from} (node:<x.y.z>-<suite>-slim only)`);
  if (build && runtime && build.from !== runtime.from) problems.push(`line ${runtime.line}: both stages must start from the same image`);
  if (build && !build.name) problems.push(`line ${build.line}: the build stage needs a name (FROM ... AS build)`);
  const buildRoot = build ? checkBuildStage(build, problems) : '';
  const steps = (runtime?.instructions ?? []).map((i) => stepOf(i, build?.name ?? '', buildRoot, problems)).filter((s): s is Step => s !== undefined);
  if (problems.length || !base) throw new DockerfileError(problems);
  return { base, buildRoot, buildStage: build.name!, steps };
}
