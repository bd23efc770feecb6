package evals

import (
	"github.com/analyst-cli/analyst/internal/filehash"

	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlSuite is a suite file in our format.
type yamlSuite struct {
	Name     string      `yaml:"name"`
	Datasets yaml.Node   `yaml:"datasets"`
	Cases    []yaml.Node `yaml:"cases"`
}

type yamlDataset struct {
	Path   string `yaml:"path"`
	SHA256 string `yaml:"sha256"`
}

type yamlCase struct {
	ID        string        `yaml:"id"`
	Dataset   string        `yaml:"dataset"`
	Question  string        `yaml:"question"`
	FollowUps []string      `yaml:"follow_ups"`
	Tags      []string      `yaml:"tags"`
	Concepts  []string      `yaml:"concepts"`
	Level     string        `yaml:"level"`
	Expect    []yamlExpect  `yaml:"expect"`
	Charts    []ChartExpect `yaml:"charts"`
	Reference string        `yaml:"reference"`
}

type yamlExpect struct {
	Name    string `yaml:"name"`
	Value   string `yaml:"value"`
	Matcher `yaml:",inline"`
}

// strictSuite is the same shape with every field typed, for the first,
// strict pass that catches unknown fields and wrong types with their line.
type strictSuite struct {
	Name     string                 `yaml:"name"`
	Datasets map[string]yamlDataset `yaml:"datasets"`
	Cases    []yamlCase             `yaml:"cases"`
}

// SuiteError is a mistake in a suite file, with where it is.
type SuiteError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *SuiteError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// LoadYAML reads a suite file, or every *.yaml and *.yml file of a folder
// (in name order) as one suite. Dataset paths are relative to their file;
// a sha256, when given, is checked.
func LoadYAML(path string) (*Suite, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		files = nil
		for _, pat := range []string{"*.yaml", "*.yml"} {
			m, _ := filepath.Glob(filepath.Join(path, pat))
			files = append(files, m...)
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("suite %s: no *.yaml files and not DABench's layout", path)
		}
	}
	s := &Suite{Name: strings.TrimSuffix(filepath.Base(filepath.Clean(path)), filepath.Ext(path)), Path: path, Kind: "yaml"}
	var parts, hashFiles []string
	ids := map[string]string{}
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		parts = append(parts, string(data))
		name, cases, datasets, err := parseSuiteFile(f, data, ids, len(s.Cases))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if name != "" && len(files) == 1 {
			s.Name = name
		}
		s.Cases = append(s.Cases, cases...)
		hashFiles = append(hashFiles, datasets...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var err error
	if s.Hash, err = suiteHash(append([]string{"yaml"}, parts...), hashFiles); err != nil {
		return nil, err
	}
	return s, nil
}

func parseSuiteFile(file string, data []byte, ids map[string]string, index int) (string, []Case, []string, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var strict strictSuite
	if err := dec.Decode(&strict); err != nil && err != io.EOF {
		return "", nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var doc yamlSuite
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	p := &suiteParser{file: file, dir: filepath.Dir(file), ids: ids, datasets: map[string]string{}}
	if len(doc.Cases) == 0 {
		p.fail(1, "cases", "the suite has no cases")
	}
	p.readDatasets(doc.Datasets)
	var cases []Case
	for i := range doc.Cases {
		if c, ok := p.readCase(&doc.Cases[i], i, index+len(cases)); ok {
			cases = append(cases, c)
		}
	}
	return doc.Name, cases, p.hashFiles, errors.Join(p.errs...)
}

// suiteParser reads one suite file, collecting every mistake in it (each
// with its line and field) rather than stopping at the first.
type suiteParser struct {
	file, dir string
	ids       map[string]string // case ids seen so far (in every file of the suite), with where
	datasets  map[string]string // name → path
	hashFiles []string
	errs      []error
}

func (p *suiteParser) fail(line int, field, format string, args ...any) {
	p.errs = append(p.errs, &SuiteError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// readDatasets reads the datasets mapping, checking each file's sha256.
func (p *suiteParser) readDatasets(node yaml.Node) {
	for i := 0; i+1 < len(node.Content); i += 2 {
		name, dn := node.Content[i].Value, node.Content[i+1]
		var d yamlDataset
		if err := dn.Decode(&d); err != nil {
			p.fail(dn.Line, "datasets."+name, "%v", err)
			continue
		}
		path := filepath.Join(p.dir, d.Path)
		if d.Path == "" {
			p.fail(dn.Line, "datasets."+name+".path", "missing")
			continue
		}
		sum, err := filehash.SHA256(path)
		if err != nil {
			p.fail(fieldLine(dn, "path"), "datasets."+name+".path", "%v", err)
			continue
		}
		if d.SHA256 != "" && !strings.EqualFold(strings.TrimPrefix(d.SHA256, "sha256:"), sum) {
			p.fail(fieldLine(dn, "sha256"), "datasets."+name+".sha256", "%s has sha256 %s, not %s: the data changed (regenerate it, or update the suite)", d.Path, sum, d.SHA256)
			continue
		}
		p.datasets[name] = path
		p.hashFiles = append(p.hashFiles, path)
	}
}

// readCase reads the i-th case, the index-th of the suite.
func (p *suiteParser) readCase(n *yaml.Node, i, index int) (Case, bool) {
	var yc yamlCase
	if err := n.Decode(&yc); err != nil {
		p.fail(n.Line, fmt.Sprintf("cases[%d]", i), "%v", err)
		return Case{}, false
	}
	at := func(field string) int { return fieldLine(n, field) }
	if yc.ID == "" {
		p.fail(n.Line, fmt.Sprintf("cases[%d].id", i), "missing")
		return Case{}, false
	}
	where := "case " + yc.ID
	if prev, dup := p.ids[yc.ID]; dup {
		p.fail(at("id"), where+".id", "duplicate id (also at %s)", prev)
	}
	p.ids[yc.ID] = fmt.Sprintf("%s:%d", p.file, at("id"))
	data, ok := p.datasets[yc.Dataset]
	if !ok {
		p.fail(at("dataset"), where+".dataset", "%q is not one of the suite's datasets", yc.Dataset)
	}
	if strings.TrimSpace(yc.Question) == "" {
		p.fail(at("question"), where+".question", "missing")
	}
	if len(yc.Expect) == 0 && len(yc.Charts) == 0 {
		p.fail(n.Line, where+".expect", "a case needs expected answers or chart expectations")
	}
	c := Case{ID: yc.ID, Index: index, Dataset: data, FollowUps: yc.FollowUps, Concepts: yc.Concepts,
		Level: yc.Level, Tags: yc.Tags, Reference: yc.Reference, Charts: yc.Charts, Prompt: yc.Question}
	var names []string
	for j, e := range yc.Expect {
		if e.Kind == "" {
			e.Kind = MatchExact
		}
		if e.Name == "" || !answerName.MatchString(e.Name) {
			p.fail(at("expect"), fmt.Sprintf("%s.expect[%d].name", where, j), "%q is not a name (letters, digits, _)", e.Name)
		}
		if err := e.Matcher.Validate(); err != nil {
			p.fail(at("expect"), fmt.Sprintf("%s.expect[%d].match", where, j), "%v", err)
		}
		c.Expect = append(c.Expect, Expect{Name: e.Name, Value: e.Value, Match: e.Matcher})
		names = append(names, "@"+e.Name+"[value]")
	}
	if len(names) > 0 {
		c.Prompt += "\n\nState the answer as " + strings.Join(names, " ") + "."
	}
	return c, true
}

// fieldLine is the line of key in a mapping node, else the node's line.
func fieldLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// LoadSuite reads a suite: a folder in DABench's layout, or our YAML (a
// file or a folder of files).
func LoadSuite(path string) (*Suite, error) {
	if IsDABench(path) {
		return LoadDABench(path)
	}
	return LoadYAML(path)
}
