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

func TestRounded(t *testing.T) {
	for in, want := range map[int64]string{100: "100 B", 1023: "1023 B", 1536 << 10: "1.5 MiB", 512 << 20: "512 MiB", 12345 << 10: "12 MiB"} {
		if got := Rounded(in); got != want {
			t.Errorf("Rounded(%d) = %q, want %q", in, got, want)
		}
	}
}
