// Package owner names the analyst process that made something meant to
// last only as long as that process (a kernel's container and temporary
// folder, a run's staging folder), so that what a killed process left
// behind can be told from what a live one still uses. A process is named by
// its pid and its start time: pids are reused, after a reboot at once.
package owner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Owner is a process: its pid and its start time in clock ticks after boot
// (field 22 of /proc/PID/stat); Start 0 means unknown.
type Owner struct {
	PID   int
	Start uint64
}

// Self is the calling process.
func Self() Owner {
	pid := os.Getpid()
	start, _ := startTime(pid)
	return Owner{PID: pid, Start: start}
}

// String is "PID:START", as Parse reads it.
func (o Owner) String() string { return fmt.Sprintf("%d:%d", o.PID, o.Start) }

// Parse reads "PID:START" or a bare "PID" (start unknown).
func Parse(s string) (Owner, error) {
	pid, start, hasStart := strings.Cut(strings.TrimSpace(s), ":")
	var o Owner
	var err error
	if o.PID, err = strconv.Atoi(pid); err != nil || o.PID <= 0 {
		return Owner{}, fmt.Errorf("reading owner %q: not a process id", s)
	}
	if hasStart {
		if o.Start, err = strconv.ParseUint(start, 10, 64); err != nil {
			return Owner{}, fmt.Errorf("reading owner %q: not a start time", s)
		}
	}
	return o, nil
}

// Alive reports whether the process still runs: its pid exists and, where
// the start time is known, started then. Where /proc cannot tell, it
// answers yes: a live process's things are never taken for leftovers.
func (o Owner) Alive() bool {
	if o.PID <= 0 {
		return false
	}
	start, err := startTime(o.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil || o.Start == 0 || start == 0 {
		return true
	}
	return start == o.Start
}

// startTime reads a process's start time from /proc/PID/stat.
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow start after the last ')'. Field 22 is the
	// 20th of them (the state is field 3).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("reading /proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0, fmt.Errorf("reading /proc/%d/stat: %d fields", pid, len(fields)+2)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}

// FileName is the file in a folder that names its owner.
const FileName = "owner"

// WriteFile records the calling process as the owner of dir.
func WriteFile(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(Self().String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("recording the owner of %s: %w", dir, err)
	}
	return nil
}

// ReadFile reads the owner of dir; an error if it has none recorded.
func ReadFile(dir string) (Owner, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return Owner{}, err
	}
	return Parse(string(b))
}
