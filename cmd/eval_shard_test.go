package cmd

import (
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/evals"
)

// --shard auto reads the shard from Slurm's or Kubernetes' environment,
// maps an array that starts elsewhere or steps onto 0..n-1, and refuses,
// naming what it looked for, what it cannot map.
func TestResolveShard(t *testing.T) {
	slurm := func(id, count, lo, hi, step string) map[string]string {
		env := map[string]string{envSlurmTaskID: id, envSlurmTaskCount: count, envSlurmTaskMin: lo, envSlurmTaskMax: hi}
		if step != "" {
			env[envSlurmTaskStep] = step
		}
		return env
	}
	for _, tt := range []struct {
		name  string
		spec  string
		count int
		env   map[string]string
		want  evals.Shard
		from  string // a substring of what it says it used
		err   string // a substring of the error
	}{
		{"i/n", "1/3", 0, nil, evals.Shard{Index: 1, Count: 3}, "", ""},
		{"n with the Job's index", "3", 0, map[string]string{envJobIndex: "2"}, evals.Shard{Index: 2, Count: 3}, "", ""},
		{"i/n takes no count", "1/3", 3, nil, evals.Shard{}, "", "--shard-count is for --shard auto"},
		{"slurm 0-3", "auto", 0, slurm("2", "4", "0", "3", "1"), evals.Shard{Index: 2, Count: 4}, "Slurm array task SLURM_ARRAY_TASK_ID=2", ""},
		{"slurm without step", "auto", 0, slurm("0", "2", "0", "1", ""), evals.Shard{Index: 0, Count: 2}, "shard 0/2", ""},
		{"slurm 1-4", "auto", 0, slurm("4", "4", "1", "4", "1"), evals.Shard{Index: 3, Count: 4}, "shard 3/4", ""},
		{"slurm 1-7:2", "auto", 0, slurm("5", "4", "1", "7", "2"), evals.Shard{Index: 2, Count: 4}, "tasks 1-7 step 2", ""},
		{"slurm count agrees", "auto", 4, slurm("5", "4", "1", "7", "2"), evals.Shard{Index: 2, Count: 4}, "shard 2/4", ""},
		{"slurm count disagrees", "auto", 3, slurm("5", "4", "1", "7", "2"), evals.Shard{}, "", "the Slurm array has 4 tasks"},
		{"slurm list 0,3,4", "auto", 0, slurm("3", "3", "0", "4", "1"), evals.Shard{}, "", "not one evenly spaced range"},
		{"slurm id off the step", "auto", 0, slurm("2", "4", "1", "7", "2"), evals.Shard{}, "", "not one evenly spaced range"},
		{"slurm without count", "auto", 0, map[string]string{envSlurmTaskID: "1"}, evals.Shard{}, "", `SLURM_ARRAY_TASK_COUNT="" is not a whole number`},
		{"k8s", "auto", 4, map[string]string{envJobIndex: "3"}, evals.Shard{Index: 3, Count: 4}, "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=3, --shard-count 4)", ""},
		{"k8s without count", "auto", 0, map[string]string{envJobIndex: "3"}, evals.Shard{}, "", "pass --shard-count N, N the Job's spec.completions"},
		{"k8s index past count", "auto", 3, map[string]string{envJobIndex: "3"}, evals.Shard{}, "", "not an index below --shard-count 3"},
		{"both", "auto", 2, map[string]string{envJobIndex: "1", envSlurmTaskID: "1"}, evals.Shard{}, "", "both SLURM_ARRAY_TASK_ID (Slurm) and JOB_COMPLETION_INDEX"},
		{"neither", "auto", 0, nil, evals.Shard{}, "", "looked for SLURM_ARRAY_TASK_ID (a Slurm job array) and JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)"},
		{"negative count", "auto", -1, map[string]string{envJobIndex: "0"}, evals.Shard{}, "", "--shard-count must be at least 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, from, err := resolveShard(tt.spec, tt.count, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || !strings.Contains(from, tt.from) {
				t.Errorf("shard %v from %q; want %v from %q", got, from, tt.want, tt.from)
			}
		})
	}
}
