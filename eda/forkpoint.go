package eda

import "fmt"

// StageIndependent is the stage before independent questions (analyst run
// --independent): each is answered in a session forked from the kernel as
// it is after it.
const StageIndependent = "independent-questions"

// TagForkPoint tags the first cell of an independent question's section,
// where its session was forked.
const TagForkPoint = "fork-point"

var forkPointPy = pyFile("fork_point.py")

const summaryForkPoint = "Fork points: each question below starts from the state here, in its fork or, run top to bottom, from a copy."

// IndependentQuestions defines the function each independent question's
// section begins with (ForkPointCode), which makes the notebook re-run top
// to bottom (Jupyter, nbconvert, analyst verify) to what the forks showed.
func IndependentQuestions() Stage {
	return Stage{Name: StageIndependent, Title: "Independent questions", Cells: []Cell{
		Markdown("The questions below are independent: analyst answered each in a session of its own, forked from " +
			"the kernel as it is at this point, so each saw what the cells above made and nothing another question " +
			"did. Run top to bottom, each question's first cell puts back that state (the globals, data frames " +
			"copied whole, and Matplotlib's settings) and seeds the random generators as its session was seeded. " +
			"What it cannot put back: a module's attributes or a library's options a question changed, and files it wrote."),
		Plumbing(summaryForkPoint, Code(forkPointPy)),
	}}
}

// ForkPointCode is the first cell of an independent question's section,
// answered in a session seeded with seed that kept its files in area
// ("/output/question-2"; "" for none).
func ForkPointCode(seed int64, area string) string {
	if area == "" {
		return fmt.Sprintf("_analyst_fork_point(%d)", seed)
	}
	return fmt.Sprintf("_analyst_fork_point(%d, %s)", seed, pyString(area))
}
