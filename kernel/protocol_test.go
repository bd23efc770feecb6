package kernel

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/nbformat"
)

func driverSource(t *testing.T) string {
	t.Helper()
	b, err := driverFS.ReadFile("driver/analyst_driver.py")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The driver cannot import Go: its MIME_* names must equal nbformat's Mime*
// constants, and it must write no mime type other than through them.
func TestDriverMimeTypesAreNbformats(t *testing.T) {
	src := driverSource(t)
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^(MIME_[A-Z]+) = "([^"]+)"$`).FindAllStringSubmatch(src, -1) {
		got[m[1]] = m[2]
	}
	want := map[string]string{
		"MIME_PLAIN":    nbformat.MimePlain,
		"MIME_HTML":     nbformat.MimeHTML,
		"MIME_MARKDOWN": nbformat.MimeMarkdown,
		"MIME_LATEX":    nbformat.MimeLaTeX,
		"MIME_PNG":      nbformat.MimePNG,
		"MIME_JPEG":     nbformat.MimeJPEG,
		"MIME_SVG":      nbformat.MimeSVG,
		"MIME_JSON":     nbformat.MimeJSON,
		"MIME_PLOTLY":   nbformat.MimePlotly,
		"MIME_CHART":    nbformat.MimeChart,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the driver's MIME_* constants differ from nbformat's (-Go +driver):\n%s", diff)
	}
	literals := regexp.MustCompile(`"(text|image|application)/[a-z0-9.+-]+"`).FindAllString(src, -1)
	if len(literals) != len(got) {
		t.Errorf("the driver writes mime types outside its MIME_* constants: %q", literals)
	}
}

// pyBlock returns the lines of the driver's top-level `NAME = {` ... `}`.
func pyBlock(t *testing.T, src, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?ms)^` + name + ` = \{\n(.*?)^\}`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("the driver has no %s = {...}", name)
	}
	return m[1]
}

// pyFields reads `"kind": ("field", ...),` lines.
func pyFields(block string) map[string][]string {
	out := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+"(\w+)": \(([^)]*)\),$`).FindAllStringSubmatch(block, -1) {
		fields := []string{}
		for _, f := range regexp.MustCompile(`"(\w+)"`).FindAllStringSubmatch(m[2], -1) {
			fields = append(fields, f[1])
		}
		slices.Sort(fields)
		out[m[1]] = fields
	}
	return out
}

// jsonFields are the JSON names of v's fields (embedded structs flattened),
// without "type".
func jsonFields(v any) []string {
	names := []string{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for f := range rt.Fields() {
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "type" {
				names = append(names, name)
			}
		}
	}
	walk(reflect.TypeOf(v))
	slices.Sort(names)
	return names
}

func TestDriverProtocolMatchesGo(t *testing.T) {
	src := driverSource(t)
	withID := func(v any) []string { return slices.Sorted(slices.Values(append(jsonFields(v), "id"))) }
	withSession := func(fields []string) []string { return slices.Sorted(slices.Values(append(fields, "session"))) }

	requests := map[string][]string{
		reqExecute:   jsonFields(executeRequest{}),
		reqInterrupt: jsonFields(interruptRequest{}),
		reqInfo:      jsonFields(infoRequest{}),
		reqShutdown:  jsonFields(shutdownRequest{}),
		reqFork:      jsonFields(forkRequest{}),
		reqForkKill:  jsonFields(forkKillRequest{}),
	}
	if diff := cmp.Diff(requests, pyFields(pyBlock(t, src, "REQUEST_FIELDS"))); diff != "" {
		t.Errorf("requests: kernel/protocol.go and the driver's REQUEST_FIELDS differ (-Go +driver):\n%s", diff)
	}
	replies := map[string][]string{
		replyReady:         jsonFields(readyReply{}),
		replyOutput:        withID(outputReply{}),
		replyFile:          withID(fileReply{}),
		replyStatus:        withID(statusReply{}),
		replyInfo:          withID(infoReply{}),
		replyProgress:      withID(progressReply{}),
		replyProtocolError: withID(protocolErrorReply{}),
		replyForked:        withSession(withID(forkedReply{})),
		replyForkEnd:       withSession(jsonFields(forkEndReply{})),
	}
	if diff := cmp.Diff(replies, pyFields(pyBlock(t, src, "REPLY_FIELDS"))); diff != "" {
		t.Errorf("replies: kernel/protocol.go and the driver's REPLY_FIELDS differ (-Go +driver):\n%s", diff)
	}
	// The union the Go side decodes replies into has every body's fields.
	var all []string
	for kind, fields := range replies {
		if kind != replyReady {
			all = append(all, fields...)
		}
	}
	slices.Sort(all)
	if diff := cmp.Diff(slices.Compact(all), jsonFields(reply{})); diff != "" {
		t.Errorf("reply does not embed every body (-bodies +reply):\n%s", diff)
	}

	var config []string
	for _, m := range regexp.MustCompile(`(?m)^\s+"(\w+)": `).FindAllStringSubmatch(pyBlock(t, src, "DEFAULT_CONFIG"), -1) {
		config = append(config, m[1])
	}
	slices.Sort(config)
	if diff := cmp.Diff(jsonFields(driverConfig{}), config); diff != "" {
		t.Errorf("configuration: driverConfig and the driver's DEFAULT_CONFIG differ (-Go +driver):\n%s", diff)
	}

	// What the driver and its fork module read: only fields the tables name.
	fork, err := driverFS.ReadFile("driver/analyst_fork.py")
	if err != nil {
		t.Fatal(err)
	}
	src += string(fork)
	known := map[string]bool{"type": true}
	for _, fields := range requests {
		for _, f := range fields {
			known[f] = true
		}
	}
	for _, m := range regexp.MustCompile(`\b(?:msg|req)\.get\("(\w+)"`).FindAllStringSubmatch(src, -1) {
		if !known[m[1]] {
			t.Errorf("the driver reads request field %q, which no request has", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`\bcfg(?:\["|\.get\(")(\w+)"`).FindAllStringSubmatch(src, -1) {
		if !slices.Contains(config, m[1]) {
			t.Errorf("the driver reads configuration %q, which DEFAULT_CONFIG lacks", m[1])
		}
	}
}

// The binary carries the driver, not its tests.
func TestDriverEmbedsNoTests(t *testing.T) {
	want := []string{"driver/analyst_charts.py", "driver/analyst_driver.py", "driver/analyst_fork.py"}
	if diff := cmp.Diff(want, driverFiles()); diff != "" {
		t.Errorf("embedded driver files (-want +got):\n%s", diff)
	}
}
