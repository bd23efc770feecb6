package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
)

// Agent defaults.
const (
	DefaultMaxTurns      = 10
	DefaultMaxRepairs    = 3
	DefaultReflectRounds = 1
	DefaultSeed          = 42
)

// Agent answers questions about the loaded data with a model that writes
// code for the kernel: tools mode (run_python, final_answer) when the model
// calls tools, fenced ```python blocks otherwise. Questions asked of one
// Agent share the conversation and the kernel's state, so follow-ups build
// on earlier answers.
type Agent struct {
	Client llm.Client
	Info   *llm.ModelInfo
	Kernel *kernel.Kernel
	// System is the system prompt (SystemPrompt).
	System string

	MaxTurns    int           // model calls per question (and per reflection round); 0: DefaultMaxTurns
	MaxRepairs  int           // failed cells in a row before giving up; 0: DefaultMaxRepairs
	CellTimeout time.Duration // 0: the kernel's default
	Seed        int           // sent with temperature 0

	// OnTurn, if set, hears of every model call and cell as they happen.
	OnTurn func(TurnEvent)

	messages []llm.Message
}

// TurnEvent is a model call or a cell, for progress displays.
type TurnEvent struct {
	Phase  string // question-N or reflection-N
	Turn   int
	Tokens int    // prompt + completion tokens of this call (model calls)
	Cell   bool   // a cell ran (Status set)
	Status string // the cell's status
}

// Step is one cell the model wrote, with what it produced.
type Step struct {
	Phase  string            `json:"phase"`
	Turn   int               `json:"turn"`
	Code   string            `json:"code"`
	Exec   *kernel.Execution `json:"-"`
	Status string            `json:"status"`
	Failed bool              `json:"failed"`
}

// ModelCall is one Chat call, for the manifest.
type ModelCall struct {
	Phase            string  `json:"phase"`
	Turn             int     `json:"turn"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	DurationMS       float64 `json:"duration_ms"`
	FinishReason     string  `json:"finish_reason,omitempty"`
	ToolCalls        int     `json:"tool_calls,omitempty"`
	// OverheadMS is the tool's own time in the turn: everything but the
	// model call and the cells.
	OverheadMS float64 `json:"overhead_ms"`
}

// Verdict is the model's judgement of a chart in reflection.
type Verdict struct {
	Round    int    `json:"round"`
	Charts   string `json:"charts"`
	Accepted bool   `json:"accepted"`
	Note     string `json:"note"`
}

// Answer is what asking one question produced, also when it stopped early.
type Answer struct {
	Question string       `json:"question"`
	Prompt   string       `json:"prompt"` // the user message sent
	Values   []NamedValue `json:"values"`
	Summary  string       `json:"summary"`
	Answered bool         `json:"answered"`
	// Stop says why there is no answer ("" when answered).
	Stop     string      `json:"stop,omitempty"`
	Steps    []Step      `json:"steps"`
	Calls    []ModelCall `json:"calls"`
	Turns    int         `json:"turns"`
	Repairs  int         `json:"repairs"`
	Verdicts []Verdict   `json:"verdicts,omitempty"`
	// Revised is true when reflection changed the answer.
	Revised bool `json:"revised,omitempty"`
}

// Tool schemas.
var (
	toolRunPython = llm.Tool{
		Name:        "run_python",
		Description: "Run Python code in the persistent kernel where the DataFrame `df` is loaded. Returns stdout, the last expression's value, errors, and the charts made (open matplotlib figures are captured).",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"Python code to run"}},"required":["code"]}`),
	}
	toolFinalAnswer = llm.Tool{
		Name:        "final_answer",
		Description: "Give the final answer: named values and a short summary.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"answers":{"type":"object","description":"named values: snake_case name to a number or short text","additionalProperties":{"type":["string","number","boolean"]}},` +
			`"summary":{"type":"string","description":"two or three sentences: the answer and how it was computed"}},` +
			`"required":["answers","summary"]}`),
	}
	agentTools = []llm.Tool{toolRunPython, toolFinalAnswer}
)

func (a *Agent) tools() bool { return a.Info != nil && a.Info.Capabilities.Tools }
func (a *Agent) vision() bool {
	return a.Info != nil && a.Info.Capabilities.Vision
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Ask puts a question to the model and runs its code until it answers or a
// bound is reached. The Answer is never nil: on an error (the model server,
// the kernel dying, ctx ending) it holds what happened so far.
func (a *Agent) Ask(ctx context.Context, phase, question string) (*Answer, error) {
	ans := &Answer{Question: question}
	if len(a.messages) == 0 {
		a.messages = append(a.messages, llm.Message{Role: llm.RoleSystem, Content: a.System})
	}
	ans.Prompt = "Question: " + question
	if len(a.messages) > 1 {
		ans.Prompt = "Follow-up question (df and every variable you made are still there): " + question
	}
	out, err := a.converse(ctx, ans, phase, llm.Message{Role: llm.RoleUser, Content: ans.Prompt}, false)
	if out.answered {
		ans.Values, ans.Summary, ans.Answered = out.values, out.summary, true
	} else {
		ans.Stop = out.stop
	}
	return ans, err
}

// outcome is how a conversation round ended.
type outcome struct {
	answered bool
	values   []NamedValue
	summary  string
	accepted bool // reflection: the model accepted
	note     string
	stop     string
}

var acceptRe = regexp.MustCompile(`(?i)\bACCEPT(ED)?\b`)

// converse sends user and runs turns until the model answers (or, when
// acceptable, accepts), or a bound is reached.
func (a *Agent) converse(ctx context.Context, ans *Answer, phase string, user llm.Message, acceptable bool) (outcome, error) {
	a.messages = append(a.messages, user)
	maxTurns := orDefault(a.MaxTurns, DefaultMaxTurns)
	maxRepairs := orDefault(a.MaxRepairs, DefaultMaxRepairs)
	zero := 0.0
	seed := a.Seed
	streak := 0 // failed cells in a row
	for turn := 1; ; turn++ {
		if turn > maxTurns {
			return outcome{stop: fmt.Sprintf("no final answer after %d model turns (--max-turns)", maxTurns)}, nil
		}
		req := llm.Request{Messages: a.messages, Temperature: &zero, Seed: &seed}
		if a.tools() {
			req.Tools = agentTools
		}
		turnStart := time.Now()
		resp, err := a.Client.Chat(ctx, req, nil)
		if err != nil {
			return outcome{stop: "the model call failed"}, err
		}
		var cellTime time.Duration
		ans.Turns++
		call := ModelCall{Phase: phase, Turn: turn, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
			DurationMS: ms(resp.Duration), FinishReason: resp.FinishReason, ToolCalls: len(resp.Message.ToolCalls)}
		a.event(TurnEvent{Phase: phase, Turn: turn, Tokens: call.PromptTokens + call.CompletionTokens})
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		a.messages = append(a.messages, msg)

		record := func() {
			call.OverheadMS = ms(time.Since(turnStart) - resp.Duration - cellTime)
			ans.Calls = append(ans.Calls, call)
		}
		// run executes one cell and returns its feedback.
		run := func(code string) (string, []kernel.Chart, bool, error) {
			ex, err := a.Kernel.Execute(ctx, code, kernel.ExecOptions{Timeout: a.CellTimeout})
			if ex == nil {
				return "", nil, true, &SandboxError{err}
			}
			cellTime += ex.Duration
			failed := ex.Status != kernel.StatusOK
			ans.Steps = append(ans.Steps, Step{Phase: phase, Turn: turn, Code: code, Exec: ex, Status: string(ex.Status), Failed: failed})
			a.event(TurnEvent{Phase: phase, Turn: turn, Cell: true, Status: string(ex.Status)})
			if err != nil {
				return "", nil, failed, err
			}
			if ex.StateLost || ex.Status == kernel.StatusDied {
				return "", nil, failed, &SandboxError{fmt.Errorf("%s: the kernel stopped: %s", phase, ex.Cause)}
			}
			var charts []kernel.Chart
			if ex.Status == kernel.StatusOK {
				charts = ex.Charts()
			}
			return describeExecution(ex, a.vision()), charts, failed, nil
		}
		// afterCells counts the repair streak; true means give up.
		afterCells := func(ran, failed int) bool {
			ans.Repairs += failed
			if ran > 0 && failed == ran {
				streak += failed
			} else if ran > 0 {
				streak = 0
			}
			return streak > maxRepairs
		}

		if a.tools() && len(msg.ToolCalls) > 0 {
			var charts []kernel.Chart
			var final *outcome
			ran, failed := 0, 0
			var runErr error
			for _, tc := range msg.ToolCalls {
				content := ""
				switch {
				case runErr != nil:
					content = "not run: the run stopped"
				case tc.Name == toolRunPython.Name:
					code, perr := parseRunPython(tc.Arguments)
					if perr != nil {
						content = perr.Error()
						break
					}
					fb, cs, f, err := run(code)
					if err != nil {
						runErr = err
						content = "not run: the run stopped"
						break
					}
					ran++
					if f {
						failed++
					}
					content, charts = fb, append(charts, cs...)
				case tc.Name == toolFinalAnswer.Name:
					vs, summary, perr := parseFinalAnswer(tc.Arguments)
					if perr != nil {
						content = perr.Error()
						break
					}
					final = &outcome{answered: true, values: vs, summary: summary}
					content = "answer recorded: " + FormatAnswers(vs)
				default:
					content = fmt.Sprintf("unknown tool %q: the tools are run_python(code) and final_answer(answers, summary)", tc.Name)
				}
				a.messages = append(a.messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: content})
			}
			if runErr != nil {
				record()
				return outcome{stop: "the run stopped"}, runErr
			}
			a.sendCharts(charts)
			record()
			if final != nil {
				return *final, nil
			}
			if afterCells(ran, failed) {
				return outcome{stop: fmt.Sprintf("gave up after %d failed cells in a row (repair bound %d)", streak, maxRepairs)}, nil
			}
			continue
		}

		text := msg.Content
		if !a.tools() {
			if blocks := codeBlocks(text); len(blocks) > 0 {
				var parts []string
				var charts []kernel.Chart
				ran, failed := 0, 0
				for i, code := range blocks {
					fb, cs, f, err := run(code)
					if err != nil {
						record()
						return outcome{stop: "the run stopped"}, err
					}
					ran++
					parts = append(parts, fmt.Sprintf("block %d:\n%s", i+1, fb))
					charts = append(charts, cs...)
					if f {
						failed++
						if i+1 < len(blocks) {
							parts = append(parts, fmt.Sprintf("blocks %d to %d were not run because block %d failed.", i+2, len(blocks), i+1))
						}
						break
					}
				}
				a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: "Output of your code:\n" + strings.Join(parts, "\n\n")})
				a.sendCharts(charts)
				record()
				if afterCells(ran, failed) {
					return outcome{stop: fmt.Sprintf("gave up after %d failed cells in a row (repair bound %d)", streak, maxRepairs)}, nil
				}
				continue
			}
		}
		record()
		if vs := ParseAnswers(text); len(vs) > 0 {
			return outcome{answered: true, values: vs, summary: stripAnswers(text)}, nil
		}
		if acceptable && acceptRe.MatchString(text) {
			return outcome{accepted: true, note: strings.TrimSpace(text)}, nil
		}
		nudge := "Continue: call run_python to compute what you need, or final_answer with the named values and a summary."
		if !a.tools() {
			nudge = "Continue: write Python in a ```python block to compute what you need, or, when done, reply with no code: the answer as @name[value] pairs and two or three sentences."
		}
		if acceptable {
			nudge = "Reply ACCEPT with a one-line reason if the chart and answer are right; otherwise fix them and give the answer again. " + nudge
		}
		a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: nudge})
	}
}

// sendCharts shows a vision model the charts just made, in a user message:
// tool messages are text only.
func (a *Agent) sendCharts(charts []kernel.Chart) {
	if !a.vision() {
		return
	}
	var imgs [][]byte
	var labels []string
	for _, c := range charts {
		if len(c.PNG) > 0 {
			imgs = append(imgs, c.PNG)
			labels = append(labels, chartLabel(c))
		}
	}
	if len(imgs) == 0 {
		return
	}
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Images: imgs,
		Content: "The chart(s) your code made, in order: " + strings.Join(labels, "; ")})
}

func (a *Agent) event(e TurnEvent) {
	if a.OnTurn != nil {
		a.OnTurn(e)
	}
}

// parseRunPython reads run_python's arguments; its errors are for the model.
func parseRunPython(args string) (string, error) {
	var v struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return "", fmt.Errorf(`run_python: the arguments are not a JSON object (%s); send {"code": "<python source>"} with the code as one JSON string (escape newlines as \n and quotes as \")`, shortErr(err))
	}
	if v.Code == nil || strings.TrimSpace(*v.Code) == "" {
		return "", fmt.Errorf(`run_python: "code" is missing or empty; send {"code": "<python source>"}`)
	}
	return *v.Code, nil
}

var fenceRe = regexp.MustCompile("(?s)```(?:python|py|python3)[ \t]*\r?\n(.*?)```")

// codeBlocks returns the fenced python blocks of text, in order.
func codeBlocks(text string) []string {
	var out []string
	for _, m := range fenceRe.FindAllStringSubmatch(text, -1) {
		if s := strings.TrimSpace(m[1]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
