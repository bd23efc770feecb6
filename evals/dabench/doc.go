// Package dabench scores answers the way InfiAgent-DABench's official
// scorer (examples/DA-Agent/eval_closed_form.py) does, to the byte: the
// @name[value] extraction with Python's Unicode \w, Python float()
// semantics, the response selection and the rounded ABQ, PSAQ and UASQ with
// their per-concept breakdowns. It also reads and writes DABench's files
// (questions, labels, responses).
package dabench
