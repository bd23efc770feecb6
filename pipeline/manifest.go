package pipeline

import (
	"time"

	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/seccomp"
	"github.com/analyst-cli/analyst/runrecord"
)

func (r *runner) manifest(charts []string) *runrecord.Record {
	m := &runrecord.Record{
		AnalystVersion: r.opts.AnalystVersion,
		Driver:         kernel.DriverHash(),
		Seccomp:        seccomp.Hash(),
		Image:          r.opts.ImageID,
		Runtime:        r.opts.Runtime,
		Rootless:       r.opts.Kernel.Rootless,
		Versions:       r.opts.Versions,
		Data:           runrecord.Data{Name: r.in.Name, Path: r.in.Path, SHA256: r.in.SHA256, Bytes: r.in.Bytes},
		Occasion:       runrecord.Occasion{Started: r.started.UTC(), DurationMS: units.Millis(time.Since(r.started)), StagesMS: map[string]float64{}},
		Limits:         r.opts.Kernel.Enforcement(),
		Failure:        r.failure,
		Outputs: runrecord.Outputs{Notebook: r.name + ".ipynb", Report: r.name + ".html", Charts: charts,
			CodeFiles: r.outputFiles()},
	}
	m.Inputs = r.ds.Inputs()
	if r.profile != nil {
		m.Data.Rows, m.Data.Columns, m.Data.Format = r.profile.Rows, r.profile.Columns, r.profile.Load.Format
		m.Data.OutOfCore = r.profile.OutOfCore
	}
	if r.ooc != nil && r.ooc.Estimate > 0 {
		m.Data.MemoryEstimate, m.Data.MemoryLimit = r.ooc.Estimate, r.ooc.Limit
	}
	r.manifestTables(&m.Data)
	for _, s := range r.stages {
		m.Stages = append(m.Stages, runrecord.Stage{Name: s.Name, Title: s.Title, Status: s.Status, Lead: s.Lead})
		m.Occasion.StagesMS[s.Name] = units.Millis(s.Duration)
	}
	if rate, ok := r.loadRate(); ok {
		m.Occasion.LoadMBPerS = &rate
	}
	m.Model = r.manifestModel()
	m.Asked, m.Questions, m.Independent = r.opts.Questions, r.answers, r.opts.Independent && len(r.opts.Questions) > 0
	m.Occasion.ModelCalls = modelCallTimes(r.answers)
	if r.opts.Rerun != nil {
		m.Rerun = r.opts.Rerun.Record()
	}
	m.Exploration = r.exploration
	m.Sketch, m.Baseline, m.KeyChanges = r.sketch, r.baselineRecord(), r.keyChanges
	if r.opts.Recorder != nil {
		m.Replies = r.opts.Recorder.Recording()
	}
	return m
}

// outputFiles are the files the code copied out of the kernel's /output
// into NAME_files.
func (r *runner) outputFiles() []runrecord.CodeFile {
	if r.k == nil {
		return nil
	}
	var files []runrecord.CodeFile
	for _, f := range r.k.OutputFiles() {
		files = append(files, runrecord.CodeFile{Name: f.Name, Bytes: f.Bytes})
	}
	return append(files, r.sessionFiles...)
}
