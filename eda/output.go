package eda

import (
	"encoding/json"

	"github.com/analyst-cli/analyst/nbformat"
)

// ProfileFromData reads the profile from one cell output's mime bundle
// (nbformat "data"): ok is false when the bundle holds no profile.
func ProfileFromData(data map[string]json.RawMessage) (p *Profile, ok bool, err error) {
	return fromData(data, nbformat.MimeProfile, ParseProfile)
}

// fromData reads the output of type mime from a mime bundle with parse: ok
// is false when the bundle holds none.
func fromData[T any](data map[string]json.RawMessage, mime string, parse func([]byte) (T, error)) (v T, ok bool, err error) {
	raw, ok := data[mime]
	if !ok {
		return v, false, nil
	}
	v, err = parse(raw)
	return v, true, err
}
