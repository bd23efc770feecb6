package cmd

import (
	"fmt"
	"strconv"

	"github.com/analyst-cli/analyst/evals"
)

// shardAuto is the --shard value that takes the shard from the scheduler.
const shardAuto = "auto"

// The environment variables --shard auto reads: Slurm's job arrays and
// Kubernetes' Indexed Jobs.
const (
	envSlurmTaskID    = "SLURM_ARRAY_TASK_ID"
	envSlurmTaskCount = "SLURM_ARRAY_TASK_COUNT"
	envSlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmTaskMax   = "SLURM_ARRAY_TASK_MAX"
	envSlurmTaskStep  = "SLURM_ARRAY_TASK_STEP"
	envJobIndex       = "JOB_COMPLETION_INDEX"
)

// resolveShard reads --shard (and --shard-count, which only auto takes)
// into a shard, and for auto also says where it found it, for stderr.
func resolveShard(spec string, count int, getenv func(string) string) (evals.Shard, string, error) {
	if spec != shardAuto {
		if count != 0 {
			return evals.Shard{}, "", fmt.Errorf("--shard-count is for --shard auto (a Kubernetes Indexed Job); with --shard %q give i/n", spec)
		}
		s, err := evals.ParseShard(spec, getenv)
		return s, "", err
	}
	if count < 0 {
		return evals.Shard{}, "", fmt.Errorf("--shard-count must be at least 1, got %d", count)
	}
	slurm, k8s := getenv(envSlurmTaskID) != "", getenv(envJobIndex) != ""
	switch {
	case slurm && k8s:
		return evals.Shard{}, "", fmt.Errorf("--shard auto: both %s (Slurm) and %s (Kubernetes) are set; give --shard i/n", envSlurmTaskID, envJobIndex)
	case slurm:
		return slurmShard(count, getenv)
	case k8s:
		return indexedJobShard(count, getenv)
	}
	return evals.Shard{}, "", fmt.Errorf("--shard auto: no scheduler found: looked for %s (a Slurm job array) and %s (a Kubernetes Indexed Job); give --shard i/n outside them",
		envSlurmTaskID, envJobIndex)
}

// slurmShard maps a Slurm array task onto 0..n-1: an array such as
// --array=1-7:2 (min 1, step 2, 4 tasks) is as good as --array=0-3. One
// whose tasks are not evenly spaced (--array=0,3,4) is refused, since its
// ids do not say which share of the count a task is.
func slurmShard(count int, getenv func(string) string) (evals.Shard, string, error) {
	vals := map[string]int{envSlurmTaskStep: 1}
	for _, name := range []string{envSlurmTaskID, envSlurmTaskCount, envSlurmTaskMin, envSlurmTaskMax, envSlurmTaskStep} {
		v := getenv(name)
		if v == "" && name == envSlurmTaskStep { // Slurm sets it for ranges only
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return evals.Shard{}, "", fmt.Errorf("--shard auto: %s=%q is not a whole number (a Slurm array task sets %s, %s, %s and %s)",
				name, v, envSlurmTaskID, envSlurmTaskCount, envSlurmTaskMin, envSlurmTaskMax)
		}
		vals[name] = n
	}
	id, n, lo, hi, step := vals[envSlurmTaskID], vals[envSlurmTaskCount], vals[envSlurmTaskMin], vals[envSlurmTaskMax], vals[envSlurmTaskStep]
	if step < 1 || n < 1 || (hi-lo)%step != 0 || (hi-lo)/step+1 != n || id < lo || id > hi || (id-lo)%step != 0 {
		return evals.Shard{}, "", fmt.Errorf("--shard auto: the Slurm array (tasks %d-%d step %d, %d of them, this one %d) is not one evenly spaced range; submit it as --array=0-%d (or LO-HI:STEP), or give --shard i/n",
			lo, hi, step, n, id, n-1)
	}
	if count != 0 && count != n {
		return evals.Shard{}, "", fmt.Errorf("--shard auto: --shard-count %d, but the Slurm array has %d tasks (%s); drop --shard-count", count, n, envSlurmTaskCount)
	}
	s := evals.Shard{Index: (id - lo) / step, Count: n}
	return s, fmt.Sprintf("shard %d/%d from the Slurm array task %s=%d (tasks %d-%d step %d)", s.Index, s.Count, envSlurmTaskID, id, lo, hi, step), nil
}

// indexedJobShard reads a Kubernetes Indexed Job's index; the count is the
// Job's completions, which no variable in the pod carries, so it comes in
// as --shard-count.
func indexedJobShard(count int, getenv func(string) string) (evals.Shard, string, error) {
	v := getenv(envJobIndex)
	if count == 0 {
		return evals.Shard{}, "", fmt.Errorf("--shard auto: %s=%s (a Kubernetes Indexed Job), but no count: pass --shard-count N, N the Job's spec.completions", envJobIndex, v)
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= count {
		return evals.Shard{}, "", fmt.Errorf("--shard auto: %s=%q is not an index below --shard-count %d; make --shard-count the Job's spec.completions", envJobIndex, v, count)
	}
	s := evals.Shard{Index: i, Count: count}
	return s, fmt.Sprintf("shard %d/%d from the Kubernetes Indexed Job (%s=%d, --shard-count %d)", i, count, envJobIndex, i, count), nil
}
