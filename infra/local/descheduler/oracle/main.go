// The oracle for kube-tidy's differential test (test/conformance): runs the REAL descheduler
// v0.36.0 over one case per input line and prints, per case, the pods it evicted in order.
//
// A case is {id, policy (YAML text), now (RFC 3339, whole seconds), pods[], nodes[],
// namespaces[]?, priorityClasses[]?, pdbs[]?, pvcs[]?}. The objects go into a fake clientset
// (k8s.io/client-go/kubernetes/fake); the policy goes through descheduler.LoadPolicyConfig
// (decoding, validation, defaulting) and one cycle through descheduler.RunDeschedulerStrategies
// with DeschedulingInterval 0: the descheduler's own informers, Ready-node listing, profile
// runner, plugins, DefaultEvictor and PodEvictor with its limits. Nothing of the descheduler's
// logic is re-implemented here: this file only feeds objects in and reads evictions out.
//
// Evictions are read from the fake clientset's reactor on pods/eviction (the same call the
// descheduler makes against a real API server). The reactor answers like an API server whose
// pod is gone once evicted: the first eviction of a pod succeeds, a later one in the same cycle
// (another plugin or profile that listed it from the not-yet-updated informer) gets NotFound.
//
// Time: the descheduler reads the wall clock (metav1.Now) to compute ages, truncating to whole
// seconds (uint(d.Seconds())). Each run shifts every timestamp of the case by the whole number
// of seconds between `now` and the start of the current wall-clock second, so that during the
// run age_real = age_at_now + f with 0 <= f < 1 s, which truncates to age_at_now exactly. A run
// that ends in a later wall-clock second than it started is thrown away and repeated.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"sigs.k8s.io/descheduler/cmd/descheduler/app/options"
	"sigs.k8s.io/descheduler/pkg/descheduler"
	"sigs.k8s.io/descheduler/pkg/features"
	"sigs.k8s.io/descheduler/pkg/framework/pluginregistry"
)

type input struct {
	ID              string                         `json:"id"`
	Policy          string                         `json:"policy"`
	Now             time.Time                      `json:"now"`
	Pods            []v1.Pod                       `json:"pods"`
	Nodes           []v1.Node                      `json:"nodes"`
	Namespaces      []v1.Namespace                 `json:"namespaces"`
	PriorityClasses []schedulingv1.PriorityClass   `json:"priorityClasses"`
	PDBs            []policyv1.PodDisruptionBudget `json:"pdbs"`
	PVCs            []v1.PersistentVolumeClaim     `json:"pvcs"`
}

type eviction struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// "triggered by <profile>/<strategy>: <reason>", as the descheduler annotates the Eviction.
	By string `json:"by"`
}

type output struct {
	ID          string     `json:"id"`
	Evicted     []eviction `json:"evicted"`
	PolicyError string     `json:"policyError,omitempty"`
	Error       string     `json:"error,omitempty"`
	// Runs thrown away because they crossed a wall-clock second.
	Retries int `json:"retries"`
}

func main() {
	workers := flag.Int("workers", 8, "cases run at once (each waits mostly on informer sync polls)")
	flag.Parse()
	// The descheduler logs every eviction and refusal through klog; the answer is on stdout.
	klog.SetLogger(logr.Discard())
	descheduler.SetupPlugins()

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 256<<20)
	var lines []string
	for in.Scan() {
		if l := strings.TrimSpace(in.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	results := make([]output, len(lines))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runLine(lines[i])
			}
		}()
	}
	for i := range lines {
		next <- i
	}
	close(next)
	wg.Wait()

	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for _, r := range results {
		_ = enc.Encode(r)
	}
	_ = out.Flush()
}

func runLine(line string) output {
	var c input
	if err := json.Unmarshal([]byte(line), &c); err != nil {
		return output{Error: "bad input: " + err.Error()}
	}
	if c.Now.Truncate(time.Second) != c.Now {
		return output{ID: c.ID, Error: "now must be whole seconds"}
	}
	for retries := 0; retries < 20; retries++ {
		second := time.Now().Truncate(time.Second)
		o := runCase(&c, second.Sub(c.Now))
		o.Retries = retries
		if time.Now().Truncate(time.Second).Equal(second) {
			return o
		}
	}
	return output{ID: c.ID, Error: "every run crossed a wall-clock second"}
}

// runCase runs one descheduling cycle over a copy of the case shifted by `shift`.
func runCase(c *input, shift time.Duration) output {
	o := output{ID: c.ID, Evicted: []eviction{}}
	var objects []runtime.Object
	for i := range c.Pods {
		p := c.Pods[i].DeepCopy()
		shiftPod(p, shift)
		objects = append(objects, p)
	}
	for i := range c.Nodes {
		objects = append(objects, c.Nodes[i].DeepCopy())
	}
	for i := range c.Namespaces {
		objects = append(objects, c.Namespaces[i].DeepCopy())
	}
	for i := range c.PriorityClasses {
		objects = append(objects, c.PriorityClasses[i].DeepCopy())
	}
	for i := range c.PDBs {
		objects = append(objects, c.PDBs[i].DeepCopy())
	}
	for i := range c.PVCs {
		objects = append(objects, c.PVCs[i].DeepCopy())
	}
	client := fake.NewSimpleClientset(objects...)

	var mu sync.Mutex
	gone := map[string]bool{}
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		create, ok := a.(clienttesting.CreateAction)
		if !ok || create.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev, ok := create.GetObject().(*policyv1.Eviction)
		if !ok {
			return true, nil, fmt.Errorf("eviction of unexpected type %T", create.GetObject())
		}
		key := ev.Namespace + "/" + ev.Name
		mu.Lock()
		defer mu.Unlock()
		if gone[key] {
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, ev.Name)
		}
		gone[key] = true
		o.Evicted = append(o.Evicted, eviction{Namespace: ev.Namespace, Name: ev.Name, By: ev.Annotations["reason"]})
		return true, nil, nil
	})

	file, err := os.CreateTemp("", "oracle-policy-*.yaml")
	if err != nil {
		o.Error = err.Error()
		return o
	}
	defer os.Remove(file.Name())
	_, _ = file.WriteString(c.Policy)
	_ = file.Close()

	policy, err := descheduler.LoadPolicyConfig(file.Name(), client, pluginregistry.PluginRegistry)
	if err != nil {
		o.PolicyError = err.Error()
		return o
	}
	if policy == nil {
		o.PolicyError = "empty policy"
		return o
	}

	rs, err := options.NewDeschedulerServer()
	if err != nil {
		o.Error = err.Error()
		return o
	}
	rs.Client = client
	rs.EventClient = client
	rs.DisableMetrics = true
	rs.DefaultFeatureGates = features.DefaultMutableFeatureGate
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := descheduler.RunDeschedulerStrategies(ctx, rs, policy, "policy/v1"); err != nil {
		o.Error = err.Error()
	}
	mu.Lock()
	defer mu.Unlock()
	return o
}

// shiftPod moves every timestamp the descheduler could read by `shift`.
func shiftPod(p *v1.Pod, shift time.Duration) {
	t := func(x *metav1.Time) {
		if x != nil && !x.IsZero() {
			x.Time = x.Time.Add(shift)
		}
	}
	t(&p.CreationTimestamp)
	t(p.DeletionTimestamp)
	t(p.Status.StartTime)
	for i := range p.Status.Conditions {
		t(&p.Status.Conditions[i].LastTransitionTime)
		t(&p.Status.Conditions[i].LastProbeTime)
	}
	for _, list := range [][]v1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses, p.Status.EphemeralContainerStatuses} {
		for i := range list {
			for _, s := range []*v1.ContainerState{&list[i].State, &list[i].LastTerminationState} {
				if s.Running != nil {
					t(&s.Running.StartedAt)
				}
				if s.Terminated != nil {
					t(&s.Terminated.StartedAt)
					t(&s.Terminated.FinishedAt)
				}
			}
		}
	}
}
