package agent

import "fmt"

// Replay is a recorded run the agent plays again on new data (analyst
// replay --data): the model's replies are the recorded ones, in order, so
// the model hears nothing new. The checks that make a run ask the model
// again — an answer with numbers no output shows or no code behind it, a
// chart that fails the chart checks, a reflection round on the answer's
// charts, the conversation going on — still run on the new data, but the
// model is asked again only where the recorded run asked it, and what a
// check found is recorded as a Finding instead of told. Agent.askAgain and
// Agent.tell are the one place where this is decided.
type Replay interface {
	// Following is false once no recording is followed any more (a live
	// model took over from a failing cell, --model): the checks decide
	// then, as in a run.
	Following() bool
	// Asked says whether the recorded run asked the model again in phase
	// after the reply of turn: whether its next model call is turn+1 of
	// phase (turn 0: whether it opened a conversation of phase next).
	Asked(phase string, turn int) bool
	// Found records what a check found on the new data.
	Found(Finding)
}

// Finding is what a check found in a replay on new data, at a point where a
// run would tell the model (or would ask it again, or would not, where the
// recorded run did).
type Finding struct {
	Phase string `json:"phase"`
	Turn  int    `json:"turn"`
	Check string `json:"check"` // Finding*
	Found string `json:"found"`
	// Asked is true where the recorded run asked the model again at this
	// point (so its recorded reply is played); false: the model was not
	// asked, and nothing was told.
	Asked bool `json:"asked"`
}

// The checks whose findings a replay on new data records.
const (
	// FindingUntraced: numbers of an answer that no cell's output shows.
	FindingUntraced = "untraced-numbers"
	// FindingNoCode: an answer given with no cell run without error for it.
	FindingNoCode = "no-code"
	// FindingChart: a chart that fails the chart checks (CheckChart).
	FindingChart = "chart"
	// FindingReflection: a reflection round on the charts of an answer.
	FindingReflection = "reflection"
	// FindingNextTurn: the conversation going on after a reply.
	FindingNextTurn = "next-turn"
	// FindingGoals: the screen of the exploration's goals (ProposeGoals).
	FindingGoals = "goal-screen"
)

// askAgain is the one place the agent decides whether to ask the model
// again in phase after the reply of turn (turn 0: whether to open a
// conversation of phase). want is what the checks decide; found is what
// check found on the data ("" nothing). In a run the checks decide. In a
// replay the recorded run decides, since only its replies can be played:
// what the check found is recorded, and so is a point where the checks and
// the recording part.
func (a *Agent) askAgain(phase string, turn int, want bool, check, found string) bool {
	if a.Replay == nil || !a.Replay.Following() {
		return want
	}
	asked := a.Replay.Asked(phase, turn)
	if found == "" && want != asked {
		found = "on the new data the model would not be asked here; the recorded run asked it"
		if want {
			found = "on the new data the model would be asked here; the recorded run did not ask it"
		}
	}
	if found != "" {
		a.Replay.Found(Finding{Phase: phase, Turn: turn, Check: check, Found: found, Asked: asked})
	}
	return asked
}

// tell says whether the model is told what check found in phase at turn,
// where telling it does not decide whether it is asked again (a chart
// check's feedback goes with the cell's output). In a replay on new data
// nothing reaches the model: the finding is recorded instead.
func (a *Agent) tell(phase string, turn int, check, found string) bool {
	if a.Replay == nil || !a.Replay.Following() {
		return true
	}
	a.Replay.Found(Finding{Phase: phase, Turn: turn, Check: check, Found: found})
	return false
}

// replayedNote is what the conversation holds where a replay asks the model
// again as the recorded run did although the new data gives its checks
// nothing to say (the recorded reply is played; a live model taking over
// later reads it).
const replayedNote = "Check the answer against the outputs of your code, then give it again."

// String says where a check found what, and whether the model was asked.
func (f Finding) String() string {
	where := f.Phase
	if f.Turn > 0 {
		where += fmt.Sprintf(", turn %d", f.Turn)
	}
	s := fmt.Sprintf("%s, %s: %s", where, f.Check, f.Found)
	if f.Asked {
		return s + " (the recorded run asked the model again here: its recorded reply is played)"
	}
	return s + " (not told to the model)"
}
