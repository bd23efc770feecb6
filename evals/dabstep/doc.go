// Package dabstep reads the DABstep benchmark (Adyen's Data Agent Benchmark
// for Multi-step Reasoning) as its dataset repository lays it out, writes
// the submission file its leaderboard takes, and scores answers exactly as
// its official question_scorer does: Python's Unicode strip, lower and \w,
// Python float(), repr, round and math.isclose, and difflib's
// SequenceMatcher ratio with its popular-element heuristic. The scorer's
// quirks are kept on purpose (a sign is not part of a number, so "-0.5"
// matches "0.5"): a score here is the score the leaderboard gives.
package dabstep
