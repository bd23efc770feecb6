// Package meminfo reads the host's memory figures from /proc/meminfo.
package meminfo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Info is the host's memory, in bytes.
type Info struct {
	Total     int64 // MemTotal: the RAM the kernel manages
	Available int64 // MemAvailable: what new work can get without swapping
}

// Read reads /proc/meminfo.
func Read() (Info, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return Info{}, fmt.Errorf("reading the host's memory: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads the meminfo format ("MemTotal:  24684084 kB").
func Parse(r io.Reader) (Info, error) {
	var in Info
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "MemTotal:":
			in.Total = kb << 10
		case "MemAvailable:":
			in.Available = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return Info{}, fmt.Errorf("reading the host's memory: %w", err)
	}
	if in.Total == 0 {
		return Info{}, fmt.Errorf("reading the host's memory: no MemTotal in /proc/meminfo")
	}
	return in, nil
}
