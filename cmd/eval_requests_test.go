package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/evals"
	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/llm/llmtest"
)

// rawBodies is a scripted model server behind a proxy that keeps each chat
// request's body as the client sent it, byte for byte.
type rawBodies struct {
	*llmtest.Model
	proxy  *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newRawBodies(t *testing.T, provider string, turns ...llmtest.Turn) *rawBodies {
	rb := &rawBodies{Model: llmtest.NewModel(t, provider, turns...)}
	rb.proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/chat") || strings.HasSuffix(r.URL.Path, "/completions") {
			rb.mu.Lock()
			rb.bodies = append(rb.bodies, body)
			rb.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rb.Model.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(rb.proxy.Close)
	return rb
}

// config is the configuration file and environment that point analyst at
// the proxy, with settings beyond where the server is.
func (rb *rawBodies) config(settings string) (string, map[string]string) {
	if rb.Provider == "ollama" {
		return settings, map[string]string{envOllamaHost: rb.proxy.URL}
	}
	return settings + "base-url: " + rb.proxy.URL + "/v1\n", map[string]string{"OPENAI_API_KEY": rb.APIKey()}
}

// One scripted model played through `analyst run DATA Q` and through a
// one-case `analyst eval` with the same configuration gets byte-identical
// request bodies (but for the cells' times, which differ from run to run): the same agent, prompt, options (the completion limit
// from the configuration in every request), cells fed back and push-back
// on a number no cell printed. Q is the case's prompt as the suite makes it
// (its question and the answer name it asks for).
func TestRunAndEvalSendTheSameRequests(t *testing.T) {
	cacheDir, err := kerneltest.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	kerneltest.Options(t) // skipped under -short; fails without the image
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(data, []byte("region,revenue\nNorth,10\nSouth,20\nEast,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte(`name: requests
datasets:
  sales: {path: sales.csv}
cases:
  - id: rows
    dataset: sales
    question: How many rows does the data have?
    expect: [{name: rows, value: "3"}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := evals.LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	question := s.Cases[0].Prompt
	// A cell, an answer with a number no cell printed (99: pushed back),
	// then the answer again without it.
	turns := []llmtest.Turn{
		{Calls: []llmtest.Call{llmtest.Code(`print("rows =", len(df))`)}},
		{Calls: []llmtest.Call{llmtest.Final(map[string]any{"rows": "3"}, "The data has 3 rows over 99 regions.")}},
		{Calls: []llmtest.Call{llmtest.Final(map[string]any{"rows": "3"}, "The data has 3 rows.")}},
	}
	settings := "explore: false\nmax-reply-tokens: 777\n"
	for _, provider := range []string{"ollama"} {
		t.Run(provider, func(t *testing.T) {
			run, eval := newRawBodies(t, provider, turns...), newRawBodies(t, provider, turns...)
			for _, c := range []struct {
				model *rawBodies
				args  []string
			}{
				{run, []string{"run", "--out", filepath.Join(dir, provider, "run"), data, question}},
				{eval, []string{"eval", "--out", filepath.Join(dir, provider, "eval"), "-j", "1", suite}},
			} {
				file, env := c.model.config(settings)
				env["ANALYST_CACHE_DIR"] = cacheDir
				cmdEnv(t, file, env)
				args := append([]string{c.args[0], "--model", c.model.Spec()}, c.args[1:]...)
				start := time.Now()
				if err := execute(t, testFactory(), nil, args...); err != nil {
					t.Fatalf("analyst %s: %v", c.args[0], err)
				}
				t.Logf("analyst %s: %v", c.args[0], time.Since(start))
			}
			if len(run.bodies) < 3 {
				t.Fatalf("analyst run sent %d chat requests, want the cell, the answer pushed back and the answer again", len(run.bodies))
			}
			if len(eval.bodies) != len(run.bodies) {
				t.Fatalf("analyst eval sent %d chat requests, analyst run %d", len(eval.bodies), len(run.bodies))
			}
			for i := range run.bodies {
				if !bytes.Equal(cellTimes.ReplaceAll(run.bodies[i], nil), cellTimes.ReplaceAll(eval.bodies[i], nil)) {
					t.Errorf("request %d differs:\nrun:  %s\neval: %s", i, run.bodies[i], eval.bodies[i])
				}
			}
			pushedBack := false
			for i, b := range eval.bodies {
				pushedBack = pushedBack || bytes.Contains(b, []byte("appear in no output of the code that ran")) && bytes.Contains(b, []byte("99"))
				if limit := replyLimit(t, provider, b); limit != 777 {
					t.Errorf("eval request %d: completion limit %v, want 777 (max-reply-tokens in the config file)", i, limit)
				}
			}
			if !pushedBack {
				t.Errorf("eval never told the model that 99 appears in no output")
			}
		})
	}
}

// cellTimes are the wall-clock times of the cells told to the model
// ("status: ok (0.28s)"), which differ from one run to the next.
var cellTimes = regexp.MustCompile(`\(\d+\.\d+s\)`)

// replyLimit is the completion limit a chat request body carries.
func replyLimit(t *testing.T, provider string, body []byte) any {
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if provider == "ollama" {
		opts, _ := req["options"].(map[string]any)
		return num(opts["num_predict"])
	}
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		if v, ok := req[k]; ok {
			return num(v)
		}
	}
	return nil
}

func num(v any) any {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return fmt.Sprint(v)
}

// Each eval model's client gets the options the configuration sets, as
// run's does (the completion limit, context length, vision, timeouts), and
// is asked about its model before the kernel is set up.
func TestEvalModelOptions(t *testing.T) {
	m := llmtest.NewModel(t, "ollama")
	f, seen := seamFactory(t, m.URL)
	t.Setenv("ANALYST_MAX_REPLY_TOKENS", "777")
	t.Setenv("ANALYST_CONTEXT_LENGTH", "8192")
	t.Setenv("ANALYST_VISION", "false")
	t.Setenv("ANALYST_MODEL_IDLE_TIMEOUT", "45s")
	var got []llm.Options
	client := f.ModelClient
	f.ModelClient = func(spec string, opts llm.Options) (llm.Client, error) {
		got = append(got, opts)
		return client(spec, opts)
	}
	data := writeCSV(t)
	suite := filepath.Join(filepath.Dir(data), "suite.yaml")
	if err := os.WriteFile(suite, []byte("name: s\ndatasets:\n  d: {path: sales.csv}\ncases:\n  - id: c\n    dataset: d\n    question: Which region sells most\n    expect: [{name: top, value: South}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantExit(t, execute(t, f, nil, "eval", "--out", t.TempDir(), "--model", m.Spec(), suite), ExitSandbox, "podman")
	if len(got) != 1 || seen.kernelSetups != 1 {
		t.Fatalf("model clients %d, kernel setups %d; want 1 of each", len(got), seen.kernelSetups)
	}
	o := got[0]
	if o.MaxReplyTokens != 777 || o.ContextLength != 8192 || o.Vision == nil || *o.Vision || o.Timeout != 45*time.Second || o.FirstTokenTimeout <= 0 {
		t.Errorf("eval's model options: limit %d, context %d, vision %v, idle %v, first token %v; want 777, 8192, false, 45s and the default",
			o.MaxReplyTokens, o.ContextLength, deref(o.Vision), o.Timeout, o.FirstTokenTimeout)
	}
}

// A model whose cases are all unscored (DABstep's all split) has no score:
// the summary says so instead of 0%, and --min-score cannot judge it (a
// usage error naming the split), rather than exit 6.
func TestEvalUnscoredIsNotZero(t *testing.T) {
	sum := &evals.Summary{Models: []evals.ModelSummary{{Model: "m", Cases: 4, Unscored: 4,
		DABstep: &evals.DABstepSummary{Submission: "submissions/m.jsonl"}}}}
	io, _, out, _ := iostreams.Test()
	printEvalSummary(NewFactory(io), "eval-out", sum)
	if got := out.String(); !strings.Contains(got, "score none: the 4 cases are unscored") || strings.Contains(got, "0.00%") {
		t.Errorf("summary:\n%s", got)
	}
	wantExit(t, belowMinScore(sum, 0.5), ExitUsage, "--min-score", "no scored case", "no gold answers")
}
