// Package agent is the analyst model loop: it asks a language model a
// question about a loaded dataset, runs the code the model writes through an
// Executor (the sandboxed kernel, or a fake in tests of the loop alone),
// feeds the results back, and parses the named answers. It knows nothing of
// EDA stages, notebooks or reports: `analyst run` (package pipeline) and
// `analyst eval` (package evals) both drive it.
package agent
