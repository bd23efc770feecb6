package clip

import "testing"

func TestRunes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"}, {"exactly", 7, "exactly"}, {"a longer text", 5, "a lo…"}, {"café au lait", 4, "caf…"}, {"x", 0, ""},
	} {
		if got := Runes(tt.s, tt.n); got != tt.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"}, {"abcdef", 3, "abc… [3 more characters]"},
		{"aé", 2, "a… [2 more characters]"}, // é is two bytes: the cut does not split it
	} {
		if got := Bytes(tt.s, tt.n); got != tt.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
