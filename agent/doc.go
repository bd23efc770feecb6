// Package agent is the analyst model loop: it asks a language model a
// question about a loaded dataset, runs the code the model writes through an
// Executor (the sandboxed kernel, or a fake in tests of the loop alone),
// feeds the results back (with checks of the charts it drew), and parses the
// named answers; for an exploration without a question it asks for analysis
// goals from the profile and ranks the findings. It knows nothing of
// EDA stages, notebooks or reports: `analyst run` (package pipeline) and
// `analyst eval` (package evals) both drive it.
package agent
