package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/audit"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/report"
	"github.com/analyst-cli/analyst/runrecord"
)

// MaxIndependentAtOnce bounds the independent questions answered at once,
// each in its own forked session with its own model conversation.
const MaxIndependentAtOnce = 4

// section is what answering one independent question made: a copy of the
// runner whose notebook is the run's so far plus the question's cells.
type section struct {
	r     *runner
	from  int // the cells before it: the run's notebook at the fork
	files []runrecord.CodeFile
	err   error
}

// askIndependent answers the questions as independent ones (--independent):
// each in a session forked from the kernel after the stages and the
// exploration, by a conversation of its own, MaxIndependentAtOnce at once
// (one at a time in a replay on new data, which follows the recorded cells
// in order). Their sections go into the notebook in the questions' order.
// A question that fails stops the others; its error is the run's (the
// others', stopped because of it, are interruptions, not the cause).
func (r *runner) askIndependent(ctx context.Context) error {
	if _, err := r.runStage(ctx, eda.IndependentQuestions()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if r.opts.Rerun != nil {
		// A replay on new data follows the recorded cells in order: one
		// question at a time, each in the notebook before the next forks.
		for i, q := range r.opts.Questions {
			if err := r.mergeSections([]*section{r.answerInFork(ctx, i+1, q)}); err != nil {
				return err
			}
		}
		return nil
	}
	jobs := min(len(r.opts.Questions), MaxIndependentAtOnce)
	sections := make([]*section, len(r.opts.Questions))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var first sync.Once
	var cause error // the failure that stopped the others, before they were stopped
	for i, q := range r.opts.Questions {
		sem <- struct{}{} // begun in order: those not begun are the last
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s := r.answerInFork(ctx, i+1, q)
			if s.err != nil {
				first.Do(func() { cause = s.err })
				cancel()
			}
			sections[i] = s
		}()
	}
	wg.Wait()
	if err := r.mergeSections(sections); cause == nil {
		return err
	}
	return cause
}

// answerInFork answers question n in a session forked for it, named and
// seeded after the question's stage, its files under NAME_files/question-N;
// its model calls are recorded as a stream of that name.
func (r *runner) answerInFork(ctx context.Context, n int, q string) *section {
	name := agent.StageQuestion(n)
	ctx = audit.WithStream(ctx, name)
	seed := kernel.ForkSeed(name)
	rr := *r
	rr.nb = r.nb.Branch(name)
	rr.stages, rr.answers, rr.agent = nil, nil, nil
	s := &section{r: &rr, from: len(r.nb.Cells)}
	fork, err := r.k.Fork(ctx, kernel.ForkOptions{Name: name, Seed: &seed, OutputDir: filepath.Join(r.out.filesDir(), name)})
	if err != nil {
		s.err = rr.modelStage(name, fmt.Sprintf("Question %d", n), func() (report.StageStatus, error) {
			if ctx.Err() != nil {
				return report.StatusInterrupted, ctx.Err()
			}
			return report.StatusError, &SandboxError{Err: fmt.Errorf("forking the session of question %d: %w", n, err)}
		})
		return s
	}
	defer fork.Close()
	rr.k, rr.session = fork, fork.Session()
	s.err = rr.askQuestion(ctx, rr.newAgent(), n, q)
	for _, f := range fork.OutputFiles() {
		s.files = append(s.files, runrecord.CodeFile{Name: name + "/" + f.Name, Bytes: f.Bytes})
	}
	return s
}

// enterSession begins an independent question's section with the cell
// that, run top to bottom, puts back the state its session was forked
// with (eda.ForkPointCode); nothing for follow-ups.
func (r *runner) enterSession(ctx context.Context, stage string) error {
	if r.session == nil {
		return nil
	}
	sr := &StageRunner{Kernel: r.k, Notebook: r.nb, Data: r.ds.Main, CellTimeout: r.cellTimeout()}
	st := eda.Stage{Name: stage, Cells: []eda.Cell{eda.Code(eda.ForkPointCode(r.session.Seed, r.session.OutputPath), eda.TagForkPoint)}}
	var res StageResult
	return sr.cells(ctx, st, nbformat.StageTag(stage), &res)
}

// mergeSections puts the sections' cells, stages, answers and files into
// the run in the questions' order, up to the first question without an
// answer (not begun, or its session not forked): the answers stay those of
// questions 1 to N.
func (r *runner) mergeSections(sections []*section) error {
	var first error
	for _, s := range sections {
		if s == nil {
			break
		}
		if first == nil {
			first = s.err
		}
		r.nb.Cells = append(r.nb.Cells, s.r.nb.Cells[s.from:]...)
		r.stages = append(r.stages, s.r.stages...)
		r.answers = append(r.answers, s.r.answers...)
		r.sessionFiles = append(r.sessionFiles, s.files...)
		if r.agent == nil && s.r.agent != nil {
			r.agent, r.system = s.r.agent, s.r.system // the mode and prompt run.json records
		}
		if len(s.r.answers) == 0 {
			break
		}
	}
	return first
}
