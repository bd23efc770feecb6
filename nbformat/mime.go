package nbformat

// Mime types of output bundles: the one place their names are written in
// Go. The kernel's driver writes the same names in Python (MIME_* in
// kernel/driver/analyst_driver.py); a test in package kernel checks that the
// two lists agree.
const (
	MimePlain      = "text/plain"
	MimeHTML       = "text/html"
	MimeMarkdown   = "text/markdown"
	MimeLaTeX      = "text/latex"
	MimePNG        = "image/png"
	MimeJPEG       = "image/jpeg"
	MimeGIF        = "image/gif"
	MimeWebP       = "image/webp"
	MimeSVG        = "image/svg+xml"
	MimeJSON       = "application/json"
	MimeJavaScript = "application/javascript"
	// MimePlotly is a plotly figure's JSON.
	MimePlotly = "application/vnd.plotly.v1+json"
	// MimeChart is analyst's description of a chart (kind, title, axes,
	// series with their data), beside its PNG.
	MimeChart = "application/vnd.analyst.chart+json"
	// MimeProfile is the profile cell's output: the profile as JSON, read
	// back by the run (eda.ProfileFromData).
	MimeProfile = "application/vnd.analyst.profile+json"
	// MimeRelationships is the relationships cell's output: the tables
	// together (keys, relationships, orphans), read back by the run
	// (eda.RelationshipsFromData).
	MimeRelationships = "application/vnd.analyst.relationships+json"
	// MimeAnalystPrefix starts every mime type analyst defines (these, and
	// eda's sketch and changes).
	MimeAnalystPrefix = "application/vnd.analyst."
)
