package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/owner"
)

// A kernel lasts as long as the analyst process that started it: Close
// removes its container and its temporary folder. A process killed with
// SIGKILL cannot, so both name their owner (labels on the container, an
// owner file in the folder: pid and start time), and Prune and PruneFolders
// remove those whose owner is gone, never a live process's.

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
		o := containerOwner(row.Labels)
		l.OwnerPID = o.PID
		l.Orphan = !o.Alive()
		found = append(found, l)
	}
	return found, nil
}

// containerOwner reads the owner labels (the start time is missing on
// containers of older versions).
func containerOwner(labels map[string]string) owner.Owner {
	o, err := owner.Parse(labels[LabelOwner] + ":" + labels[LabelOwnerStart])
	if err != nil {
		o, _ = owner.Parse(labels[LabelOwner])
	}
	return o
}

// ownerLabels are the labels that name the calling process as owner.
func ownerLabels() []string {
	self := owner.Self()
	return []string{
		"--label", LabelOwner + "=" + strconv.Itoa(self.PID),
		"--label", LabelOwnerStart + "=" + strconv.FormatUint(self.Start, 10),
	}
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

// LeftoverFolder is a kernel's temporary folder whose owner is gone.
type LeftoverFolder struct {
	Path     string
	OwnerPID int
}

// PruneFolders removes the kernels' temporary folders in tmp
// (analyst-kernel-*, see prepareMounts) whose analyst process is gone, and
// returns them. Folders without an owner file (made by older versions) and
// other users' folders are left alone. Removing one deletes the hard link
// to the data staged there, never the data.
func PruneFolders(tmp string) ([]LeftoverFolder, error) {
	dirs, err := filepath.Glob(filepath.Join(tmp, namePrefix+"*"))
	if err != nil {
		return nil, err
	}
	var removed []LeftoverFolder
	for _, dir := range dirs {
		o, err := owner.ReadFile(dir)
		if err != nil || o.Alive() || !ownedByMe(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("removing a killed kernel's folder: %w", err)
		}
		removed = append(removed, LeftoverFolder{Path: dir, OwnerPID: o.PID})
	}
	return removed, nil
}

// ownedByMe reports whether the calling user owns path.
func ownedByMe(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
