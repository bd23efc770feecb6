package baseline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/analyst-cli/analyst/eda"
)

// Settings is the config file's `baseline:` section as YAML decodes it:
//
//	baseline:
//	  thresholds:          # the table's, in place of the defaults
//	    numeric-shift: {warn: 0.2, fail: 0.6}
//	  levels:              # of schema changes
//	    added: warn
//	  columns:             # a column's own, by name (a list: names keep their case)
//	    - name: revenue
//	      numeric-shift: {warn: 0.3}
//	      removed: info
type Settings struct {
	Thresholds any
	Levels     any
	Columns    any
}

// Rules are the defaults with the settings in their place; an error names
// the setting that is wrong and what it may be.
func Rules(s Settings) (eda.ChangeRules, error) {
	r := eda.DefaultChangeRules()
	thresholds, err := asMap(s.Thresholds, "baseline.thresholds")
	if err != nil {
		return r, err
	}
	for _, check := range sortedKeys(thresholds) {
		rule, err := parseRule(thresholds[check], r.Thresholds, check, "baseline.thresholds."+check)
		if err != nil {
			return r, err
		}
		r.Thresholds[check] = rule
	}
	levels, err := asMap(s.Levels, "baseline.levels")
	if err != nil {
		return r, err
	}
	for _, change := range sortedKeys(levels) {
		level, err := parseLevel(levels[change], change, "baseline.levels."+change)
		if err != nil {
			return r, err
		}
		r.Severities[change] = level
	}
	r.Columns, err = columnRules(s.Columns, r)
	return r, err
}

func columnRules(raw any, table eda.ChangeRules) (map[string]eda.ColumnRules, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("baseline.columns must be a list of columns, each with a name: (- name: revenue), got %T", raw)
	}
	out := map[string]eda.ColumnRules{}
	for i, item := range list {
		where := fmt.Sprintf("baseline.columns[%d]", i)
		m, err := asMap(item, where)
		if err != nil {
			return nil, err
		}
		name, ok := m["name"].(string)
		if !ok || name == "" {
			return nil, fmt.Errorf("%s has no name: (the column's name, as in the data)", where)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s: column %q is listed twice", where, name)
		}
		c := eda.ColumnRules{Thresholds: map[string]eda.ChangeRule{}, Severities: map[string]string{}}
		for _, key := range sortedKeys(m) {
			var err error
			switch {
			case key == "name":
			case slices.Contains(eda.ThresholdChecks, key):
				c.Thresholds[key], err = parseRule(m[key], table.Thresholds, key, where+"."+key)
			case slices.Contains(eda.SeverityChanges, key):
				c.Severities[key], err = parseLevel(m[key], key, where+"."+key)
			default:
				err = fmt.Errorf("%s.%s: unknown check; a column may set %s (thresholds) and %s (levels)", where, key,
					strings.Join(eda.ThresholdChecks, ", "), strings.Join(eda.SeverityChanges, ", "))
			}
			if err != nil {
				return nil, err
			}
		}
		out[name] = c
	}
	return out, nil
}

// parseRule reads {warn: X, fail: Y}; a bound not given keeps the table's,
// "never" (or null) turns it off.
func parseRule(raw any, table map[string]eda.ChangeRule, check, where string) (eda.ChangeRule, error) {
	if !slices.Contains(eda.ThresholdChecks, check) {
		return eda.ChangeRule{}, fmt.Errorf("%s: unknown check; checks with thresholds: %s", where, strings.Join(eda.ThresholdChecks, ", "))
	}
	m, err := asMap(raw, where)
	if err != nil {
		return eda.ChangeRule{}, err
	}
	rule := table[check]
	for _, key := range sortedKeys(m) {
		bound, err := parseBound(m[key], where+"."+key)
		if err != nil {
			return rule, err
		}
		switch key {
		case eda.LevelWarn:
			rule.Warn = bound
		case eda.LevelFail:
			rule.Fail = bound
		default:
			return rule, fmt.Errorf("%s.%s: a threshold is warn: or fail:", where, key)
		}
	}
	if rule.Warn != nil && rule.Fail != nil && *rule.Fail < *rule.Warn {
		return rule, fmt.Errorf("%s: fail at %g is below warn at %g", where, *rule.Fail, *rule.Warn)
	}
	return rule, nil
}

func parseBound(raw any, where string) (*float64, error) {
	var x float64
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case int:
		x = float64(v)
	case float64:
		x = v
	case string:
		if strings.EqualFold(strings.TrimSpace(v), "never") {
			return nil, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a number or never, got %q", where, v)
		}
		x = f
	default:
		return nil, fmt.Errorf("%s must be a number or never, got %v", where, raw)
	}
	if math.IsNaN(x) || x < 0 {
		return nil, fmt.Errorf("%s must be a number of 0 or more, got %v", where, raw)
	}
	return &x, nil
}

func parseLevel(raw any, change, where string) (string, error) {
	if !slices.Contains(eda.SeverityChanges, change) {
		return "", fmt.Errorf("%s: unknown schema change; levels are set for %s", where, strings.Join(eda.SeverityChanges, ", "))
	}
	s, _ := raw.(string)
	if Rank(strings.TrimSpace(s)) < 0 {
		return "", fmt.Errorf("%s must be %s, got %v", where, strings.Join(eda.Levels, ", "), raw)
	}
	return strings.TrimSpace(s), nil
}

// asMap is a YAML mapping as map[string]any (nil: empty).
func asMap(raw any, where string) (map[string]any, error) {
	switch m := raw.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	case map[any]any:
		out := map[string]any{}
		for k, v := range m {
			out[fmt.Sprint(k)] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s must be a mapping (key: value), got %v", where, raw)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
