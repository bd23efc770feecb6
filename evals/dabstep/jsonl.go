package dabstep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/analyst-cli/analyst/internal/units"
)

// readLines calls fn with each line of a JSON Lines file (without its
// newline), refusing a file over maxFile bytes or a line over maxLine
// before reading it whole.
func readLines(path string, maxFile, maxLine int64, fn func(n int, raw []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxFile {
		return fmt.Errorf("%s is %s, more than the %s a file of this kind may be", path, units.Bytes(fi.Size()), units.Bytes(maxFile))
	}
	r := bufio.NewReaderSize(io.LimitReader(f, maxFile+1), 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(r, maxLine)
		if errors.Is(err, errLongLine) {
			return fmt.Errorf("%s:%d: a line over %s", path, n, units.Bytes(maxLine))
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if len(line) > 0 || err == nil {
			if ferr := fn(n, line); ferr != nil {
				return fmt.Errorf("%s:%d: %w", path, n, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

var errLongLine = errors.New("line too long")

// readLine reads up to and without the next '\n', at most max bytes.
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if int64(len(line)) > max+1 {
			return nil, errLongLine
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

// object decodes a line as one JSON object, its values kept raw.
func object(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return m, nil
}

// text reads a string field; ok is false when the field is absent.
func text(m map[string]json.RawMessage, key string) (s string, ok bool, err error) {
	raw, ok := m[key]
	if !ok {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", true, fmt.Errorf("%s is %s, not a string", key, clipRaw(raw))
	}
	return s, true, nil
}

// taskID reads task_id as the leaderboard compares it, str(task_id): a
// string, or an integer written as one.
func taskID(m map[string]json.RawMessage) (string, error) {
	raw, ok := m["task_id"]
	if !ok {
		return "", fmt.Errorf("no task_id")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if s == "" {
			return "", fmt.Errorf("task_id is empty")
		}
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("task_id is %s, not a string or an integer", clipRaw(raw))
}

func clipRaw(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
