package pipeline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A dataset with an emoji in a column name and Chinese and Japanese values:
// the run's charts draw them without a word about fonts anywhere in the
// notebook or the report (Matplotlib's "Glyph ... missing from font(s)"
// warnings used to land in both, naming the driver's path).
func TestRunWithCJKAndEmojiSaysNothingAboutFonts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("店舗 🏪,地域,売上 💴\n")
	stores := []string{"東京本店", "大阪支店", "名古屋", "札幌 ❄️", "福岡"}
	for i := range 200 {
		fmt.Fprintf(&b, "%s,%s,%d\n", stores[i%len(stores)], []string{"関東", "関西", "北海道"}[i%3], 100+i*7%50)
	}
	data := filepath.Join(dir, "店舗.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, options(t, data, filepath.Join(dir, "out")))

	charts := 0
	for i, c := range res.Notebook.Cells {
		for _, o := range c.Outputs {
			if _, ok := o.Data["image/png"]; ok {
				charts++
			}
			text := o.Text + o.EValue + strings.Join(o.Traceback, "\n")
			for _, v := range o.Data {
				text += string(v)
			}
			for _, w := range []string{"Glyph", "missing from font", "findfont"} {
				if strings.Contains(text, w) {
					t.Errorf("cell %d (%s): %s output mentions %q:\n%.2000s", i, firstLine(c.Source), o.OutputType, w, text)
				}
			}
		}
	}
	if charts == 0 {
		t.Fatal("the run drew no charts: nothing was checked")
	}
	report, err := os.ReadFile(res.Files.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Glyph", "missing from font", "findfont"} {
		if strings.Contains(string(report), w) {
			t.Errorf("report mentions %q", w)
		}
	}
	if !strings.Contains(string(report), "店舗 🏪") {
		t.Error("report does not show the column name 店舗 🏪")
	}
}
