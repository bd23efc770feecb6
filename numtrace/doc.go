// Package numtrace finds where the numbers a model states come from.
//
// Extract reads every number a text states as a claim (prose or markdown:
// "12.3%", "1,234", "$1.2k", "1.2 million", "−5", "1.2e-5", both ends of
// "10–20%"), leaving out what is not a claim (list markers, references
// like "cell 3", dates, identifiers, code, numbers the question gave).
// Find looks each one up in the outputs of a run's cells, with the rounding
// a writer applies (a stated 12.3% is shown by an output 0.1234; a stated
// integer only by the same integer), and names the latest cell that shows
// it. A number no cell shows is untraced: the model said it, no code
// computed it.
//
//	sources := numtrace.CellSources(nb, func(i int, c *nbformat.Cell) string { return c.ID })
//	for _, t := range numtrace.Find(numtrace.Extract(answer, question), sources) {
//		if !t.Found { ... t.Text is not traced to any cell ... }
//	}
package numtrace
