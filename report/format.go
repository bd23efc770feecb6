package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// groupDigits writes 1234567 as "1,234,567".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// humanDuration is a duration for people: "850 ms", "4.2 s", "2 min 05 s",
// "1 h 03 min".
func humanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	default:
		m := int(d.Round(time.Minute).Minutes())
		return fmt.Sprintf("%d h %02d min", m/60, m%60)
	}
}

// percent writes a share in [0, 1]: "0%", "<0.1%", "12.5%", "100%".
func percent(share float64) string {
	switch {
	case math.IsNaN(share) || share <= 0:
		return "0%"
	case share >= 1:
		return "100%"
	case share < 0.001:
		return "<0.1%"
	case share > 0.999:
		return ">99.9%"
	}
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// short cuts an identifier (a hash, an image id) to n characters.
func short(s string, n int) string {
	s = strings.TrimPrefix(s, "sha256:")
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// slug makes an id fragment: lowercase letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
