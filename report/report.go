package report

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/clip"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/nbformat"
)

//go:embed report.html.tmpl
var pageTemplateText string

//go:embed report.css
var pageCSS string

var pageTemplate = template.Must(template.Must(template.New("report").Parse(pageTemplateText)).Parse(relationshipsTemplateText))

// Render writes the report for in to w: one HTML file that needs nothing
// else, makes no network request and gives the same bytes for the same
// input. An error wrapping ErrKaTeX means in.KaTeXDir could not be used.
func Render(w io.Writer, in Input) error {
	p, err := buildPage(in)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if err := pageTemplate.Execute(bidiShown{bw, new(bool)}, p); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return bw.Flush()
}

// bidiControls are the Unicode controls that reorder the text around them
// (embeddings, overrides, isolates): in a file, table or column name they
// make the report show another name than the one the data has (U+202E
// turns "txt.exe" around). The report shows each as its code point, as
// text; inside a script (KaTeX's own source holds some) as the JavaScript
// escape that means the same character.
var bidiRunes = []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}

func bidiReplacer(format string) *strings.Replacer {
	var pairs []string
	for _, r := range bidiRunes {
		pairs = append(pairs, string(r), fmt.Sprintf(format, r))
	}
	return strings.NewReplacer(pairs...)
}

var (
	bidiInText   = bidiReplacer("[U+%04X]")
	bidiInScript = bidiReplacer(`\u%04X`)
)

// bidiShown writes through the replacers, knowing from the tags it writes
// whether it is inside a <script>. The template writes each piece of text
// and each value in one call, so neither a character nor a tag is split
// between calls.
type bidiShown struct {
	w        io.Writer
	inScript *bool
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (b bidiShown) Write(p []byte) (int, error) {
	s := string(p)
	for s != "" {
		tag := "<script"
		if *b.inScript {
			tag = "</script"
		}
		i := strings.Index(asciiLower(s), tag) // the same length as s, unlike strings.ToLower

		piece := s
		if i >= 0 {
			piece, s = s[:i+len(tag)], s[i+len(tag):]
		} else {
			s = ""
		}
		r := bidiInText
		if *b.inScript {
			r = bidiInScript
		}
		if _, err := r.WriteString(b.w, piece); err != nil {
			return 0, err
		}
		if i >= 0 {
			*b.inScript = !*b.inScript
		}
	}
	return len(p), nil
}

// WriteFile renders the report to path atomically: it writes a temporary
// file beside path and renames it over path, so a reader sees the old
// report or the new one, never half of one. The file is mode 0644.
func WriteFile(path string, in Input) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Render(w, in) })
}

// page is what the template shows.
type page struct {
	Title      string
	Generator  string
	CSS        template.CSS
	KaTeX      bool // KaTeX's scripts are on the page
	tex        *texTypesetter
	KaTeXJS    template.JS
	AutoRender template.JS
	Facts      []fact
	Question   string
	Failure    *failure
	Answer     template.HTML
	Notice     template.HTML
	// KeyFindings come first: the exploration's findings, linked to cells.
	KeyFindings template.HTML
	TOC         []tocEntry
	Overview    *overview
	NoProfile   bool
	// Relationships is the profile of the tables together; nil for one table.
	Relationships *relationshipsView
	// Inputs are a folder dataset's files; nil for a file.
	Inputs     *inputsView
	LeadStages []*stageView
	Stages     []*stageView
	About      []fact
	// OutputFiles are the files the code wrote, in OutputFolder.
	OutputFiles  []fact
	OutputFolder string
}

type fact struct {
	Label, Value, Title string
	Code                bool // the value is an identifier, shown in monospace
}

type failure struct {
	StageID, StageTitle string
	Message             string
	NotReached          []string
}

type tocEntry struct {
	ID, Title, Status, StatusClass string
}

type overview struct {
	Facts   []fact
	Alerts  []alertView
	Columns []columnView
	Load    []fact
	Notes   []string
}

// alertView is one line of the alerts: a finding about one column, or
// about the table. A column's alerts share a line, each its badge, their
// messages joined: a column of codes is unique_id and identifier at once,
// one finding that ydata-profiling's two rules both make.
type alertView struct {
	Badges  []alertBadge
	Message string
}

type alertBadge struct{ Type, Label string }

// alertLines are the alerts, one line per column (where its first alert
// was) and one per alert about no single column, in the profile's order.
func alertLines(alerts []eda.Alert) []alertView {
	var lines []alertView
	byColumn := map[string]int{}
	for _, a := range alerts {
		b := alertBadge{Type: slug(a.Type), Label: strings.ReplaceAll(a.Type, "_", " ")}
		if i, ok := byColumn[a.Column]; ok && a.Column != "" {
			lines[i].Badges = append(lines[i].Badges, b)
			lines[i].Message += "; " + a.Message
			continue
		}
		if a.Column != "" {
			byColumn[a.Column] = len(lines)
		}
		lines = append(lines, alertView{Badges: []alertBadge{b}, Message: a.Message})
	}
	return lines
}

type columnView struct {
	Name, Kind, Dtype, Missing, MissingTitle, Distinct, DistinctTitle string
	Samples                                                           []string
	MoreSamples                                                       int
	Spark                                                             template.HTML
}

type stageView struct {
	ID, Name, Title string
	Status          string // as shown
	StatusClass     string
	Duration        string
	Note            string
	Cells           []template.HTML
	// Method is the stage's explanation, formulas and thresholds (the
	// markdown of a stage eda generates), shown below its results behind
	// one closed "How this was computed" disclosure.
	Method            []template.HTML
	notReached, known bool
	lead              bool
}

func buildPage(in Input) (*page, error) {
	p := &page{Title: pageTitle(in)}
	p.Generator = strings.TrimSpace("analyst " + in.Run.AnalystVersion)
	p.CSS = template.CSS(pageCSS + "\n/* code highlighting (chroma, style " + codeStyle + ") */\n" + chromaCSS())
	if err := p.addKaTeX(in.KaTeXDir, in.KaTeXRoot); err != nil {
		return nil, err
	}
	p.Question = in.Question
	p.Facts = headerFacts(in)
	p.About = aboutFacts(in.Run)
	p.OutputFolder = in.Run.OutputFolder
	for _, f := range in.Run.OutputFiles {
		p.OutputFiles = append(p.OutputFiles, fact{Label: f.Name, Value: units.Rounded(f.Bytes), Title: groupDigits(f.Bytes) + " bytes"})
	}

	cr := &cellRenderer{md: markdownRenderer{katex: p.KaTeX, tex: p.tex}, language: notebookLanguage(in.Notebook), marks: in.CellNumbers, nb: in.Notebook,
		notebookLink: in.NotebookLink, linkedCodeBytes: in.LinkedCodeBytes}
	if err := p.renderTexts(in, cr); err != nil {
		return nil, err
	}
	p.Inputs = buildInputs(in.Inputs)
	if in.Profile != nil {
		p.Overview = buildOverview(in.Profile, in.Distributions)
	} else {
		p.NoProfile = true
	}
	stages, err := buildStages(in, cr)
	if err != nil {
		return nil, err
	}
	for _, s := range stages {
		if s.lead {
			p.LeadStages = append(p.LeadStages, s)
		} else {
			p.Stages = append(p.Stages, s)
		}
	}
	p.Failure = buildFailure(in.Run, stages)
	if p.Relationships = buildRelationships(in.Relationships, in.Notebook); p.Relationships != nil {
		p.Relationships.StageID = stageID(stages, eda.StageRelationships)
	}
	p.TOC = p.toc()
	return p, nil
}

// pageTitle is the report's title: as given, else after the data.
func pageTitle(in Input) string {
	switch {
	case in.Title != "":
		return in.Title
	case in.Run.DataName != "":
		return "Analysis of " + in.Run.DataName
	}
	return "analyst report"
}

// addKaTeX loads KaTeX from dir (in the kernel image), if given, to
// typeset the formulas as MathML as the page is written; should KaTeX not
// run in goja, its scripts are inlined so that the page typesets them
// itself, with no network request.
func (p *page) addKaTeX(dir, root string) error {
	if dir == "" {
		return nil
	}
	k, err := loadKaTeX(dir, root)
	if err != nil {
		return err
	}
	if t, err := typesetterFor(k.JS); err == nil {
		p.tex = t
		return nil
	}
	p.KaTeX = true
	p.KaTeXJS = template.JS(safeInScript(k.JS))
	p.AutoRender = template.JS(safeInScript(k.AutoRender))
	return nil
}

// notebookLanguage is the language of the notebook's code cells.
func notebookLanguage(nb *nbformat.Notebook) string {
	if nb != nil && nb.Metadata.LanguageInfo != nil && nb.Metadata.LanguageInfo.Name != "" {
		return nb.Metadata.LanguageInfo.Name
	}
	return "python"
}

// renderTexts renders the markdown that opens the page: the answer (its
// numbers marked), a notice, the key findings.
func (p *page) renderTexts(in Input, cr *cellRenderer) error {
	if strings.TrimSpace(in.Answer) != "" {
		a, err := cr.md.renderMarked(in.Answer, in.Numbers, in.Notebook)
		if err != nil {
			return err
		}
		p.Answer = template.HTML(a)
	}
	if strings.TrimSpace(in.Notice) != "" {
		n, err := cr.md.render(in.Notice, nil, 2)
		if err != nil {
			return err
		}
		p.Notice = template.HTML(n)
	}
	if strings.TrimSpace(in.KeyFindings) != "" {
		k, err := cr.md.renderMarked(in.KeyFindings, in.KeyFindingNumbers, in.Notebook)
		if err != nil {
			return err
		}
		p.KeyFindings = template.HTML(k)
	}
	return nil
}

// toc is the page's table of contents, in the page's order.
func (p *page) toc() []tocEntry {
	var toc []tocEntry
	if p.KeyFindings != "" {
		toc = append(toc, tocEntry{ID: "key-findings", Title: "Key findings"})
	}
	if p.Answer != "" {
		toc = append(toc, tocEntry{ID: "answer", Title: "Answer"}) //houserules:literal the page's anchor
	}
	entry := func(s *stageView) tocEntry {
		return tocEntry{ID: s.ID, Title: s.Title, Status: s.Status, StatusClass: s.StatusClass}
	}
	for _, s := range p.LeadStages {
		toc = append(toc, entry(s))
	}
	toc = append(toc, tocEntry{ID: "overview", Title: "Data"})
	if p.Relationships != nil {
		toc = append(toc, tocEntry{ID: "relationships", Title: "Tables and relationships"}) //houserules:literal the page's anchor
	}
	for _, s := range p.Stages {
		toc = append(toc, entry(s))
	}
	return append(toc, tocEntry{ID: "about", Title: "About this run"})
}

// safeInScript keeps inlined JavaScript from ending its <script> element
// early: "</script" and "<!--" cannot occur in it outside strings,
// regular expressions and comments, where "<\/" means the same.
func safeInScript(js string) string {
	js = replaceFold(js, "</script", `<\/script`)
	return strings.ReplaceAll(js, "<!--", `<\!--`)
}

// replaceFold replaces old (ASCII) in s ignoring case.
func replaceFold(s, old, repl string) string {
	lower := strings.ToLower(s)
	if !strings.Contains(lower, old) {
		return s
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(lower[i:], old)
		if j < 0 {
			break
		}
		b.WriteString(s[i : i+j])
		b.WriteString(repl)
		i += j + len(old)
	}
	b.WriteString(s[i:])
	return b.String()
}

func headerFacts(in Input) []fact {
	r := in.Run
	var f []fact
	if r.DataName != "" {
		f = append(f, fact{Label: "Data", Value: r.DataName})
	}
	if r.DataBytes > 0 {
		f = append(f, fact{Label: "Size", Value: units.Rounded(r.DataBytes), Title: groupDigits(r.DataBytes) + " bytes"})
	}
	if in.Profile != nil {
		f = append(f, fact{Label: "Shape", Value: groupDigits(int64(in.Profile.Rows)) + " rows × " + groupDigits(int64(in.Profile.Columns)) + " columns"})
	}
	if r.DataSHA256 != "" {
		f = append(f, fact{Label: "sha256", Value: short(r.DataSHA256, 12), Title: r.DataSHA256, Code: true})
	}
	if !r.Started.IsZero() {
		f = append(f, fact{Label: "Run", Value: r.Started.UTC().Format("2006-01-02 15:04 UTC"), Title: r.Started.UTC().Format("2006-01-02T15:04:05Z")})
	}
	if r.Duration > 0 {
		f = append(f, fact{Label: "Took", Value: humanDuration(r.Duration)})
	}
	if m := r.Model; m != nil {
		title := m.Digest
		for _, s := range m.Settings {
			title = strings.TrimSpace(title + " · " + s.Name + " " + s.Value)
		}
		f = append(f, fact{Label: "Model", Value: m.Name, Title: strings.TrimPrefix(title, "· "), Code: true})
		if t := m.PromptTokens + m.CompletionTokens; t > 0 {
			f = append(f, fact{Label: "Tokens", Value: groupDigits(int64(t)),
				Title: groupDigits(int64(m.PromptTokens)) + " prompt + " + groupDigits(int64(m.CompletionTokens)) + " completion"})
		}
	}
	return f
}

// modelFacts are the model's lines in "About this run".
func modelFacts(m *ModelInfo) []fact {
	if m == nil {
		return nil
	}
	f := []fact{{Label: "Model", Value: m.Name, Code: true}}
	if m.Digest != "" {
		f = append(f, fact{Label: "Model digest", Value: short(m.Digest, 12), Title: m.Digest, Code: true})
	}
	if m.Mode != "" {
		f = append(f, fact{Label: "Mode", Value: m.Mode})
	}
	for _, s := range m.Settings {
		f = append(f, fact{Label: s.Name, Value: s.Value})
	}
	f = append(f,
		fact{Label: "Tokens", Value: groupDigits(int64(m.PromptTokens)) + " prompt + " + groupDigits(int64(m.CompletionTokens)) + " completion"},
		fact{Label: "Model calls", Value: groupDigits(int64(m.Calls))},
		fact{Label: "Retries", Value: groupDigits(int64(m.Retries))})
	return f
}

// preferredVersions come first in "about this run"; others follow by name.
var preferredVersions = []string{"python", "pandas", "numpy", "matplotlib", "seaborn", "scipy", "statsmodels", "sklearn", "scikit-learn", "plotly"}

func aboutFacts(r RunInfo) []fact {
	var f []fact
	if r.AnalystVersion != "" {
		f = append(f, fact{Label: "analyst", Value: r.AnalystVersion})
	}
	if r.DriverHash != "" {
		f = append(f, fact{Label: "Kernel driver", Value: short(r.DriverHash, 12), Title: r.DriverHash, Code: true})
	}
	if r.ImageID != "" {
		f = append(f, fact{Label: "Kernel image", Value: short(r.ImageID, 12), Title: r.ImageID, Code: true})
	}
	if r.SandboxMemory != "" {
		f = append(f, fact{Label: "Sandbox memory limit", Value: r.SandboxMemory})
	}
	f = append(f, modelFacts(r.Model)...)
	keys := sortedKeys(r.Versions)
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(preferredVersions, a), slices.Index(preferredVersions, b)
		if ia < 0 {
			ia = len(preferredVersions)
		}
		if ib < 0 {
			ib = len(preferredVersions)
		}
		return ia - ib
	})
	for _, k := range keys {
		f = append(f, fact{Label: k, Value: r.Versions[k]})
	}
	if r.DataSHA256 != "" {
		f = append(f, fact{Label: "Data sha256", Value: r.DataSHA256, Code: true})
	}
	return f
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const maxSamples = 5

func buildOverview(pr *eda.Profile, dists map[string]*Distribution) *overview {
	o := &overview{}
	o.Facts = append(o.Facts,
		fact{Label: "Rows", Value: groupDigits(int64(pr.Rows))},
		fact{Label: "Columns", Value: groupDigits(int64(pr.Columns))},
	)
	approx := map[string]bool{} // out of core: estimated distinct counts
	if ooc := pr.OutOfCore; ooc != nil {
		o.Facts = append(o.Facts, fact{Label: "Read out of core", Value: fmt.Sprintf("%s chunks of %s rows; df: a sample of %s rows",
			groupDigits(int64(ooc.Chunks)), groupDigits(int64(ooc.ChunkRows)), groupDigits(int64(ooc.SampleRows)))})
		for _, c := range ooc.ApproximateDistinct {
			approx[c] = true
		}
		if pr.MemoryBytes > 0 {
			o.Facts = append(o.Facts, fact{Label: "In memory if loaded whole", Value: "≈" + units.Rounded(pr.MemoryBytes)})
		}
	} else if pr.MemoryBytes > 0 {
		o.Facts = append(o.Facts, fact{Label: "In memory", Value: units.Rounded(pr.MemoryBytes)})
	}
	o.Facts = append(o.Facts, fact{Label: "Duplicate rows", Value: groupDigits(int64(pr.DuplicateRows))})
	o.Alerts = alertLines(pr.Alerts)
	for _, c := range pr.ColumnInfo {
		cv := columnView{
			Name: c.Name, Kind: c.Kind, Dtype: c.Dtype,
			Missing:       percent(c.MissingShare),
			MissingTitle:  groupDigits(int64(c.Missing)) + " missing" + markersTitle(c.Markers),
			Distinct:      groupDigits(int64(c.Distinct)),
			DistinctTitle: percent(c.DistinctShare) + " distinct",
			Spark:         sparkline(c, dists[c.Name]),
		}
		for i, s := range c.Sample {
			if i == maxSamples {
				cv.MoreSamples = len(c.Sample) - maxSamples
				break
			}
			cv.Samples = append(cv.Samples, clip.Runes(s, 60))
		}
		if approx[c.Name] {
			cv.Distinct = "≈" + cv.Distinct
		}
		o.Columns = append(o.Columns, cv)
	}
	l := pr.Load
	add := func(label, value string) {
		if value != "" {
			o.Load = append(o.Load, fact{Label: label, Value: value})
		}
	}
	add("Format", l.Format)
	add("Compression", l.Compression)
	enc := l.Encoding
	if l.BOM && enc != "" {
		enc += " (with byte-order mark)"
	}
	add("Encoding", enc)
	add("Delimiter", delimiterName(l.Delimiter))
	if l.Decimal != "" && l.Decimal != "." {
		add("Decimal mark", delimiterName(l.Decimal))
	}
	add("Sheet", listWithChosen(l.Sheet, l.Sheets))
	add("Table", listWithChosen(l.Table, l.Tables))
	add("Parsed as dates", strings.Join(l.ParsedDates, ", "))
	if l.NAValues != nil {
		markers := "none (only empty fields)"
		if len(l.NAValues) > 0 {
			markers = strings.Join(quoteAll(l.NAValues), " ") + " (ignoring case and surrounding spaces)"
		}
		add("Read as missing", markers)
	}
	o.Notes = l.Notes
	return o
}

// listWithChosen is the chosen sheet or table, then the others the file has.
func listWithChosen(chosen string, all []string) string {
	if len(all) < 2 {
		return chosen
	}
	var others []string
	for _, a := range all {
		if a != chosen {
			others = append(others, a)
		}
	}
	return chosen + " (read; the file also has " + strings.Join(others, ", ") + ")"
}

// markersTitle says which missing-value markers made a column's values missing.
func markersTitle(markers []eda.TopValue) string {
	if len(markers) == 0 {
		return ""
	}
	parts := make([]string, len(markers))
	for i, m := range markers {
		parts[i] = fmt.Sprintf("%q %s", m.Value, groupDigits(int64(m.Count)))
	}
	return ", of which markers: " + strings.Join(parts, ", ")
}

func quoteAll(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

func delimiterName(d string) string {
	switch d {
	case "":
		return ""
	case "\t":
		return "tab"
	case " ":
		return "space"
	case ",":
		return "comma (,)"
	case ".":
		return "point (.)"
	case ";":
		return "semicolon (;)"
	case "|":
		return "pipe (|)"
	}
	return d
}

// buildStages groups the notebook's cells by their stage tag, in the order
// of Run.Stages, then any stage only the notebook knows, in notebook order;
// cells without a stage tag go in a last group. A stage with no status is
// one the run did not reach, as is a skipped stage after the one that
// failed.
func buildStages(in Input, cr *cellRenderer) ([]*stageView, error) {
	set := &stageSet{byName: map[string]*stageView{}}
	set.addRunStages(in.Run)
	if in.Notebook != nil {
		if err := set.addCells(in.Notebook, cr); err != nil {
			return nil, err
		}
	}
	if set.untagged != nil && len(set.untagged.Cells) > 0 {
		set.list = append(set.list, set.untagged)
	}
	set.name()
	return set.list, nil
}

// stageSet is the report's stages as they are gathered: in order, by
// name, and the group of the cells without a stage tag.
type stageSet struct {
	list     []*stageView
	byName   map[string]*stageView
	untagged *stageView
}

// addRunStages adds the stages of the run, each with its status.
func (set *stageSet) addRunStages(run RunInfo) {
	failedAt := -1
	for i, si := range run.Stages {
		if failedAt < 0 && isFailure(si.Status) {
			failedAt = i
		}
	}
	for i, si := range run.Stages {
		if _, dup := set.byName[si.Name]; dup {
			continue
		}
		s := &stageView{Name: si.Name, Title: si.Title, known: true, lead: si.Lead}
		if s.Title == "" {
			s.Title = si.Name
		}
		switch {
		case si.Status == "" || (run.Failure != "" && failedAt >= 0 && i > failedAt && si.Status == StatusSkipped):
			s.notReached = true
			s.Status, s.StatusClass = string(StatusNotReached), "not-reached"
			s.Note = "Not reached: the run stopped before this stage."
		default:
			s.Status, s.StatusClass = string(si.Status), statusClass(si.Status)
			if si.Duration > 0 {
				s.Duration = humanDuration(si.Duration)
			}
			if si.Status == StatusSkipped {
				s.Note = "Skipped."
			}
		}
		set.byName[si.Name] = s
		set.list = append(set.list, s)
	}
}

// addCells renders the notebook's cells into their stages, adding the
// stages only the notebook knows.
func (set *stageSet) addCells(nb *nbformat.Notebook, cr *cellRenderer) error {
	for _, c := range nb.Cells {
		if c.HasTag(nbformat.TagNotebookOnly) {
			continue
		}
		name, ok := c.Stage()
		var s *stageView
		switch {
		case ok:
			s = set.byName[name]
			if s == nil {
				s = &stageView{Name: name, Title: name}
				set.byName[name] = s
				set.list = append(set.list, s)
			}
		default:
			if set.untagged == nil {
				set.untagged = &stageView{Title: "Other cells"}
			}
			s = set.untagged
		}
		h, err := cr.cell(c)
		if err != nil {
			return err
		}
		switch {
		case h == "":
		case ok && cr.method(c, name):
			s.Method = append(s.Method, template.HTML(h))
			if head, err := cr.heading(c); err != nil {
				return err
			} else if head != "" {
				s.Cells = append(s.Cells, template.HTML(head))
			}
		default:
			s.Cells = append(s.Cells, template.HTML(h))
		}
	}
	return nil
}

// name gives each stage its page anchor and the note its cells call for.
func (set *stageSet) name() {
	used := map[string]bool{}
	for i, s := range set.list {
		id := "stage-" + slug(s.Name)
		switch {
		case s == set.untagged:
			id = "other-cells"
		case slug(s.Name) == "":
			id = fmt.Sprintf("stage-%d", i+1)
		}
		for used[id] {
			id += "-x"
		}
		used[id] = true
		s.ID = id
		if s.notReached && len(s.Cells) > 0 {
			s.Note = "" // it ran some cells after all
		}
		if !s.notReached && s.Note == "" && len(s.Cells) == 0 && s.known {
			s.Note = "No cells."
		}
	}
}

// isFailure: a stage status that means the stage did not finish well.
func isFailure(status StageStatus) bool {
	switch status {
	case "", StatusOK, StatusSkipped:
		return false
	}
	return true
}

func statusClass(status StageStatus) string {
	switch status {
	case StatusOK, StatusSkipped:
		return string(status)
	}
	return string(StatusError)
}

func buildFailure(r RunInfo, stages []*stageView) *failure {
	if r.Failure == "" {
		return nil
	}
	f := &failure{Message: r.Failure}
	for _, s := range stages {
		if f.StageID == "" && isFailure(StageStatus(s.Status)) && s.StatusClass == string(StatusError) {
			f.StageID, f.StageTitle = s.ID, s.Title
		}
		if s.notReached {
			f.NotReached = append(f.NotReached, s.Title)
		}
	}
	return f
}
