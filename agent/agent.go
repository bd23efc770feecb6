package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/numtrace"
)

// Agent defaults.
const (
	DefaultMaxTurns      = 10
	DefaultMaxRepairs    = 3
	DefaultReflectRounds = 1
	DefaultSeed          = 42
	// MaxTruncations bounds the replies in a row cut off by the token limit
	// before a question stops.
	MaxTruncations = 2
)

// Modes of the agent: how the model runs code.
const (
	ModeTools      = "tools"
	ModeCodeBlocks = "code-blocks"
)

// Agent answers questions about the loaded data with a model that writes
// code for the kernel: tools mode (run_python, final_answer) when the model
// calls tools, fenced ```python blocks otherwise (fenced code is run in
// either mode). Questions asked of one Agent share the conversation and the
// kernel's state, so follow-ups build on earlier answers.
type Agent struct {
	Client llm.Client
	Info   *llm.ModelInfo
	// Kernel runs the model's code: a *kernel.Kernel, or a fake in tests
	// of the loop alone.
	Kernel Executor
	// System is the system prompt (SystemPrompt).
	System string

	MaxTurns    int           // model calls per question (and per reflection round); 0: DefaultMaxTurns
	MaxRepairs  int           // failed cells in a row before giving up; 0: DefaultMaxRepairs
	CellTimeout time.Duration // 0: the kernel's default
	Seed        int           // sent with temperature 0

	// OnTurn, if set, hears of every model call and cell as they happen.
	OnTurn func(TurnEvent)

	// Columns are the data's column names: feedback on a KeyError names the
	// closest ones, as not a column of ColumnsOf ("": df).
	Columns   []string
	ColumnsOf string

	// ToolsRefused is the server's refusal of tool calling when it made the
	// agent switch to code-block mode for the rest of its life; "" if not.
	ToolsRefused string

	// Trace, if set, returns the numbers (and named values) of an answer
	// that no cell's output shows (see package numtrace); ans holds the
	// question and the cells run for it so far. The model is told of them
	// once per answer and may answer again within the turn bound.
	Trace func(ans *Answer, values []NamedValue, narrative string) []string

	// Replay, if set, is the recorded run this agent plays again on new
	// data: the model is asked again only where the recorded run asked it,
	// and what the checks find is recorded, not told (see Replay).
	Replay Replay

	messages []llm.Message
	ctx      contextState
}

// Executor runs code in a persistent Python session, the way
// (*kernel.Kernel).Execute does: an error is the kernel failing, a failing
// cell is an Execution with its status.
type Executor interface {
	Execute(ctx context.Context, code string, opts kernel.ExecOptions) (*kernel.Execution, error)
}

// TurnEvent is a model call or a cell, for progress displays.
type TurnEvent struct {
	Phase  string // question-N or reflection-N
	Turn   int
	Tokens int    // prompt + completion tokens of this call (model calls)
	Cell   bool   // a cell ran (Status set)
	Status string // the cell's status
	// Notice, when set, is something the user should hear of once (the
	// switch to code-block mode); no model call or cell goes with it.
	Notice string
}

// Step is one cell the model wrote, with what it produced.
type Step struct {
	Phase  string            `json:"phase"`
	Turn   int               `json:"turn"`
	Code   string            `json:"code"`
	Exec   *kernel.Execution `json:"-"`
	Status string            `json:"status"`
	Failed bool              `json:"failed"`
	// Fenced is true for code the model wrote as a fenced block (rather
	// than a run_python call).
	Fenced bool `json:"fenced,omitempty"`
}

// ModelCall is one Chat call, for the manifest. Its times (DurationMS,
// OverheadMS) are about the occasion, not the run's content: run.json keeps
// them apart, under "occasion" (runrecord.Occasion.ModelCalls).
type ModelCall struct {
	Phase            string  `json:"phase"`
	Turn             int     `json:"turn"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	DurationMS       float64 `json:"-"`
	FinishReason     string  `json:"finish_reason,omitempty"`
	ToolCalls        int     `json:"tool_calls,omitempty"`
	// Truncated: the reply was cut off by the token limit and not used.
	// Overrun: the client cut it, at its size bound (llm.Response.Overrun).
	Truncated bool `json:"truncated,omitempty"`
	Overrun   bool `json:"overrun,omitempty"`
	// ContextWindow is the window asked of the server (Ollama num_ctx);
	// Condensed counts the earlier messages sent condensed to fit it.
	ContextWindow int `json:"context_window,omitempty"`
	Condensed     int `json:"condensed,omitempty"`
	// OverheadMS is the tool's own time in the turn: everything but the
	// model call and the cells.
	OverheadMS float64 `json:"-"`
}

// Verdict is the model's judgement of a chart in reflection.
type Verdict struct {
	Round    int    `json:"round"`
	Charts   string `json:"charts"`
	Accepted bool   `json:"accepted"`
	// Revised: the model answered again; Note then is its new answer.
	Revised bool `json:"revised,omitempty"`
	// Note is the model's reason for accepting, its revised answer, or,
	// when neither, why the round ended (the tool's words).
	Note string `json:"note"`
	// Reason is the model's reason for revising (revise(reason), or the
	// words after VERDICT: REVISE), when it gave one.
	Reason string `json:"reason,omitempty"`
	// Numbers are the numbers of a note in the model's words (accepted or
	// revised) traced to cells; set by the caller, nil when not traced.
	Numbers *numtrace.Record `json:"numbers,omitempty"`
}

// ModelWords says whether Note is the model's own text (a reason for
// accepting or a revised answer), whose numbers are claims to trace. (A
// round with no chart to check is accepted in the tool's words, which
// state no number.)
func (v Verdict) ModelWords() bool { return v.Accepted || v.Revised }

// Answer is what asking one question produced, also when it stopped early.
type Answer struct {
	Question string       `json:"question"`
	Prompt   string       `json:"prompt"` // the user message sent
	Values   []NamedValue `json:"values"`
	Summary  string       `json:"summary"`
	Answered bool         `json:"answered"`
	// Unverified is true when the model gave its answer without any code
	// having run for it successfully, after being told to compute it.
	Unverified bool `json:"unverified,omitempty"`
	// Stop says why there is no answer ("" when answered).
	Stop     string      `json:"stop,omitempty"`
	Steps    []Step      `json:"steps"`
	Calls    []ModelCall `json:"calls"`
	Turns    int         `json:"turns"`
	Repairs  int         `json:"repairs"`
	Verdicts []Verdict   `json:"verdicts,omitempty"`
	// Revised is true when reflection changed the answer.
	Revised bool `json:"revised,omitempty"`
	// Truncations counts replies cut off by the token limit (not used).
	Truncations int `json:"truncations,omitempty"`
	// Restatements counts the times the model was asked to restate a reply
	// that had no clear verdict.
	Restatements int `json:"restatements,omitempty"`
	// ChartChecks are the charts that failed the checks (CheckChart);
	// ChartRejections counts the cells whose failing charts went back to
	// the model (at most MaxChartRejections).
	ChartChecks     []ChartCheck `json:"chart_checks,omitempty"`
	ChartRejections int          `json:"chart_rejections,omitempty"`
	// Numbers are the answer's numbers traced to the cells that show them;
	// set by the caller (see Agent.Trace), nil when not traced.
	Numbers *numtrace.Record `json:"numbers,omitempty"`
	// TraceTold are the untraced numbers the model was told of (once), and
	// TraceCorrected says its last answer after that stated none untraced.
	TraceTold      []string `json:"trace_told,omitempty"`
	TraceCorrected bool     `json:"trace_corrected,omitempty"`

	// SummaryMD is Summary with inline values in bold, for the report;
	// empty when it is Summary. In run.json, so that analyst verify renders
	// the report again from it.
	SummaryMD string `json:"summary_markdown,omitempty"`
}

// SummaryMarkdown is the narrative as markdown: values named inline
// (@name[value]) shown as the value in bold.
func (a *Answer) SummaryMarkdown() string {
	if a.SummaryMD != "" {
		return a.SummaryMD
	}
	return a.Summary
}

func (a *Answer) setAnswer(o outcome) {
	a.Values, a.Summary, a.SummaryMD = o.values, o.summary, o.summaryMD
	if a.SummaryMD == a.Summary {
		a.SummaryMD = ""
	}
	a.Unverified = o.unverified
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
	toolAccept = reasonTool("accept", "Reflection only: the charts and the answer are right; keep the answer as it is.",
		"one line: why the charts and answer are right")
	toolRevise = reasonTool("revise", "Reflection only: something is wrong with a chart or the answer; say what. "+
		"Then fix it with run_python and give the answer again with final_answer.", "what is wrong and what you will change")
	agentTools   = []llm.Tool{toolRunPython, toolFinalAnswer}
	reflectTools = []llm.Tool{toolRunPython, toolFinalAnswer, toolAccept, toolRevise}
)

// reasonTool is a verdict tool: its one argument is the reason.
func reasonTool(name, description, reason string) llm.Tool {
	params, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"reason"},
		"properties": map[string]any{"reason": map[string]string{"type": "string", "description": reason}}})
	return llm.Tool{Name: name, Description: description, Parameters: params}
}

func (a *Agent) tools() bool {
	return a.Info != nil && a.Info.Capabilities.Tools && a.ToolsRefused == ""
}
func (a *Agent) vision() bool {
	return a.Info != nil && a.Info.Capabilities.Vision
}

// Mode is how the model runs code: ModeTools or ModeCodeBlocks.
func (a *Agent) Mode() string {
	if a.tools() {
		return ModeTools
	}
	return ModeCodeBlocks
}

// Budgets are the agent's model turns per question and failed cells in a
// row, defaults applied: what the system prompt tells the model.
func (a *Agent) Budgets() (turns, repairs int) {
	return orDefault(a.MaxTurns, DefaultMaxTurns), orDefault(a.MaxRepairs, DefaultMaxRepairs)
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
	first := len(a.messages) == 0
	if first {
		a.add(llm.Message{Role: llm.RoleSystem, Content: a.System}, false)
		if a.ToolsRefused != "" {
			// Refused before this conversation began (ProposeGoals): the
			// system prompt may still speak of tools.
			a.add(llm.Message{Role: llm.RoleUser, Content: toolsRefusedNote}, false)
		}
	}
	ans.Prompt = "Question: " + question
	if !first {
		ans.Prompt = "Follow-up question (df and every variable you made are still there): " + question
	}
	out, err := a.converse(ctx, ans, phase, llm.Message{Role: llm.RoleUser, Content: ans.Prompt}, false)
	if out.answered {
		ans.setAnswer(out)
		ans.Answered = true
	} else {
		ans.Stop = out.stop
	}
	return ans, err
}

// outcome is how a conversation round ended.
type outcome struct {
	answered   bool
	values     []NamedValue
	summary    string
	summaryMD  string
	unverified bool
	accepted   bool   // reflection: the model accepted
	reason     string // reflection: why the model revised, if it said
	note       string
	stop       string
}

// verdictRe is the required first line of a code-block reflection reply.
var verdictRe = regexp.MustCompile(`(?i)^[\s*_#>` + "`" + `]*VERDICT\s*:\s*[*_` + "`" + `]*\s*(ACCEPT|REVISE)\b`)

// textVerdict reads the verdict token on the first line of text: "accept",
// "revise" or "".
func textVerdict(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if m := verdictRe.FindStringSubmatch(line); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// maxReasonRunes bounds the reason for a revision kept for the report.
const maxReasonRunes = 500

// reviseReason is the reason of a code-block REVISE verdict: the rest of
// the verdict's line, else the text before the first fenced block; on one
// line, clipped.
func reviseReason(text string) string {
	line, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	loc := verdictRe.FindStringIndex(line)
	if loc == nil {
		return ""
	}
	reason := strings.TrimLeft(line[loc[1]:], " \t*_`:.—–-")
	if strings.TrimSpace(reason) == "" {
		reason, _, _ = strings.Cut(rest, "```")
	}
	return clip.Runes(strings.Join(strings.Fields(reason), " "), maxReasonRunes)
}

// reasonOf reads the reason argument of accept and revise.
func reasonOf(args string) string {
	var v struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal([]byte(args), &v)
	return strings.TrimSpace(v.Reason)
}

// toolsRefusedNote tells the model to work in code blocks.
const toolsRefusedNote = "Tool calling is not available on this server: ignore the instructions about run_python and final_answer. " +
	codeBlockHowTo

// refuseTools switches the agent to code-block mode for good after the
// server refused tool calling, and tells the model (and the user, once).
func (a *Agent) refuseTools(phase string, err error) {
	a.ToolsRefused = FailureText(err)
	a.add(llm.Message{Role: llm.RoleUser, Content: toolsRefusedNote}, false)
	a.event(TurnEvent{Phase: phase, Notice: toolsRefusedNotice(err)})
}

// toolsRefusedNotice tells the user of the switch to code-block mode, with
// the server's reason (run.json keeps the whole error, ToolsRefused).
func toolsRefusedNotice(err error) string {
	reason := FailureText(err)
	var le *llm.Error
	if errors.As(err, &le) && le.Err != nil {
		reason = le.Err.Error()
		if le.StatusCode != 0 {
			reason = fmt.Sprintf("HTTP %d: %s", le.StatusCode, reason)
		}
	}
	return "the model server refuses tool calling; switched to code-block mode (fenced ```python blocks). The server said: " + reason
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
	a.add(llm.Message{Role: llm.RoleUser, Images: imgs,
		Content: "The chart(s) your code made, in order: " + strings.Join(labels, "; ")}, true)
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

// SandboxError is a kernel that could not start or died.
type SandboxError struct{ Err error }

func (e *SandboxError) Error() string { return e.Err.Error() }
func (e *SandboxError) Unwrap() error { return e.Err }

// FailureText says why something stopped, in words for the report:
// interrupts and time limits are named rather than shown as Go errors.
func FailureText(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted (Ctrl-C or SIGTERM) before the run finished"
	case errors.Is(err, context.DeadlineExceeded):
		return "the run's time limit ran out"
	}
	return err.Error()
}
