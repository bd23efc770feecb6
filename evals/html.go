package evals

import (
	"bytes"
	"fmt"
	"html"
	"io"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

const reportCSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1d1d1f}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #d0d0d5;padding:.3em .6em}
th{background:#f2f2f5}td{vertical-align:top}code{background:#f2f2f5;padding:0 .2em}h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em}`

// WriteHTML writes report.html: report.md as one self-contained page (no
// scripts, no requests; raw HTML in the markdown is not passed through),
// with a row per case instead of the failures only, linking to the case's
// notebook and report under cases/.
func (s *Summary) WriteHTML(w io.Writer, rs []Result) error {
	var body bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert([]byte(s.markdown(rs, true)), &body); err != nil {
		return fmt.Errorf("rendering the report: %w", err)
	}
	_, err := fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"+
		"<title>analyst eval: %s</title><style>%s</style></head>\n<body>\n%s</body></html>\n",
		html.EscapeString(s.Suite), reportCSS, body.String())
	return err
}
