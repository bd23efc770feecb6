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
	"github.com/analyst-cli/analyst/internal/units"
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
// them apart, under "occasion" (pipeline.ManifestOccasion.ModelCalls).
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

// convo is the state of one converse call.
type convo struct {
	agent       *Agent
	ans         *Answer
	phase       string
	turn        int    // the turn in progress
	reflect     bool   // a reflection round: verdicts expected
	streak      int    // failed cells in a row
	truncations int    // replies in a row cut off
	overruns    int    // of those, replies the client cut at its size bound
	pushedBack  bool   // told to compute before answering
	restated    bool   // asked once to restate a reply without a verdict
	reason      string // reflection: the model's reason for revising
	trace       func(*Answer, []NamedValue, string) []string
	// pending is an answer sent back for its untraced numbers: it stands
	// if the bounds end before the model answers again.
	pending *outcome
}

// verified says whether some cell of the answer ran without error.
func (c *convo) verified() bool {
	for _, s := range c.ans.Steps {
		if !s.Failed {
			return true
		}
	}
	return false
}

const computeFirst = "No code has run successfully for this question yet, so that answer is not backed by a computation. " +
	"Compute the values first (run the code, print them), then give the answer again."

// converse sends user and runs turns until the model answers (or, in a
// reflection round, accepts), or a bound is reached.
func (a *Agent) converse(ctx context.Context, ans *Answer, phase string, user llm.Message, reflect bool) (outcome, error) {
	a.add(user, false)
	maxTurns, maxRepairs := a.Budgets()
	c := &convo{agent: a, ans: ans, phase: phase, reflect: reflect, trace: a.Trace}
	for turn := 1; ; turn++ {
		if turn > maxTurns {
			if c.pending != nil {
				return *c.pending, nil
			}
			return outcome{stop: fmt.Sprintf("no final answer after %d model turns (--max-turns)", maxTurns)}, nil
		}
		if turn > 1 && !a.askAgain(phase, turn-1, true, FindingNextTurn, "") {
			return c.recordingEnded(), nil
		}
		c.turn = turn
		turnStart := time.Now()
		req, window, condensed := a.request(reflect)
		resp, err := a.Client.Chat(ctx, req, nil)
		if err != nil && a.tools() && errors.Is(err, llm.ErrToolsUnsupported) {
			a.refuseTools(phase, err)
			turn--
			continue
		}
		if err != nil {
			return outcome{stop: "the model call failed"}, err
		}
		a.ctx.observe(req.Messages, resp)
		var cellTime time.Duration
		ans.Turns++
		call := ModelCall{Phase: phase, Turn: turn, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
			DurationMS: units.Millis(resp.Duration), FinishReason: resp.FinishReason, ToolCalls: len(resp.Message.ToolCalls),
			Truncated: resp.Truncated(), Overrun: resp.Overrun != nil, ContextWindow: window, Condensed: condensed}
		a.event(TurnEvent{Phase: phase, Turn: turn, Tokens: call.PromptTokens + call.CompletionTokens})
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		record := func() {
			call.OverheadMS = units.Millis(time.Since(turnStart) - resp.Duration - cellTime)
			ans.Calls = append(ans.Calls, call)
		}

		if resp.Truncated() {
			record()
			if stop, err := a.truncated(c, msg, resp); stop != "" {
				return outcome{stop: stop}, err
			}
			continue
		}
		c.truncations = 0
		a.add(msg, false)

		// run executes one cell and returns its feedback.
		run := func(code string, fenced bool) (string, []kernel.Chart, bool, error) {
			ex, err := a.Kernel.Execute(ctx, code, kernel.ExecOptions{Timeout: a.CellTimeout})
			if ex == nil {
				return "", nil, true, &SandboxError{Err: err}
			}
			cellTime += ex.Duration
			failed := ex.Status != kernel.StatusOK
			ans.Steps = append(ans.Steps, Step{Phase: phase, Turn: turn, Code: code, Exec: ex, Status: string(ex.Status), Failed: failed, Fenced: fenced})
			a.event(TurnEvent{Phase: phase, Turn: turn, Cell: true, Status: string(ex.Status)})
			if err != nil {
				return "", nil, failed, err
			}
			if ex.StateLost || ex.Status == kernel.StatusDied {
				return "", nil, failed, &SandboxError{Err: fmt.Errorf("%s: the kernel stopped: %s", phase, ex.Cause)}
			}
			var charts []kernel.Chart
			if ex.Status == kernel.StatusOK {
				charts = ex.Charts()
			}
			fb := describeExecution(ex, a.vision(), a.Columns, a.ColumnsOf)
			tell := func(found string) bool { return a.tell(phase, turn, FindingChart, found) }
			if check := checkCharts(ans, phase, turn, charts, tell); check != "" {
				fb += "\n" + check
			}
			return fb, charts, failed, nil
		}
		// afterCells counts the repair streak; true means give up.
		afterCells := func(ran, failed int) bool {
			ans.Repairs += failed
			if ran > 0 && failed == ran {
				c.streak += failed
			} else if ran > 0 {
				c.streak = 0
			}
			return c.streak > maxRepairs
		}
		gaveUp := func() outcome {
			if c.pending != nil {
				return *c.pending
			}
			return outcome{stop: fmt.Sprintf("gave up after %d failed cells in a row (repair bound %d)", c.streak, maxRepairs)}
		}

		if a.tools() && len(msg.ToolCalls) > 0 {
			var charts []kernel.Chart
			var final, verdict *outcome
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
					fb, cs, f, err := run(code, false)
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
					o, pushBack := c.answer(vs, summary)
					if pushBack != "" {
						content = "not recorded: " + pushBack + " Use run_python, then call final_answer."
						break
					}
					final = &o
					content = "answer recorded: " + FormatAnswers(vs)
				case c.reflect && tc.Name == toolAccept.Name:
					verdict = &outcome{accepted: true, note: reasonOf(tc.Arguments)}
					content = "verdict recorded: accepted"
				case c.reflect && tc.Name == toolRevise.Name:
					c.reason = clip.Runes(reasonOf(tc.Arguments), maxReasonRunes)
					content = "noted. Now fix it: run code with run_python (redraw the chart, recompute), then give the answer again with final_answer."
				default:
					names := "run_python(code) and final_answer(answers, summary)"
					if c.reflect {
						names += ", accept(reason) and revise(reason)"
					}
					content = fmt.Sprintf("unknown tool %q: the tools are %s", tc.Name, names)
				}
				a.add(llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: content}, true)
			}
			if runErr != nil {
				record()
				return outcome{stop: "the run stopped"}, runErr
			}
			a.sendCharts(charts)
			record()
			switch {
			case final != nil:
				return *final, nil
			case verdict != nil && ran == 0:
				return *verdict, nil
			}
			if afterCells(ran, failed) {
				return gaveUp(), nil
			}
			continue
		}

		text := msg.Content
		if c.reflect && textVerdict(text) == "revise" {
			c.reason = reviseReason(text)
		}
		if blocks := codeBlocks(text); len(blocks) > 0 {
			// Fenced code runs in either mode: a tools-mode model that
			// writes a block instead of a call still gets it run.
			var parts []string
			var charts []kernel.Chart
			ran, failed := 0, 0
			for i, code := range blocks {
				fb, cs, f, err := run(code, true)
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
			fb := "Output of your code:\n" + strings.Join(parts, "\n\n")
			if a.tools() {
				fb += "\n\n(Your fenced code was run. Next time call run_python with the code.)"
			}
			a.add(llm.Message{Role: llm.RoleUser, Content: fb}, true)
			a.sendCharts(charts)
			record()
			if afterCells(ran, failed) {
				return gaveUp(), nil
			}
			continue
		}
		record()
		v := textVerdict(text)
		if c.reflect && v == "accept" {
			return outcome{accepted: true, note: strings.TrimSpace(text)}, nil
		}
		if vs := ParseAnswers(text); len(vs) > 0 {
			o, pushBack := c.answer(vs, text)
			if pushBack == "" {
				return o, nil
			}
			a.add(llm.Message{Role: llm.RoleUser, Content: pushBack + " Write the code in a ```python block."}, false)
			continue
		}
		var nudge string
		switch {
		case c.reflect && v == "" && !c.restated:
			c.restated = true
			ans.Restatements++
			nudge = "Your reply did not state a verdict, so the chart is not accepted. "
			if a.tools() {
				nudge += "Call accept(reason) if the charts and the answer are right, or revise(reason) and then fix them (run_python, then final_answer)."
			} else {
				nudge += "Start your reply with the line VERDICT: ACCEPT (then one line why) if the charts and the answer are right, " +
					"or VERDICT: REVISE (then what is wrong), followed by the ```python code that fixes it."
			}
		case c.reflect && v == "":
			return outcome{stop: "no clear verdict after a request to restate: " + clip.Bytes(strings.TrimSpace(text), 300)}, nil
		case a.tools():
			nudge = "Continue: call run_python to compute what you need, or final_answer with the named values and a summary."
		default:
			nudge = "Continue: write Python in a ```python block to compute what you need, or, when done, reply with no code: the answer as @name[value] pairs and two or three sentences."
		}
		a.add(llm.Message{Role: llm.RoleUser, Content: nudge}, false)
	}
}

// answer takes an answer the model gave, or sends it back with the reason
// (pushBack): once when no code has run for it (then it is taken as
// unverified), and once when it states numbers no cell's output shows
// (then it is taken with those numbers marked untraced). Whether it goes
// back is askAgain's decision: in a replay, the recorded run's.
func (c *convo) answer(vs []NamedValue, text string) (outcome, string) {
	plain, md := narrative(text)
	o := outcome{answered: true, values: vs, summary: plain, summaryMD: md, reason: c.reason}
	verified := c.verified()
	var untraced []string
	if verified && c.trace != nil {
		untraced = c.trace(c.ans, vs, plain)
	}
	check, found, note := c.pushBack(verified, untraced)
	if !c.agent.askAgain(c.phase, c.turn, note != "", check, found) {
		o.unverified = !verified
		if len(c.ans.TraceTold) > 0 {
			c.ans.TraceCorrected = len(untraced) == 0
		}
		return o, ""
	}
	if note == "" {
		note = replayedNote
	}
	if check == FindingNoCode {
		c.pushedBack = true
		return o, note
	}
	c.ans.TraceTold = untraced
	c.pending = &o
	return o, note
}

// pushBack is why a run sends an answer back: the check, what it found
// ("" nothing) and the note to the model ("" when a run takes the answer,
// told of the check once already).
func (c *convo) pushBack(verified bool, untraced []string) (check, found, note string) {
	if !verified {
		found = "no cell ran without error for the answer on the new data"
		if c.pushedBack {
			return FindingNoCode, found, ""
		}
		return FindingNoCode, found, computeFirst
	}
	if len(untraced) == 0 {
		return FindingUntraced, "", ""
	}
	found = "numbers of the answer that no output shows on the new data: " + strings.Join(untraced, ", ")
	if len(c.ans.TraceTold) > 0 {
		return FindingUntraced, found, ""
	}
	return FindingUntraced, found, untracedNote(untraced)
}

// recordingEnded is how a conversation ends where a replay follows the
// recorded run, which asked the model nothing more in it.
func (c *convo) recordingEnded() outcome {
	if c.pending != nil {
		return *c.pending
	}
	return outcome{stop: "the recorded run asked the model nothing more here"}
}

// untracedNote tells the model which numbers of its answer no output shows.
func untracedNote(nums []string) string {
	return "These numbers in your answer appear in no output of the code that ran, so nothing backs them: " +
		strings.Join(nums, ", ") + ". Compute each one in code that prints it, then give the answer again; " +
		"or leave out the numbers you cannot compute."
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
