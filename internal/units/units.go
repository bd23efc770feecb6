// Package units reads and writes byte sizes the way podman and people do
// (binary units, "512MiB", "2g", "1.5 GiB"), and durations as the
// milliseconds run.json records.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bytes renders n in binary units: "512 MiB", "1.5 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.4g %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Rounded renders n in binary units for reading at a glance: one decimal
// below 10 ("1.4 MiB"), none above ("512 MiB"). Bytes keeps four digits.
func Rounded(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	names := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(names)-1 {
		v /= 1024
		u++
	}
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, names[u])
	}
	return fmt.Sprintf("%.0f %s", v, names[u])
}

// ParseBytes reads a size such as "512MiB", "2g", "1.5GB" or "1048576".
// Units are binary (k = KiB), as podman reads them.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffixes []string
		mult     int64
	}{
		{[]string{"tib", "tb", "t"}, 1 << 40},
		{[]string{"gib", "gb", "g"}, 1 << 30},
		{[]string{"mib", "mb", "m"}, 1 << 20},
		{[]string{"kib", "kb", "k"}, 1 << 10},
		{[]string{"b"}, 1},
	} {
		found := false
		for _, suf := range u.suffixes {
			if strings.HasSuffix(t, suf) {
				t, mult, found = strings.TrimSpace(strings.TrimSuffix(t, suf)), u.mult, true
				break
			}
		}
		if found {
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*float64(mult) > float64(math.MaxInt64) {
		return 0, fmt.Errorf("invalid size %q: use a number with an optional unit, like 512MiB or 2GiB", s)
	}
	return int64(f * float64(mult)), nil
}

// Millis is d in milliseconds with microsecond precision, as run.json and
// the event stream record durations.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Flag renders n, rounded up to a whole GiB (to a whole MiB below 1 GiB),
// as a flag value ParseBytes reads: "24GiB", "640MiB".
func Flag(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%dGiB", (n+1<<30-1)>>30)
	}
	return fmt.Sprintf("%dMiB", (n+1<<20-1)>>20)
}
