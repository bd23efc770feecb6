// Package pipeline runs an analysis as stages (profile, distributions, visualization, reflection) against one kernel. Not written yet: see the issue for analyst run.
package pipeline
