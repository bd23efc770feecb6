package eda

import (
	"encoding/json"

	"github.com/analyst-cli/analyst/nbformat"
)

// ProfileFromData reads the profile from one cell output's mime bundle
// (nbformat "data"): ok is false when the bundle holds no profile.
func ProfileFromData(data map[string]json.RawMessage) (p *Profile, ok bool, err error) {
	raw, ok := data[nbformat.MimeProfile]
	if !ok {
		return nil, false, nil
	}
	p, err = ParseProfile(raw)
	return p, true, err
}
