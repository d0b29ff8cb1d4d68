// infra/image/dockerfile.ts: the Dockerfile as steps for the daemon-less build, and every
// instruction it cannot carry out refused with its line (so a Dockerfile change is never
// silently left out of the image `npm run image` builds).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { DockerfileError, planOf } from '../../../infra/image/dockerfile.js';

const real = readFileSync(join(REPO_ROOT, 'infra', 'docker', 'Dockerfile'), 'utf8');
const BUILD = 'FROM node:22.23.3-bookworm-slim AS build\nWORKDIR /src\nCOPY . ./\nRUN npm ci --ignore-scripts\nRUN npm run bundle\n';
const runtime = (lines: string) => `${BUILD}FROM node:22.23.3-bookworm-slim\n${lines}\n`;
const problemsOf = (text: string): string[] => {
  try {
    planOf(text);
    return [];
  } catch (e) {
    if (!(e instanceof DockerfileError)) throw e;
    return e.problems;
  }
};

describe('the Dockerfile as a plan', () => {
  it("reads the repository's Dockerfile: Node and the suite from FROM, the runtime stage's steps in order", () => {
    const plan = planOf(real);
    expect(plan.base).toMatchObject({ node: expect.stringMatching(/^22\.\d+\.\d+$/), suite: 'bookworm' });
    expect(plan.buildRoot).toBe('/src');
    expect(plan.steps.map((s) => s.kind)).toEqual(['env', 'env', 'workdir', 'copy', 'run', 'copy', 'user', 'expose', 'entrypoint', 'cmd']);
    expect(plan.steps.at(-1)).toEqual({ kind: 'cmd', argv: ['node', 'server.cjs'] });
  });

  it('joins continued lines and takes a value holding "="', () => {
    const plan = planOf(runtime('ENV A=1 \\\n  NODE_OPTIONS=--max-old-space-size=153\nCMD ["node"]'));
    expect(plan.steps[0]).toEqual({ kind: 'env', vars: { A: '1', NODE_OPTIONS: '--max-old-space-size=153' } });
  });

  it.each([
    { sentence: 'an instruction it does not know (ADD)', lines: 'ADD x /x', says: 'ADD x /x' },
    { sentence: 'HEALTHCHECK', lines: 'HEALTHCHECK CMD true', says: 'HEALTHCHECK' },
    { sentence: 'a COPY from the build context in the runtime stage', lines: 'COPY x /x', says: 'copies only --from=build' },
    { sentence: 'a COPY with --chown', lines: 'COPY --from=build --chown=1:1 /src/x /x', says: 'no other flag' },
    { sentence: 'a COPY with a pattern', lines: 'COPY --from=build /src/dist/*.cjs ./', says: 'no patterns' },
    { sentence: 'a COPY from outside the build WORKDIR', lines: 'COPY --from=build /etc/passwd ./', says: '/etc/passwd' },
    { sentence: 'a user by name (runAsNonRoot cannot check it)', lines: 'USER node', says: 'numeric' },
    { sentence: 'CMD in the shell form', lines: 'CMD node server.cjs', says: 'exec form' },
    { sentence: 'a quoted ENV', lines: 'ENV A="x y"', says: 'unquoted' },
  ])('refuses $sentence, naming the line', ({ lines, says }) => {
    const problems = problemsOf(runtime(lines));
    expect(problems.join('\n')).toContain(says);
    expect(problems[0]).toMatch(/^line \d+: /);
  });

  it('refuses another base image, a third stage and an unknown RUN in the build stage, all at once', () => {
    const text = `${BUILD.replace('RUN npm run bundle', 'RUN npm run bundle\nRUN apt-get install -y curl')}FROM alpine:3\nCMD ["x"]\nFROM node:22.23.3-bookworm-slim\n`;
    const problems = problemsOf(text);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('3 stages'),
        expect.stringContaining('FROM alpine:3'),
        expect.stringContaining('RUN apt-get install -y curl in the build stage'),
      ]),
    );
  });
});
