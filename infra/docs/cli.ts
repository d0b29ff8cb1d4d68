// docs/reference/cli.md: the CLI's help, exactly as `--help` prints it (shared/hosts/cli/help.ts).
import { BRIDGE_HELP, DESCHEDULER_HELP, LIVE_PLAN_HELP, MAIN_HELP, PLAN_HELP, POLICY_CHECK_HELP, RBAC_HELP, RUN_HELP } from '../../shared/hosts/cli/help.js';
import { generatedBanner } from './markdown.js';

/** Each help text with the command that prints it. */
export const CLI_HELP: { command: string; help: string }[] = [
  { command: 'kube-tidy --help', help: MAIN_HELP },
  { command: 'kube-tidy policy check --help', help: POLICY_CHECK_HELP },
  { command: 'kube-tidy plan --help', help: PLAN_HELP },
  { command: 'kube-tidy plan --kubeconfig FILE --help', help: LIVE_PLAN_HELP },
  { command: 'kube-tidy run --help', help: RUN_HELP },
  { command: 'kube-tidy bridge --help', help: BRIDGE_HELP },
  { command: 'kube-tidy rbac --help', help: RBAC_HELP },
  { command: 'kube-tidy descheduler --help', help: DESCHEDULER_HELP },
];

export function cliPage(): string {
  return [
    generatedBanner('the help texts in shared/hosts/cli/help.ts'),
    '',
    '# The CLI',
    '',
    'Every command and option of `kube-tidy`, as its `--help` prints them. After `npm ci` in the repository, `npx kube-tidy` runs it. A walk through the commands with examples: [getting started](../getting-started.md#the-cli).',
    '',
    ...CLI_HELP.flatMap(({ command, help }) => [`## \`${command}\``, '', '```text', help.trimEnd(), '```', '']),
  ].join('\n');
}
