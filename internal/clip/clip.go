// Package clip shortens text on rune boundaries: for people (Runes) and for
// the model, which is told how much it does not see (Bytes).
package clip

import (
	"fmt"
	"unicode/utf8"
)

// Runes cuts s to at most n runes, the last an ellipsis when it was cut.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Bytes shortens s to at most n bytes (on a rune boundary), marking the cut
// with how much was left out: "… [N more characters]".
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more characters]", len(s)-cut)
}
