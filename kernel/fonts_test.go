package kernel_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/kernel"
)

// fontWarnings are what Matplotlib prints when a font lacks a glyph
// ("Glyph 19996 (\N{CJK UNIFIED IDEOGRAPH-4E1C}) missing from font(s)
// DejaVu Sans.") or cannot find a family ("findfont: Font family ...").
var fontWarnings = []string{"Glyph", "missing from font", "findfont"}

// Charts draw Chinese, Japanese and emoji text with real glyphs, not the
// box a font without them draws, and say nothing about fonts while doing
// it. Tofu boxes all look alike, so two different characters drawing the
// same picture means neither was drawn.
func TestChartsDrawCJKAndEmoji(t *testing.T) {
	k := startKernel(t, nil)
	labels := []string{"東", "京", "ア", "🙂", "🏪"}
	draw := func(family string) string {
		return fmt.Sprintf(`
import matplotlib.pyplot as plt
for label in %s:
    fig = plt.figure(figsize=(1, 1), dpi=50)
    fig.text(0.5, 0.5, label, ha="center", va="center", fontsize=30%s)
`, pyList(labels), family)
	}
	ex := run(t, k, draw(""))
	if ex.Status != kernel.StatusOK {
		t.Fatalf("cell: %s %v", ex.Status, ex.Error)
	}
	for _, o := range ex.Outputs {
		text := o.Text
		if s, ok := o.DataString("text/plain"); ok {
			text += s
		}
		for _, w := range fontWarnings {
			if strings.Contains(text, w) {
				t.Errorf("%s output mentions %q:\n%s", o.OutputType, w, text)
			}
		}
	}
	ours := pixels(t, ex, len(labels))
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			if bytes.Equal(ours[i], ours[j]) {
				t.Errorf("%s and %s draw the same picture: a missing-glyph box?", labels[i], labels[j])
			}
		}
	}

	// The same text in DejaVu Sans alone, which has none of these glyphs:
	// the boxes (and the warnings) the kernel's fallback fonts avoid.
	ref := run(t, k, "import warnings\nwarnings.simplefilter('ignore')\n"+draw(`, family="DejaVu Sans"`))
	boxes := pixels(t, ref, len(labels))
	if !bytes.Equal(boxes[0], boxes[1]) {
		t.Fatalf("reference: DejaVu Sans draws %s and %s differently; the test no longer knows what a box looks like", labels[0], labels[1])
	}
	for i, l := range labels {
		if bytes.Equal(ours[i], boxes[i]) {
			t.Errorf("%s is drawn as DejaVu Sans's missing-glyph box", l)
		}
	}
}

// pixels decodes the cell's n chart images to their grey levels.
func pixels(t *testing.T, ex *kernel.Execution, n int) [][]byte {
	t.Helper()
	charts := ex.Charts()
	if len(charts) != n {
		t.Fatalf("%d charts, want %d", len(charts), n)
	}
	var out [][]byte
	for i, c := range charts {
		img, err := png.Decode(bytes.NewReader(c.PNG))
		if err != nil {
			t.Fatalf("chart %d: %v", i, err)
		}
		out = append(out, grey(img))
	}
	return out
}

func grey(img image.Image) []byte {
	b := img.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			out = append(out, byte((r+g+bl)/3>>8))
		}
	}
	return out
}
