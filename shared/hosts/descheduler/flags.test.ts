import { describe, expect, it } from 'vitest';
import { DeschedulerFlagError, parseDeschedulerFlags } from './flags.js';

const problems = (argv: string[]): string[] => {
  try {
    parseDeschedulerFlags(argv);
  } catch (e) {
    if (e instanceof DeschedulerFlagError) return e.problems;
    throw e;
  }
  return [];
};

describe('the descheduler command line', () => {
  it("takes the e2e tests' Deployment args and the defaults of v0.36.0", () => {
    // test/e2e/e2e_test.go deschedulerDeployment + e2e_leaderelection_test.go
    const f = parseDeschedulerFlags([
      '--policy-config-file',
      '/policy-dir/policy.yaml',
      '--descheduling-interval',
      '100m',
      '--v',
      '4',
      '--leader-elect',
      '--leader-elect-retry-period',
      '1s',
    ]);
    expect(f).toMatchObject({
      policyConfigFile: '/policy-dir/policy.yaml',
      deschedulingIntervalMs: 6_000_000,
      verbosity: 4,
      dryRun: false,
      kubeconfig: '',
      leaderElection: {
        leaderElect: true,
        leaseDurationMs: 137_000,
        renewDeadlineMs: 107_000,
        retryPeriodMs: 1000,
        resourceName: 'descheduler',
        resourceNamespace: 'kube-system',
      },
      serving: { bindAddress: '0.0.0.0', securePort: 10258, certDir: '' },
      disableMetrics: false,
      loggingFormat: 'text',
    });
  });

  it("takes the Helm chart's --key=value form, booleans with and without a value, -v forms", () => {
    const f = parseDeschedulerFlags([
      '--policy-config-file=/p.yaml',
      '--descheduling-interval=5m',
      '--dry-run=true',
      '--disable-metrics',
      '-v=3',
      '--client-connection-qps=20.5',
    ]);
    expect(f).toMatchObject({ deschedulingIntervalMs: 300_000, dryRun: true, disableMetrics: true, verbosity: 3, qps: 20.5 });
    expect(parseDeschedulerFlags(['--policy-config-file=/p', '-v4']).verbosity).toBe(4);
    expect(parseDeschedulerFlags(['--policy-config-file=/p', '-v', '2']).verbosity).toBe(2);
    expect(parseDeschedulerFlags(['--policy-config-file=/p', '--dry-run=false']).dryRun).toBe(false);
    // A later flag wins, and the newer kubeconfig flag over the deprecated one.
    expect(parseDeschedulerFlags(['--policy-config-file=/a', '--policy-config-file=/b']).policyConfigFile).toBe('/b');
    expect(parseDeschedulerFlags(['--policy-config-file=/a', '--client-connection-kubeconfig=/n', '--kubeconfig=/o']).kubeconfig).toBe('/n');
  });

  it("takes kube-tidy's own --allow-unsupported, off by default", () => {
    expect(parseDeschedulerFlags(['--policy-config-file=/p']).allowUnsupported).toBe(false);
    expect(parseDeschedulerFlags(['--policy-config-file=/p', '--allow-unsupported']).allowUnsupported).toBe(true);
  });

  it('accepts the flags kube-tidy does not act on and names them', () => {
    const f = parseDeschedulerFlags(['--policy-config-file=/p', '--enable-http2', '--feature-gates', 'EvictionsInBackground=true', '--otel-sample-rate=0.5']);
    expect(f.ignored).toEqual(['--enable-http2', '--feature-gates', '--otel-sample-rate']);
  });

  it('refuses what the descheduler refuses, naming the flag', () => {
    expect(problems(['--policy-config-file=/p', '--nope'])).toEqual(['unknown flag: --nope']);
    expect(problems(['--policy-config-file'])).toContain('flag needs an argument: --policy-config-file');
    expect(problems(['--policy-config-file=/p', '--descheduling-interval=soon'])[0]).toMatch(/"--descheduling-interval"/);
    expect(problems(['--policy-config-file=/p', '--dry-run=maybe'])[0]).toMatch(/"--dry-run" flag: not a boolean/);
    expect(problems(['--policy-config-file=/p', '--secure-port=70000'])[0]).toMatch(/--secure-port/);
    expect(problems(['--policy-config-file=/p', '--leader-elect'])[0]).toMatch(/leaderElection must be used with deschedulingInterval/);
    expect(problems(['--policy-config-file=/p', '--descheduling-interval=1m', '--leader-elect', '--leader-elect-renew-deadline=200s'])[0]).toMatch(
      /lease-duration must be greater/,
    );
    expect(problems(['--policy-config-file=/p', '--descheduling-interval=1m', '--leader-elect', '--leader-elect-resource-lock=configmaps'])[0]).toMatch(
      /only leases/,
    );
    expect(problems([])[0]).toMatch(/--policy-config-file/);
  });

  it.each([
    { flag: '--leader-elect-resource-name', value: '../x' },
    { flag: '--leader-elect-resource-name', value: 'a/b' },
    { flag: '--leader-elect-resource-name', value: 'Descheduler' },
    { flag: '--leader-elect-resource-namespace', value: '..' },
    { flag: '--leader-elect-resource-namespace', value: 'kube.system' },
  ])('refuses $flag $value, as the API server would the Lease, naming the flag (no request ever made)', ({ flag, value }) => {
    const found = problems(['--policy-config-file=/p', '--descheduling-interval=1m', '--leader-elect', `${flag}=${value}`]);
    expect(found).toEqual([expect.stringContaining(`${flag} "${value}": not a`)]);
  });

  it('takes a Lease name with dots (a DNS-1123 subdomain) and leaves the Lease flags alone without --leader-elect', () => {
    expect(problems(['--policy-config-file=/p', '--descheduling-interval=1m', '--leader-elect', '--leader-elect-resource-name=a.b-c'])).toEqual([]);
    expect(problems(['--policy-config-file=/p', '--leader-elect-resource-name=../x'])).toEqual([]);
  });

  it('takes any Go duration, past what a Node timer holds (720h: the command waits it out in steps)', () => {
    expect(parseDeschedulerFlags(['--policy-config-file=/p', '--descheduling-interval=720h']).deschedulingIntervalMs).toBe(720 * 3_600_000);
  });

  it('refuses a stray argument pflag would ignore: "--dry-run false" must not run for real', () => {
    expect(problems(['--policy-config-file=/p', '--dry-run', 'false'])).toEqual([expect.stringMatching(/unexpected argument "false"/)]);
  });

  it('answers --help without checking the rest', () => {
    expect(parseDeschedulerFlags(['--help']).help).toBe(true);
  });
});
