package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/analyst-cli/analyst/internal/command"
)

// Leftover is a kernel container found on the host.
type Leftover struct {
	Name     string
	ID       string
	OwnerPID int
	State    string
	// Orphan is true when the analyst process that started it is gone.
	Orphan bool
}

// Leftovers lists the kernel containers of the current user.
func Leftovers(ctx context.Context, r command.Runner, podman string) ([]Leftover, error) {
	if r == nil {
		r = command.Exec{}
	}
	if podman == "" {
		podman = "podman"
	}
	out, err := r.Run(ctx, podman, "ps", "--all", "--filter", "label="+LabelKernel, "--format", "json")
	if err != nil {
		return nil, fmt.Errorf("listing kernel containers: %w", err)
	}
	var rows []struct {
		ID     string            `json:"Id"`
		Names  []string          `json:"Names"`
		State  string            `json:"State"`
		Labels map[string]string `json:"Labels"`
	}
	if len(out) > 0 {
		if err := json.Unmarshal(out, &rows); err != nil {
			return nil, fmt.Errorf("listing kernel containers: reading podman's answer: %w", err)
		}
	}
	var found []Leftover
	for _, row := range rows {
		l := Leftover{ID: row.ID, State: row.State}
		if len(row.Names) > 0 {
			l.Name = row.Names[0]
		}
		l.OwnerPID, _ = strconv.Atoi(row.Labels[LabelOwner])
		l.Orphan = !processAlive(l.OwnerPID)
		found = append(found, l)
	}
	return found, nil
}

// Prune removes kernel containers whose analyst process is gone (all of
// them with all=true) and returns what it removed.
func Prune(ctx context.Context, r command.Runner, podman string, all bool) ([]Leftover, error) {
	if r == nil {
		r = command.Exec{}
	}
	if podman == "" {
		podman = "podman"
	}
	found, err := Leftovers(ctx, r, podman)
	if err != nil {
		return nil, err
	}
	var removed []Leftover
	for _, l := range found {
		if !l.Orphan && !all {
			continue
		}
		if _, err := r.Run(ctx, podman, "rm", "--force", "--time", "0", "--ignore", l.ID); err != nil {
			return removed, fmt.Errorf("removing kernel container %s: %w", l.Name, err)
		}
		removed = append(removed, l)
	}
	return removed, nil
}

// processAlive reports whether pid is a running process on this host.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err == nil || err == syscall.EPERM {
		// EPERM: alive but someone else's; still, containers are per user.
		_, statErr := os.Stat("/proc/" + strconv.Itoa(pid))
		return statErr == nil
	}
	return false
}
