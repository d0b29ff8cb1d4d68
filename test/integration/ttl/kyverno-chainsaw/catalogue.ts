// Kyverno's own TTL conformance tests (test/conformance/chainsaw/ttl in github.com/kyverno/kyverno
// v1.19.1), as they run here against kube-tidy: per case, what it checks, whether kube-tidy takes
// part, and what it must come to. A case that cannot pass by design names the step that fails
// and why (docs/ttl.md, "Kyverno's conformance tests"); once it passes, it leaves that list.
//
// How they run (kyverno-chainsaw.test.ts): no Kyverno; kube-tidy as the chart's standalone
// Deployment runs it, with a policy of one ttl rule in mode delete over Pod and ConfigMap that
// honours Kyverno's label. kube-tidy acts at the expiry as Kyverno's controller does (which queues
// each labelled object for its expiry: pkg/controllers/ttl of v1.19.1): objectUpdated, from the
// standalone watch, times each pod; the sweep runs hourly, out of the tests' way. The tests give
// a 10 s label a 15 s sleep or their 90 s error timeout.

export interface Case {
  /** The test's folder under ttl/. */
  folder: string;
  /** What the test checks, in a line. */
  checks: string;
  /** Whether kube-tidy's ttl rule is what the test judges (false: the test deletes what it checks itself). */
  judgesKubeTidy: boolean;
  /** With the rule in mode delete: passes, or fails at this step for this reason (an expected difference). */
  expected: { passes: true } | { passes: false; failsAt: string; because: string };
  /** With the rule in mode report (nothing removed): the step that must fail then, when the case judges kube-tidy's deletes. */
  failsInReportModeAt?: string;
  /** chainsaw flags this case needs beyond the suite's (it then runs in a chainsaw process of its own), with why beside them. */
  flags?: string[];
}

export const CASES: Case[] = [
  {
    folder: 'valid-label',
    checks: 'a pod labelled cleanup.kyverno.io/ttl: 10s is there, and gone 15 s later',
    judgesKubeTidy: true,
    expected: { passes: true },
    failsInReportModeAt: 'step-03',
  },
  {
    folder: 'invalid-label',
    checks: 'a pod labelled 10ay (not a duration) is kept',
    judgesKubeTidy: true,
    expected: { passes: true },
  },
  {
    folder: 'past-timestamp',
    checks: 'a pod whose label is a time already past goes at once; so does one labelled so after it was created',
    judgesKubeTidy: true,
    expected: { passes: true },
    failsInReportModeAt: 'step-02',
  },
  {
    folder: 'delete-twice',
    checks: 'a pod labelled 10s goes, is created again under the same name, and goes again',
    judgesKubeTidy: true,
    expected: { passes: true },
    failsInReportModeAt: 'step-02',
  },
  {
    folder: 'permission-lack',
    checks: 'a ConfigMap labelled 10s stays when the cleanup controller has no RBAC for ConfigMaps',
    judgesKubeTidy: true,
    // The rule names ConfigMap; the chart's ttl.kinds grant Pod only, as Kyverno's install grants
    // its cleanup controller no ConfigMaps: kube-tidy says it may not list them and goes on.
    expected: { passes: true },
  },
  {
    folder: 'propagation-policy/background',
    checks: 'a Job annotated propagation-policy: Background, deleted by the test, takes its running pod',
    judgesKubeTidy: false,
    expected: { passes: true },
  },
  {
    folder: 'propagation-policy/foreground',
    checks: 'a Job annotated propagation-policy: Foreground, deleted by the test, takes its running pod',
    judgesKubeTidy: false,
    expected: { passes: true },
  },
  {
    folder: 'propagation-policy/orphan',
    checks: 'a Job annotated propagation-policy: Orphan, deleted by the test, leaves its pod running',
    judgesKubeTidy: false,
    // chainsaw's delete, not Kyverno's controller, deletes the Job, with chainsaw's default
    // propagation (Background) whatever the annotation says: the garbage collector then takes the
    // pod, and the last step passes only if it still finds the pod Running. In Kyverno's CI a real
    // kubelet keeps it so through its 30 s grace period; kwok, playing the kubelet here, removes a
    // deleted pod as soon as it sees it, so the step would pass or fail by which comes first. Run
    // alone with the propagation its annotation names, the test checks what its name says.
    flags: ['--deletion-propagation-policy', 'Orphan'],
    expected: { passes: true },
  },
];
