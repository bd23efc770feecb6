package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/llm"
)

// convo is the state of one converse call.
type convo struct {
	agent       *Agent
	ans         *Answer
	phase       string
	turn        int    // the turn in progress
	reflect     bool   // a reflection round: verdicts expected
	streak      int    // failed cells in a row
	maxRepairs  int    // the bound on streak
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
	c := &convo{agent: a, ans: ans, phase: phase, reflect: reflect, trace: a.Trace, maxRepairs: maxRepairs}
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
		r, err := c.ask(ctx)
		if err != nil && a.tools() && errors.Is(err, llm.ErrToolsUnsupported) {
			a.refuseTools(phase, err)
			turn--
			continue
		}
		if err != nil {
			return outcome{stop: "the model call failed"}, err
		}
		if end, err := c.take(ctx, r); end != nil {
			return *end, err
		}
	}
}

// reply is one model call of a conversation and what the tool did with it:
// the call for the manifest, the cells run and their charts, and the
// answer or verdict given through a tool.
type reply struct {
	start    time.Time
	resp     *llm.Response
	call     ModelCall
	cellTime time.Duration // the cells' share of the turn

	ran, failed int
	charts      []kernel.Chart
	final       *outcome // final_answer, taken
	verdict     *outcome // accept
	err         error    // why the run stopped
}

// notRun is the tool message of a call the run did not get to.
const notRun = "not run: the run stopped"

// ask makes the turn's model call.
func (c *convo) ask(ctx context.Context) (*reply, error) {
	a := c.agent
	r := &reply{start: time.Now()}
	req, window, condensed := a.request(c.reflect)
	resp, err := a.Client.Chat(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	a.ctx.observe(req.Messages, resp)
	c.ans.Turns++
	r.resp = resp
	r.call = ModelCall{Phase: c.phase, Turn: c.turn, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
		DurationMS: units.Millis(resp.Duration), FinishReason: resp.FinishReason, ToolCalls: len(resp.Message.ToolCalls),
		Truncated: resp.Truncated(), Overrun: resp.Overrun != nil, ContextWindow: window, Condensed: condensed}
	a.event(TurnEvent{Phase: c.phase, Turn: c.turn, Tokens: r.call.PromptTokens + r.call.CompletionTokens})
	return r, nil
}

// take acts on the model's reply: tool calls, fenced code, or text (an
// answer, a verdict, or neither). It returns how the conversation ends,
// nil when it goes on to the next turn.
func (c *convo) take(ctx context.Context, r *reply) (*outcome, error) {
	a := c.agent
	msg := r.resp.Message
	msg.Role = llm.RoleAssistant
	if r.resp.Truncated() {
		c.record(r)
		if stop, err := a.truncated(c, msg, r.resp); stop != "" {
			return &outcome{stop: stop}, err
		}
		return nil, nil
	}
	c.truncations = 0
	a.add(msg, false)
	if a.tools() && len(msg.ToolCalls) > 0 {
		return c.toolCalls(ctx, r, msg.ToolCalls)
	}
	text := msg.Content
	if c.reflect && textVerdict(text) == "revise" {
		c.reason = reviseReason(text)
	}
	if blocks := codeBlocks(text); len(blocks) > 0 {
		// Fenced code runs in either mode: a tools-mode model that
		// writes a block instead of a call still gets it run.
		return c.fencedCode(ctx, r, blocks)
	}
	c.record(r)
	return c.text(text), nil
}

// toolCalls answers each tool call of a reply with its tool message.
func (c *convo) toolCalls(ctx context.Context, r *reply, calls []llm.ToolCall) (*outcome, error) {
	for _, tc := range calls {
		content := c.toolCall(ctx, r, tc)
		c.agent.add(llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: content}, true)
	}
	if r.err != nil {
		return c.stopped(r)
	}
	end := r.final
	if end == nil && r.verdict != nil && r.ran == 0 {
		end = r.verdict
	}
	return c.settle(r, end), nil
}

// toolCall does what one tool call asks and returns the tool message.
func (c *convo) toolCall(ctx context.Context, r *reply, tc llm.ToolCall) string {
	switch {
	case r.err != nil:
		return notRun
	case tc.Name == toolRunPython.Name:
		code, err := parseRunPython(tc.Arguments)
		if err != nil {
			return err.Error()
		}
		fb, _, err := c.run(ctx, r, code, false)
		if err != nil {
			return notRun
		}
		return fb
	case tc.Name == toolFinalAnswer.Name:
		return c.finalAnswer(r, tc.Arguments)
	case c.reflect && tc.Name == toolAccept.Name:
		r.verdict = &outcome{accepted: true, note: reasonOf(tc.Arguments)}
		return "verdict recorded: accepted"
	case c.reflect && tc.Name == toolRevise.Name:
		c.reason = clip.Runes(reasonOf(tc.Arguments), maxReasonRunes)
		return "noted. Now fix it: run code with run_python (redraw the chart, recompute), then give the answer again with final_answer."
	}
	names := "run_python(code) and final_answer(answers, summary)"
	if c.reflect {
		names += ", accept(reason) and revise(reason)"
	}
	return fmt.Sprintf("unknown tool %q: the tools are %s", tc.Name, names)
}

// finalAnswer takes final_answer's answer (r.final) or says why not.
func (c *convo) finalAnswer(r *reply, args string) string {
	vs, summary, err := parseFinalAnswer(args)
	if err != nil {
		return err.Error()
	}
	o, pushBack := c.answer(vs, summary)
	if pushBack != "" {
		return "not recorded: " + pushBack + " Use run_python, then call final_answer."
	}
	r.final = &o
	return "answer recorded: " + FormatAnswers(vs)
}

// fencedCode runs a reply's fenced blocks in order, up to the first that
// fails, and sends their output back as one user message.
func (c *convo) fencedCode(ctx context.Context, r *reply, blocks []string) (*outcome, error) {
	var parts []string
	for i, code := range blocks {
		fb, failed, err := c.run(ctx, r, code, true)
		if err != nil {
			return c.stopped(r)
		}
		parts = append(parts, fmt.Sprintf("block %d:\n%s", i+1, fb))
		if failed {
			if i+1 < len(blocks) {
				parts = append(parts, fmt.Sprintf("blocks %d to %d were not run because block %d failed.", i+2, len(blocks), i+1))
			}
			break
		}
	}
	fb := "Output of your code:\n" + strings.Join(parts, "\n\n")
	if c.agent.tools() {
		fb += "\n\n(Your fenced code was run. Next time call run_python with the code.)"
	}
	c.agent.add(llm.Message{Role: llm.RoleUser, Content: fb}, true)
	return c.settle(r, nil), nil
}

// run executes one cell the model wrote, records it as a step of the
// answer and counts it in r, and returns the feedback for the model and
// whether the cell failed. An error stops the run (and is kept in r.err):
// the kernel could not run the cell, or died.
func (c *convo) run(ctx context.Context, r *reply, code string, fenced bool) (string, bool, error) {
	a := c.agent
	ex, err := a.Kernel.Execute(ctx, code, kernel.ExecOptions{Timeout: a.CellTimeout})
	if ex == nil {
		r.err = &SandboxError{Err: err}
		return "", true, r.err
	}
	r.cellTime += ex.Duration
	failed := ex.Status != kernel.StatusOK
	c.ans.Steps = append(c.ans.Steps, Step{Phase: c.phase, Turn: c.turn, Code: code, Exec: ex, Status: string(ex.Status), Failed: failed, Fenced: fenced})
	a.event(TurnEvent{Phase: c.phase, Turn: c.turn, Cell: true, Status: string(ex.Status)})
	if err != nil {
		r.err = err
		return "", failed, err
	}
	if ex.StateLost || ex.Status == kernel.StatusDied {
		r.err = &SandboxError{Err: fmt.Errorf("%s: the kernel stopped: %s", c.phase, ex.Cause)}
		return "", failed, r.err
	}
	r.ran++
	if failed {
		r.failed++
	}
	var charts []kernel.Chart
	if ex.Status == kernel.StatusOK {
		charts = ex.Charts()
	}
	r.charts = append(r.charts, charts...)
	fb := describeExecution(ex, a.vision(), a.Columns, a.ColumnsOf)
	tell := func(found string) bool { return a.tell(c.phase, c.turn, FindingChart, found) }
	if check := checkCharts(c.ans, c.phase, c.turn, charts, tell); check != "" {
		fb += "\n" + check
	}
	return fb, failed, nil
}

// stopped ends a conversation whose run stopped in a cell.
func (c *convo) stopped(r *reply) (*outcome, error) {
	c.record(r)
	return &outcome{stop: "the run stopped"}, r.err
}

// settle ends a reply whose cells ran: their charts go to a vision model
// and the call is recorded; then end (an answer or verdict the reply
// gave) stands if there is one, else the repair bound decides whether the
// conversation goes on (nil) or gives up.
func (c *convo) settle(r *reply, end *outcome) *outcome {
	c.agent.sendCharts(r.charts)
	c.record(r)
	if end != nil {
		return end
	}
	c.ans.Repairs += r.failed
	if r.ran > 0 && r.failed == r.ran {
		c.streak += r.failed
	} else if r.ran > 0 {
		c.streak = 0
	}
	if c.streak <= c.maxRepairs {
		return nil
	}
	if c.pending != nil {
		return c.pending
	}
	return &outcome{stop: fmt.Sprintf("gave up after %d failed cells in a row (repair bound %d)", c.streak, c.maxRepairs)}
}

// record adds the turn's model call to the answer, with the tool's own
// time in it: everything but the model call and the cells.
func (c *convo) record(r *reply) {
	r.call.OverheadMS = units.Millis(time.Since(r.start) - r.resp.Duration - r.cellTime)
	c.ans.Calls = append(c.ans.Calls, r.call)
}

// text takes a reply with neither tool calls nor code: an accepting
// verdict or an answer ends the conversation; else the model is asked
// again, to state a verdict (once) or to go on.
func (c *convo) text(text string) *outcome {
	a := c.agent
	v := textVerdict(text)
	if c.reflect && v == "accept" {
		return &outcome{accepted: true, note: strings.TrimSpace(text)}
	}
	if vs := ParseAnswers(text); len(vs) > 0 {
		o, pushBack := c.answer(vs, text)
		if pushBack == "" {
			return &o
		}
		a.add(llm.Message{Role: llm.RoleUser, Content: pushBack + " Write the code in a ```python block."}, false)
		return nil
	}
	var nudge string
	switch {
	case c.reflect && v == "" && !c.restated:
		c.restated = true
		c.ans.Restatements++
		nudge = "Your reply did not state a verdict, so the chart is not accepted. "
		if a.tools() {
			nudge += "Call accept(reason) if the charts and the answer are right, or revise(reason) and then fix them (run_python, then final_answer)."
		} else {
			nudge += "Start your reply with the line VERDICT: ACCEPT (then one line why) if the charts and the answer are right, " +
				"or VERDICT: REVISE (then what is wrong), followed by the ```python code that fixes it."
		}
	case c.reflect && v == "":
		return &outcome{stop: "no clear verdict after a request to restate: " + clip.Bytes(strings.TrimSpace(text), 300)}
	case a.tools():
		nudge = "Continue: call run_python to compute what you need, or final_answer with the named values and a summary."
	default:
		nudge = "Continue: write Python in a ```python block to compute what you need, or, when done, reply with no code: the answer as @name[value] pairs and two or three sentences."
	}
	a.add(llm.Message{Role: llm.RoleUser, Content: nudge}, false)
	return nil
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
