package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/analyst-cli/analyst/llm"
)

// Bounds of the key findings.
const (
	MinKeyFindings = 3
	MaxKeyFindings = 7
)

// Ranking is the model's choice of the key findings.
type Ranking struct {
	Prompt string `json:"prompt"`
	// Order lists the chosen findings, most important first, by their
	// index (from 0) in the list ranked.
	Order []int `json:"order"`
	// Note says why the findings are in goal order instead, "" when the
	// model's ranking was used.
	Note  string      `json:"note,omitempty"`
	Calls []ModelCall `json:"calls,omitempty"`
}

// RankFindings asks the model, in one call of its own, which of the
// findings matter most: 3 to 7 of them, most important first (with 3 or
// fewer, all of them in its order). With a single finding, or a reply that
// cannot be read, the findings are kept in their order (at most
// MaxKeyFindings), with a Note.
func (a *Agent) RankFindings(ctx context.Context, phase string, findings []string) (*Ranking, error) {
	r := &Ranking{}
	inOrder := func(note string) *Ranking {
		r.Order = nil
		for i := range findings {
			if i < MaxKeyFindings {
				r.Order = append(r.Order, i)
			}
		}
		r.Note = note
		return r
	}
	if len(findings) < 2 {
		return inOrder(""), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "These are the findings of the analysis of the dataset, numbered:\n")
	for i, f := range findings {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.ReplaceAll(strings.TrimSpace(f), "\n", " "))
	}
	if len(findings) <= MinKeyFindings {
		b.WriteString("\nOrder them all by importance for a reader of this data, most important first. ")
	} else {
		fmt.Fprintf(&b, "\nChoose the %d to %d most important for a reader of this data, most important first. ",
			MinKeyFindings, min(MaxKeyFindings, len(findings)))
	}
	b.WriteString(`Reply with only this JSON, nothing else: {"key_findings": [numbers from the list]}`)
	r.Prompt = b.String()
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a careful data analyst who reports what matters most in an analysis."},
		{Role: llm.RoleUser, Content: r.Prompt},
	}
	resp, call, err := a.chatOnce(ctx, phase, 1, msgs, nil)
	if call != nil {
		r.Calls = append(r.Calls, *call)
	}
	if err != nil {
		return inOrder("the model call failed: " + FailureText(err) + "; the findings are in goal order"), err
	}
	order, perr := parseRanking(resp.Message.Content, len(findings))
	if perr != nil {
		return inOrder("the model's ranking could not be read (" + perr.Error() + "); the findings are in goal order"), nil
	}
	if len(findings) <= MinKeyFindings {
		// All of them are key: the ones the model left out follow.
		for i := range findings {
			if !slices.Contains(order, i) {
				order = append(order, i)
			}
		}
	}
	r.Order = order
	return r, nil
}

// parseRanking reads {"key_findings": [2, 1, 4]} (or a bare list) of
// 1-based numbers into 0-based indexes, unique, in range, at most
// MaxKeyFindings.
func parseRanking(text string, n int) ([]int, error) {
	raw, err := ExtractJSON(text)
	if err != nil {
		return nil, err
	}
	var nums []json.Number
	if json.Unmarshal(raw, &nums) != nil {
		var obj struct {
			KeyFindings []json.Number `json:"key_findings"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.KeyFindings == nil {
			return nil, errors.New(`the JSON has no "key_findings" list of numbers`)
		}
		nums = obj.KeyFindings
	}
	var order []int
	seen := map[int]bool{}
	for _, s := range nums {
		v, err := s.Int64()
		if err != nil || v < 1 || int(v) > n {
			return nil, fmt.Errorf("%s is not a number from 1 to %d", s, n)
		}
		if i := int(v) - 1; !seen[i] && len(order) < MaxKeyFindings {
			seen[i] = true
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return nil, errors.New("no finding was chosen")
	}
	return order, nil
}
