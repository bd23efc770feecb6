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
	dir := filepath.Dir(file)
	var errs []error
	fail := func(line int, field, format string, args ...any) {
		errs = append(errs, &SuiteError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if len(doc.Cases) == 0 {
		fail(1, "cases", "the suite has no cases")
	}
	datasets := map[string]string{}
	var hashFiles []string
	for i := 0; i+1 < len(doc.Datasets.Content); i += 2 {
		name, dn := doc.Datasets.Content[i].Value, doc.Datasets.Content[i+1]
		var d yamlDataset
		if err := dn.Decode(&d); err != nil {
			fail(dn.Line, "datasets."+name, "%v", err)
			continue
		}
		p := filepath.Join(dir, d.Path)
		if d.Path == "" {
			fail(dn.Line, "datasets."+name+".path", "missing")
			continue
		}
		sum, err := filehash.SHA256(p)
		if err != nil {
			fail(fieldLine(dn, "path"), "datasets."+name+".path", "%v", err)
			continue
		}
		if d.SHA256 != "" && !strings.EqualFold(strings.TrimPrefix(d.SHA256, "sha256:"), sum) {
			fail(fieldLine(dn, "sha256"), "datasets."+name+".sha256", "%s has sha256 %s, not %s: the data changed (regenerate it, or update the suite)", d.Path, sum, d.SHA256)
			continue
		}
		datasets[name] = p
		hashFiles = append(hashFiles, p)
	}
	var cases []Case
	for i := range doc.Cases {
		n := &doc.Cases[i]
		var yc yamlCase
		if err := n.Decode(&yc); err != nil {
			fail(n.Line, fmt.Sprintf("cases[%d]", i), "%v", err)
			continue
		}
		at := func(field string) int { return fieldLine(n, field) }
		where := fmt.Sprintf("cases[%d]", i)
		if yc.ID == "" {
			fail(n.Line, where+".id", "missing")
			continue
		}
		where = "case " + yc.ID
		if prev, dup := ids[yc.ID]; dup {
			fail(at("id"), where+".id", "duplicate id (also at %s)", prev)
		}
		ids[yc.ID] = fmt.Sprintf("%s:%d", file, at("id"))
		data, ok := datasets[yc.Dataset]
		if !ok {
			fail(at("dataset"), where+".dataset", "%q is not one of the suite's datasets", yc.Dataset)
		}
		if strings.TrimSpace(yc.Question) == "" {
			fail(at("question"), where+".question", "missing")
		}
		if len(yc.Expect) == 0 && len(yc.Charts) == 0 {
			fail(n.Line, where+".expect", "a case needs expected answers or chart expectations")
		}
		c := Case{ID: yc.ID, Index: index + len(cases), Dataset: data, FollowUps: yc.FollowUps, Concepts: yc.Concepts,
			Level: yc.Level, Tags: yc.Tags, Reference: yc.Reference, Charts: yc.Charts}
		var names []string
		for j, e := range yc.Expect {
			if e.Kind == "" {
				e.Kind = MatchExact
			}
			if e.Name == "" || !answerName.MatchString(e.Name) {
				fail(at("expect"), fmt.Sprintf("%s.expect[%d].name", where, j), "%q is not a name (letters, digits, _)", e.Name)
			}
			if err := e.Matcher.Validate(); err != nil {
				fail(at("expect"), fmt.Sprintf("%s.expect[%d].match", where, j), "%v", err)
			}
			c.Expect = append(c.Expect, Expect{Name: e.Name, Value: e.Value, Match: e.Matcher})
			names = append(names, "@"+e.Name+"[value]")
		}
		c.Prompt = yc.Question
		if len(names) > 0 {
			c.Prompt += "\n\nState the answer as " + strings.Join(names, " ") + "."
		}
		cases = append(cases, c)
	}
	return doc.Name, cases, hashFiles, errors.Join(errs...)
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
