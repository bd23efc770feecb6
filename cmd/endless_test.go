package cmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/cmd"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// Bounds of the endless-reply run. Without a bound on replies, analyst read
// 740 MB (Ollama) to 1.08 GB (OpenAI) of one reply and reached 3 GiB
// resident in 45-80 s; with it, it holds a few MiB of a reply at a time.
const (
	endlessPeakLimit = 256 << 20 // the peak resident memory (VmHWM) allowed
	endlessKillAt    = 1 << 30   // analyst is killed past this, so the test cannot take the machine down
	endlessStopLimit = time.Minute
)

// A model server that streams replies at full speed and never ends them
// (both wire formats), against the real analyst binary: every request
// carries the completion limit; analyst cuts the reply at its bound, asks
// once to restate, then stops with a model error (exit 4) that names the
// limit and its setting, within a minute of the first reply and with its
// peak resident memory (VmHWM, read from /proc while it runs) bounded; it
// writes what it has and leaves no container.
func TestRunEndlessReply(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kernels (make test-unit skips it)")
	}
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := image.Lookup(cacheDir, image.DefaultRecipe()); err != nil {
		t.Fatalf("needs the kernel image (make kernel): %v", err)
	}
	bin := analystBinary(t)
	for _, provider := range []string{"ollama", "openai"} {
		t.Run(provider, func(t *testing.T) {
			m := llmtest.NewModel(t, provider, llmtest.Turn{Endless: true})
			var c *exec.Cmd
			var once sync.Once
			firstReply := make(chan time.Time, 1)
			// At the first reply the run's kernel runs: its container is
			// seen, so that "none left" below is not vacuous.
			running := make(chan string, 1)
			m.Wait = func(*http.Request) {
				once.Do(func() {
					firstReply <- time.Now()
					running <- ownContainers(t, c.Process.Pid)
				})
			}
			dir := t.TempDir()
			data := filepath.Join(dir, "sales.csv")
			if err := os.WriteFile(data, []byte("date,region,revenue\n2024-01-01,East,10\n2024-02-01,West,20\n2024-03-01,East,30\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			c = exec.Command(bin, "run", "--out", out, "--model", m.Spec(), "--explore=false", data, "What is the total revenue?")
			// Its own config folder (no config file of the user's); the
			// user's HOME, where rootless podman keeps its containers.
			c.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "ANALYST_CACHE_DIR="+cacheDir,
				"OLLAMA_HOST="+m.OllamaHost(), "OPENAI_BASE_URL="+m.BaseURL(), "OPENAI_API_KEY="+m.APIKey(), "ANALYST_MAX_REPLY_TOKENS=")
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pid := c.Process.Pid
			run := watchRun(t, c, firstReply)
			t.Logf("analyst: exit %d, peak resident %d MiB, stopped %s after the first reply\nstderr:\n%s",
				run.code, run.peak>>20, run.stopped.Round(time.Millisecond), stderr.String())
			if run.killed != "" {
				t.Fatalf("analyst was killed: %s", run.killed)
			}
			if run.peak > endlessPeakLimit {
				t.Errorf("peak resident memory %d MiB, want at most %d MiB", run.peak>>20, endlessPeakLimit>>20)
			}
			if run.code != cmd.ExitModel {
				t.Errorf("exit %d, want %d (model error)", run.code, cmd.ExitModel)
			}
			for _, want := range []string{"model replies ran on without end", "the completion limit of 4096 tokens",
				"--max-reply-tokens, ANALYST_MAX_REPLY_TOKENS or max-reply-tokens: in the config file"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not say %q", want)
				}
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d chat requests, want 2: the reply and one request to restate", len(reqs))
			}
			for i, req := range reqs {
				limit := req["max_tokens"]
				if provider == "ollama" {
					limit = req["options"].(map[string]any)["num_predict"]
				}
				if limit != 4096.0 {
					t.Errorf("request %d: completion limit %v, want 4096", i, limit)
				}
			}
			if seen := <-running; seen == "" {
				t.Errorf("no container of the run seen while it ran")
			}
			if left := ownContainers(t, pid); left != "" {
				t.Errorf("containers left: %s", left)
			}
			checkEndlessRunJSON(t, filepath.Join(out, "sales.run.json"))
		})
	}
}

// endlessRun is how an analyst process ended.
type endlessRun struct {
	code    int
	peak    int64         // VmHWM, bytes
	stopped time.Duration // from the first model reply to the exit
	killed  string        // why the test killed it, if it did
}

// watchRun waits for c, reading its peak resident memory from /proc as it
// runs, and kills it past endlessKillAt or endlessStopLimit after the
// first reply.
func watchRun(t *testing.T, c *exec.Cmd, firstReply <-chan time.Time) endlessRun {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var run endlessRun
	var first time.Time
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			run.stopped = time.Since(first)
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				run.code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss<<10 > run.peak {
				run.peak = ru.Maxrss << 10 // the kernel's own peak, should a sample have missed it
			}
			return run
		case at := <-firstReply:
			first = at
		case <-tick.C:
			if hwm := vmHWM(c.Process.Pid); hwm > run.peak {
				run.peak = hwm
			}
			switch {
			case run.peak > endlessKillAt && run.killed == "":
				run.killed = fmt.Sprintf("%d MiB resident (VmHWM)", run.peak>>20)
				c.Process.Kill()
			case !first.IsZero() && time.Since(first) > endlessStopLimit && run.killed == "":
				run.killed = fmt.Sprintf("still running %s after the first reply", endlessStopLimit)
				c.Process.Kill()
			}
		}
	}
}

// vmHWM is a process's peak resident set size, in bytes (0 once it is
// gone).
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ownContainers are the containers, running or not, that process pid
// started (by its owner label), as podman lists them.
func ownContainers(t *testing.T, pid int) string {
	t.Helper()
	out, err := exec.Command("podman", "ps", "--all", "--filter", "label="+kernel.LabelOwner+"="+strconv.Itoa(pid), "--format", "{{.Names}}").CombinedOutput()
	if err != nil {
		t.Fatalf("podman ps: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// checkEndlessRunJSON checks what the failed run wrote: the failure, and
// both model calls cut by the client.
func checkEndlessRunJSON(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the run wrote no run.json: %v", err)
	}
	var m struct {
		Failure   string `json:"failure"`
		Questions []struct {
			Stop  string `json:"stop"`
			Calls []struct {
				Truncated bool `json:"truncated"`
				Overrun   bool `json:"overrun"`
			} `json:"calls"`
		} `json:"questions"`
		Model struct {
			MaxReplyTokens int `json:"max_reply_tokens"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Questions) != 1 || len(m.Questions[0].Calls) != 2 || !m.Questions[0].Calls[1].Overrun || !m.Questions[0].Calls[1].Truncated ||
		m.Model.MaxReplyTokens != 4096 || !strings.Contains(m.Failure+m.Questions[0].Stop, "completion limit") {
		t.Errorf("run.json: %+v", m)
	}
}

// analystBinary is the test binary under the name analyst, which TestMain
// runs as the CLI (testscript.Main dispatches on the name).
func analystBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "analyst")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}
