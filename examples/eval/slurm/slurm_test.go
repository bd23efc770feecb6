// Package slurm_test runs examples/eval/slurm on a Slurm cluster of one
// node that the test starts (munged, slurmctld, slurmd, as root) against a
// scripted model server, and checks that the merged run equals an
// unsharded one.
package slurm_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals/evaltest"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// requireEnv is set by make test (scripts/test.sh), where slurm-wlm and
// munge are installed: there a missing one fails the test.
const requireEnv = "ANALYST_TEST_SLURM"

var daemons = []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "scancel"}

func TestSlurmArrayMergesToTheUnshardedRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test starts munged, slurmctld and slurmd as root")
	}
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin")
	for _, d := range daemons {
		if _, err := exec.LookPath(d); err != nil {
			if os.Getenv(requireEnv) != "" {
				t.Fatalf("%s is missing: make test installs slurm-wlm and munge (scripts/install-deps.sh)", d)
			}
			t.Skipf("needs Slurm and munge (apt-get install slurm-wlm munge): %s is not installed", d)
		}
	}
	kerneltest.Options(t) // podman and the kernel image
	analyst := kerneltest.AnalystBinary(t)
	dir := t.TempDir()
	suite := writeSuite(t, dir)
	model := evaltest.New(map[string]map[string]string{
		`\Question{What is the mean of a?}`:   {"mean_a": "2.0"},
		`\Question{What is the largest b?}`:   {"max_b": "6"},
		`\Question{How many rows are there?}`: {"rows": "5"},
	})
	t.Cleanup(model.Close)
	t.Setenv("OLLAMA_HOST", model.URL)
	t.Setenv("ANALYST", analyst)
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANALYST_CACHE_DIR", cacheDir)

	full := filepath.Join(dir, "full")
	run(t, analyst, "eval", suite, "--model", "ollama:scripted:1b", "--out", full)

	startCluster(t, filepath.Join(dir, "slurm"))
	out := filepath.Join(dir, "out")
	ids := strings.Fields(run(t, "./submit.sh", suite, "ollama:scripted:1b", "2", out, "0.5"))
	if len(ids) != 2 {
		t.Fatalf("submit.sh printed %q, want the array's and the merge job's ids", ids)
	}
	if state := waitJob(t, ids[1], out); state != "COMPLETED" {
		t.Fatalf("the merge job ended %s\n%s", state, logs(filepath.Join(out, "slurm-*.out")))
	}
	for _, i := range []string{"0", "1"} {
		log, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("slurm-%s_%s.out", ids[0], i)))
		if !regexp.MustCompile(`shard ` + i + `/2 from the Slurm array task`).Match(log) {
			t.Errorf("task %s's log does not say it took shard %s/2 from Slurm:\n%s", i, i, log)
		}
	}
	merged := filepath.Join(out, "merged")
	for _, name := range []string{"results.jsonl", "summary.json", "responses/ollama_scripted_1b.jsonl"} {
		if a, b := noTimings(t, filepath.Join(full, name)), noTimings(t, filepath.Join(merged, name)); a != b {
			t.Errorf("%s differs between the unsharded run and the merged shards:\n%s\n---\n%s", name, a, b)
		}
	}

	// --min-score above the score (66.67%): the merge job fails with exit 6.
	id := strings.TrimSpace(run(t, "sbatch", "--parsable", "--output="+filepath.Join(out, "slurm-merge-%j.out"), "merge.sbatch", out, "2", "0.9"))
	if state := waitJob(t, id, out); state != "FAILED" {
		t.Fatalf("the merge job with --min-score 0.9 ended %s, want FAILED", state)
	}
	if got := jobField(t, id, "ExitCode"); got != "6:0" {
		t.Errorf("the merge job with --min-score 0.9 exited %s, want 6:0 (below --min-score)", got)
	}
}

// timings blanks what differs from run to run: a result's timing (its
// wait_ms only when the case waited for a parent) and the summary's sums.
var timings = regexp.MustCompile(`"timing": ?\{[^}]*\}|"\w+_ms": ?[0-9.e+-]+`)

func noTimings(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return timings.ReplaceAllString(string(data), "T")
}

// writeSuite writes a DABench-layout suite of three questions on one small
// table: the scripted model gets two right.
func writeSuite(t *testing.T, dir string) string {
	t.Helper()
	suite := filepath.Join(dir, "dab")
	files := map[string]string{
		"da-dev-questions.jsonl": `{"id": 1, "question": "What is the mean of a?", "concepts": ["Summary Statistics"], "constraints": "", "format": "@mean_a[value]", "file_name": "t.csv", "level": "easy"}
{"id": 2, "question": "What is the largest b?", "concepts": ["Summary Statistics"], "constraints": "", "format": "@max_b[value]", "file_name": "t.csv", "level": "easy"}
{"id": 3, "question": "How many rows are there?", "concepts": ["Data Preprocessing"], "constraints": "", "format": "@rows[count]", "file_name": "t.csv", "level": "easy"}
`,
		"da-dev-labels.jsonl": `{"id": 1, "common_answers": [["mean_a", "2.00"]]}
{"id": 2, "common_answers": [["max_b", "6"]]}
{"id": 3, "common_answers": [["rows", "3"]]}
`,
		"tables/t.csv": "a,b\n1,4\n2,5\n3,6\n",
	}
	for name, body := range files {
		p := filepath.Join(suite, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return suite
}

// run runs a command in the test's folder (this example's) and returns its
// stdout; it fails the test with the command's output if it fails.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// freePorts returns n TCP ports free on 127.0.0.1 a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// waitJob waits for a job to end and returns its state.
func waitJob(t *testing.T, id, out string) string {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for time.Now().Before(deadline) {
		switch state := jobField(t, id, "JobState"); state {
		case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED":
			time.Sleep(time.Second)
		default:
			return state
		}
	}
	t.Fatalf("job %s did not end in 4 minutes\n%s", id, logs(filepath.Join(out, "slurm-*.out")))
	return ""
}

var fieldRe = regexp.MustCompile(`(?:^|\s)(\w+)=(\S*)`)

// jobField is a field of `scontrol show job -o ID` (of its first line: an
// array's first task).
func jobField(t *testing.T, id, field string) string {
	t.Helper()
	line, _, _ := strings.Cut(run(t, "scontrol", "show", "job", "-o", id), "\n")
	for _, m := range fieldRe.FindAllStringSubmatch(line, -1) {
		if m[1] == field {
			return m[2]
		}
	}
	t.Fatalf("scontrol show job %s has no %s: %s", id, field, line)
	return ""
}

// logs is every log the glob matches (the daemons', the jobs'), for a
// failure message.
func logs(glob string) string {
	var b strings.Builder
	files, _ := filepath.Glob(glob)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "== %s\n%s\n", f, data)
	}
	return b.String()
}
