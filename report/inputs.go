package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/units"
)

// inputsView is a folder dataset's files as the Data section lists them.
type inputsView struct {
	Folder, Digest, Main, Summary string
	Files                         []inputView
}

type inputView struct {
	Path, Kind, Format, Where, Shape, Size, SizeTitle, SHA256, Short string
	// Code says Where is code (how to reach the file in the kernel), not why
	// it was left out.
	Code bool
}

func buildInputs(in *Inputs) *inputsView {
	if in == nil {
		return nil
	}
	v := &inputsView{Folder: in.Folder, Digest: in.Digest, Main: in.Main}
	count := map[string]int{}
	for _, f := range in.Files {
		count[f.Kind]++
		iv := inputView{Path: f.Path, Kind: f.Kind, Format: f.Format, Size: units.Rounded(f.Bytes), SizeTitle: groupDigits(f.Bytes) + " bytes",
			SHA256: f.SHA256, Short: short(f.SHA256, 12)}
		switch f.Kind {
		case eda.InputTable:
			iv.Where, iv.Code = "tables["+strconv.Quote(f.Table)+"]", true
			if f.Rows > 0 || f.Columns > 0 {
				iv.Shape = groupDigits(int64(f.Rows)) + " × " + groupDigits(int64(f.Columns))
			}
		case eda.InputDocument:
			iv.Where, iv.Code = "read_doc("+strconv.Quote(f.Path)+")", true
			if f.Format == "markdown" {
				iv.Shape = fmt.Sprintf("%d heading(s)", f.Headings)
			}
		default:
			iv.Where, iv.Size = f.Reason, ""
		}
		v.Files = append(v.Files, iv)
	}
	var parts []string
	for _, k := range []struct{ kind, one, many string }{
		{eda.InputTable, "table", "tables"}, {eda.InputDocument, "document", "documents"},
		{eda.InputSkipped, "skipped", "skipped"}, {eda.InputIgnored, "ignored", "ignored"}, //houserules:literal the words of a count
	} {
		switch n := count[k.kind]; n {
		case 0:
		case 1:
			parts = append(parts, "1 "+k.one)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, k.many))
		}
	}
	v.Summary = strings.Join(parts, ", ")
	return v
}
