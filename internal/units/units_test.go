package units

import "testing"

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512MiB", 512 << 20, true},
		{"2g", 2 << 30, true},
		{"1.5GB", 3 << 29, true},
		{"1048576", 1 << 20, true},
		{" 64 mb ", 64 << 20, true},
		{"", 0, false},
		{"-1g", 0, false},
		{"lots", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestBytes(t *testing.T) {
	for in, want := range map[int64]string{100: "100 B", 2048: "2 KiB", 512 << 20: "512 MiB", 3 << 29: "1.5 GiB"} {
		if got := Bytes(in); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestFlag(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GiB", 1<<30 + 1: "2GiB", 24 << 30: "24GiB", 600 << 20: "600MiB", 600<<20 + 1: "601MiB"} {
		if got := Flag(n); got != want {
			t.Errorf("Flag(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseBytes(Flag(n)); err != nil || back < n {
			t.Errorf("ParseBytes(Flag(%d)) = %d, %v: want at least n", n, back, err)
		}
	}
}

func TestRounded(t *testing.T) {
	for in, want := range map[int64]string{100: "100 B", 1023: "1023 B", 1536 << 10: "1.5 MiB", 512 << 20: "512 MiB", 12345 << 10: "12 MiB"} {
		if got := Rounded(in); got != want {
			t.Errorf("Rounded(%d) = %q, want %q", in, got, want)
		}
	}
}
