package pipeline

import "testing"

func TestFitsInMemory(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int64
		limit int64
		fits  bool
	}{
		{"sales.csv", 36 << 20, 2 << 30, true},      // 1M rows: 180 MiB
		{"sales.csv", 529e6, 2 << 30, false},        // 8M rows: died at 2 GiB (issue 15)
		{"sales.csv", 66e6, 300 << 20, false},       // 1M rows under 300 MiB
		{"sales.csv.gz", 100 << 20, 2 << 30, false}, // gzip: 4 times more
		{"sales.csv", 100 << 20, 2 << 30, true},
	} {
		est, fits := fitsInMemory(&Input{Name: c.name, Bytes: c.bytes}, c.limit)
		if fits != c.fits {
			t.Errorf("%s of %d bytes under %d: estimate %d, fits %v, want %v", c.name, c.bytes, c.limit, est, fits, c.fits)
		}
	}
}

func TestParseOutOfCore(t *testing.T) {
	for in, want := range map[string]string{"": OutOfCoreAuto, "auto": OutOfCoreAuto, "TRUE": OutOfCoreOn, "on": OutOfCoreOn, "false": OutOfCoreOff, "no": OutOfCoreOff} {
		if got, err := ParseOutOfCore(in); err != nil || got != want {
			t.Errorf("ParseOutOfCore(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseOutOfCore("sometimes"); err == nil {
		t.Error("ParseOutOfCore(sometimes): no error")
	}
}
