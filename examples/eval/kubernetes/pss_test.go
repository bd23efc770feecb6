// Package kubernetes_test checks the Kubernetes example offline: the Jobs
// pass the Pod Security Standards' baseline level, as the Kubernetes
// project's own admission code (k8s.io/pod-security-admission) evaluates
// it, and the shard count agrees everywhere. It is a module of its own so
// the product's go.mod stays lean.
package kubernetes_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"
)

// readJob reads the one Job in a manifest, refusing fields Kubernetes does
// not know (a misspelt hostUsers would otherwise pass unseen).
func readJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("\n---")) {
		t.Fatalf("%s: want one Job per file", path)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if job.Kind != "Job" || job.APIVersion != "batch/v1" {
		t.Fatalf("%s: %s %s, want a batch/v1 Job", path, job.APIVersion, job.Kind)
	}
	return &job
}

// baseline evaluates a Job's pod template at the baseline level of a
// Kubernetes version.
func baseline(t *testing.T, job *batchv1.Job, version api.Version) policy.AggregateCheckResult {
	t.Helper()
	ev, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := api.LevelVersion{Level: api.LevelBaseline, Version: version}
	return policy.AggregateCheckResults(ev.EvaluatePod(lv, &job.Spec.Template.ObjectMeta, &job.Spec.Template.Spec))
}

func TestJobsPassBaseline(t *testing.T) {
	for _, path := range []string{"indexed-job.yaml", "merge-job.yaml"} {
		job := readJob(t, path)
		for _, v := range []api.Version{api.MajorMinorVersion(1, 35), api.LatestVersion()} {
			if r := baseline(t, job, v); !r.Allowed {
				t.Errorf("%s: the baseline level of Kubernetes %s refuses it: %s", path, v, strings.Join(r.ForbiddenReasons, "; "))
			}
		}
	}
}

// The runner pod asks for no privilege and gets its user namespace: the
// baseline level admits its unmasked /proc only because of hostUsers:
// false, and only from Kubernetes 1.35 on (the docs say so).
func TestRunnerPodIsUnprivileged(t *testing.T) {
	job := readJob(t, "indexed-job.yaml")
	spec := job.Spec.Template.Spec
	if spec.HostUsers == nil || *spec.HostUsers {
		t.Errorf("hostUsers is %v, want false (a user namespace)", spec.HostUsers)
	}
	// The image's rootless podman user, with its subordinate ids.
	if sc := spec.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 1000 {
		t.Errorf("the pod does not run as uid 1000, the Containerfile's analyst user: %+v", spec.SecurityContext)
	}
	for _, c := range spec.Containers {
		if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			t.Errorf("container %s is privileged", c.Name)
		}
		if _, ok := c.Resources.Limits["squat.ai/fuse"]; !ok {
			t.Errorf("container %s does not ask the device plugin for /dev/fuse", c.Name)
		}
	}
	r := baseline(t, job, api.MajorMinorVersion(1, 34))
	if r.Allowed || !slices.ContainsFunc(r.ForbiddenReasons, func(s string) bool { return strings.Contains(s, "procMount") }) {
		t.Errorf("the baseline level of 1.34 gives %+v; want procMount refused (README.md says 1.35+)", r)
	}
	// With the pod in the host's user namespace, today's baseline refuses
	// it too: hostUsers: false is what makes it admissible.
	spec.HostUsers = nil
	job.Spec.Template.Spec = spec
	if r := baseline(t, job, api.LatestVersion()); r.Allowed {
		t.Error("the baseline level admits the runner pod without hostUsers: false")
	}
}

// --shard-count, the completions and the merge job's shard folders must
// agree: a shard left out of the merge would be a smaller run.
func TestShardCountAgrees(t *testing.T) {
	job := readJob(t, "indexed-job.yaml")
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		t.Fatal("the eval Job is not an Indexed Job with completions")
	}
	n := int(*job.Spec.Completions)
	args := job.Spec.Template.Spec.Containers[0].Args
	for _, want := range []string{"--shard=auto", fmt.Sprintf("--shard-count=%d", n), "--out=/results/shard-$(JOB_COMPLETION_INDEX)"} {
		if !slices.Contains(args, want) {
			t.Errorf("the eval Job's args %q lack %s (completions: %d)", args, want, n)
		}
	}
	var shards []string
	for _, a := range readJob(t, "merge-job.yaml").Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "/results/shard-") {
			shards = append(shards, a)
		}
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("/results/shard-%d", i))
	}
	if !slices.Equal(shards, want) {
		t.Errorf("the merge Job merges %q, want %q", shards, want)
	}
}
