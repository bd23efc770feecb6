// Package report renders a run as one self-contained HTML file. Not written yet: see the issue for analyst run.
package report
