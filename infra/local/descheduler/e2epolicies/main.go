// The descheduler's e2e policies as Go writes them: builds, with the v0.36.0 types, the same
// DeschedulerPolicy values its e2e tests build (test/e2e: removeFailedPodsPolicy in
// e2e_failedpods_test.go, tooManyRestartsPolicy in e2e_toomanyrestarts_test.go,
// podlifetimePolicy in e2e_leaderelection_test.go, with the arguments each test passes) and
// serialises each exactly as deschedulerPolicyConfigMap (e2e_test.go) does: apiVersion and kind
// set, then sigs.k8s.io/yaml.Marshal. That text is what the tests put in the policy ConfigMap a
// descheduler Deployment mounts, so it is what kube-tidy must load unchanged.
//
// The test files are package e2e (_test.go) and cannot be imported; the builders below state
// the same values. Output: one JSON array of {id, policy} on stdout, policy being the YAML text.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/descheduler/pkg/api"
	apiv1alpha2 "sigs.k8s.io/descheduler/pkg/api/v1alpha2"
	"sigs.k8s.io/descheduler/pkg/framework/plugins/defaultevictor"
	"sigs.k8s.io/descheduler/pkg/framework/plugins/podlifetime"
	"sigs.k8s.io/descheduler/pkg/framework/plugins/removefailedpods"
	"sigs.k8s.io/descheduler/pkg/framework/plugins/removepodshavingtoomanyrestarts"
)

// One profile enabling `plugin` at deschedule and DefaultEvictor at filter, both configured:
// the shape all three e2e policy builders share.
func profilePolicy(profile, plugin string, args, evictorArgs runtime.Object) *apiv1alpha2.DeschedulerPolicy {
	return &apiv1alpha2.DeschedulerPolicy{
		Profiles: []apiv1alpha2.DeschedulerProfile{{
			Name: profile,
			PluginConfigs: []apiv1alpha2.PluginConfig{
				{Name: plugin, Args: runtime.RawExtension{Object: args}},
				{Name: defaultevictor.PluginName, Args: runtime.RawExtension{Object: evictorArgs}},
			},
			Plugins: apiv1alpha2.Plugins{
				Filter:     apiv1alpha2.PluginSet{Enabled: []string{defaultevictor.PluginName}},
				Deschedule: apiv1alpha2.PluginSet{Enabled: []string{plugin}},
			},
		}},
	}
}

// TestFailedPods and TestLeaderElection's evictor.
func e2eEvictor() *defaultevictor.DefaultEvictorArgs {
	return &defaultevictor.DefaultEvictorArgs{EvictLocalStoragePods: true, EvictSystemCriticalPods: false, IgnorePvcPods: false, EvictFailedBarePods: false}
}

func failedPods(ns string, a removefailedpods.RemoveFailedPodsArgs) *apiv1alpha2.DeschedulerPolicy {
	a.Namespaces = &api.Namespaces{Include: []string{ns}}
	return profilePolicy(removefailedpods.PluginName+"Profile", removefailedpods.PluginName, &a, e2eEvictor())
}

func tooManyRestarts(ns string, threshold int32, initContainers bool, grace int64) *apiv1alpha2.DeschedulerPolicy {
	p := profilePolicy("TooManyRestartsProfile", removepodshavingtoomanyrestarts.PluginName,
		&removepodshavingtoomanyrestarts.RemovePodsHavingTooManyRestartsArgs{
			PodRestartThreshold: threshold, IncludingInitContainers: initContainers, Namespaces: &api.Namespaces{Include: []string{ns}},
		},
		&defaultevictor.DefaultEvictorArgs{EvictLocalStoragePods: true})
	p.GracePeriodSeconds = &grace
	return p
}

func podLifeTime(a podlifetime.PodLifeTimeArgs, evictor defaultevictor.DefaultEvictorArgs) *apiv1alpha2.DeschedulerPolicy {
	return profilePolicy(podlifetime.PluginName+"Profile", podlifetime.PluginName, &a, &evictor)
}

func seconds(s uint) *uint { return &s }

func priority(v int32) *int32 { return &v }

type entry struct {
	ID     string `json:"id"`
	Policy string `json:"policy"`
}

func cases() []struct {
	id     string
	policy *apiv1alpha2.DeschedulerPolicy
} {
	const failedNs, restartsNs, leaderNs = "e2e-testfailedpods", "e2e-testtoomanyrestarts", "e2e-testleaderelection-a"
	return []struct {
		id     string
		policy *apiv1alpha2.DeschedulerPolicy
	}{
		// TestFailedPods, its four cases.
		{"failed-pods-default-args", failedPods(failedNs, removefailedpods.RemoveFailedPodsArgs{MinPodLifetimeSeconds: seconds(1)})},
		{"failed-pods-reason-unmatched", failedPods(failedNs, removefailedpods.RemoveFailedPodsArgs{Reasons: []string{"ReasonDoesNotMatch"}, MinPodLifetimeSeconds: seconds(1)})},
		{"failed-pods-min-age-unmet", failedPods(failedNs, removefailedpods.RemoveFailedPodsArgs{MinPodLifetimeSeconds: seconds(3600)})},
		{"failed-pods-exclude-job-kind", failedPods(failedNs, removefailedpods.RemoveFailedPodsArgs{ExcludeOwnerKinds: []string{"Job"}, MinPodLifetimeSeconds: seconds(1)})},
		// TestTooManyRestarts, its two cases.
		{"too-many-restarts-10000", tooManyRestarts(restartsNs, 10000, true, 0)},
		{"too-many-restarts-3", tooManyRestarts(restartsNs, 3, true, 0)},
		// TestLeaderElection (startDeschedulerServer).
		{"leader-election-pod-lifetime", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(5), Namespaces: &api.Namespaces{Include: []string{leaderNs}}}, *e2eEvictor())},
		// The arguments the in-process PodLifeTime tests pass (e2e_test.go, e2e_podlifetime_test.go),
		// wrapped in the same policy shape: what a user moving those settings to a ConfigMap writes.
		{"pod-lifetime-namespaces-exclude", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(1), Namespaces: &api.Namespaces{Exclude: []string{"e2e-testnamespaceconstraintsexclude"}}}, defaultevictor.DefaultEvictorArgs{})},
		{"pod-lifetime-label-selector", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(1), LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"test": "podlifetime-evict"}}}, defaultevictor.DefaultEvictorArgs{})},
		{"pod-lifetime-states-failed-exclude-job", podLifeTime(podlifetime.PodLifeTimeArgs{States: []string{"Failed"}, OwnerKinds: &podlifetime.OwnerKinds{Exclude: []string{"Job"}}}, defaultevictor.DefaultEvictorArgs{})},
		{"pod-lifetime-states-succeeded-condition", podLifeTime(podlifetime.PodLifeTimeArgs{States: []string{"Succeeded"}, Conditions: []podlifetime.PodConditionFilter{{Reason: "PodCompleted", Status: "True"}}}, defaultevictor.DefaultEvictorArgs{})},
		{"pod-lifetime-system-critical-threshold", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(1)}, defaultevictor.DefaultEvictorArgs{EvictSystemCriticalPods: true, PriorityThreshold: &api.PriorityThreshold{Value: priority(1000)}})},
		{"pod-lifetime-daemonset", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(1)}, defaultevictor.DefaultEvictorArgs{EvictDaemonSetPods: true})},
		{"pod-lifetime-threshold-priority-class-name", podLifeTime(podlifetime.PodLifeTimeArgs{MaxPodLifeTimeSeconds: seconds(1)}, defaultevictor.DefaultEvictorArgs{PriorityThreshold: &api.PriorityThreshold{Name: "e2e-testthresholdpriority-highpriority"}})},
		// Not from the tests: the other nulls Go writes, for a profile with no pluginConfig
		// (`pluginConfig: null`) and a plugin configured without args (`args: null`).
		{"no-plugin-config", defaultsOnly(nil)},
		{"evictor-args-null", defaultsOnly([]apiv1alpha2.PluginConfig{{Name: defaultevictor.PluginName}})},
	}
}

// RemoveFailedPods with its defaults, DefaultEvictor configured by `configs`.
func defaultsOnly(configs []apiv1alpha2.PluginConfig) *apiv1alpha2.DeschedulerPolicy {
	return &apiv1alpha2.DeschedulerPolicy{Profiles: []apiv1alpha2.DeschedulerProfile{{
		Name:          "DefaultsProfile",
		PluginConfigs: configs,
		Plugins: apiv1alpha2.Plugins{
			Filter:     apiv1alpha2.PluginSet{Enabled: []string{defaultevictor.PluginName}},
			Deschedule: apiv1alpha2.PluginSet{Enabled: []string{removefailedpods.PluginName}},
		},
	}}}
}

func main() {
	var out []entry
	for _, c := range cases() {
		// As deschedulerPolicyConfigMap: the type header on the policy, none on the args.
		c.policy.APIVersion = "descheduler/v1alpha2"
		c.policy.Kind = "DeschedulerPolicy"
		text, err := yaml.Marshal(c.policy)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.id, err)
			os.Exit(1)
		}
		out = append(out, entry{ID: c.id, Policy: string(text)})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
