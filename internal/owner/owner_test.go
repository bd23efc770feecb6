package owner_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/analyst-cli/analyst/internal/owner"
)

// The caller is alive; a process that has exited is not, nor is a pid that
// was reused by a process started at another time.
func TestAlive(t *testing.T) {
	self := owner.Self()
	if self.PID != os.Getpid() || self.Start == 0 || !self.Alive() {
		t.Fatalf("Self() = %+v, alive %v", self, self.Alive())
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if gone := (owner.Owner{PID: cmd.Process.Pid}); gone.Alive() {
		t.Errorf("an exited process (pid %d) is alive", gone.PID)
	}
	if reused := (owner.Owner{PID: self.PID, Start: self.Start + 1}); reused.Alive() {
		t.Errorf("a pid with another start time is alive: %+v", reused)
	}
	if unknown := (owner.Owner{PID: self.PID}); !unknown.Alive() {
		t.Errorf("a live pid without a start time is not alive")
	}
}

func TestParseAndFile(t *testing.T) {
	for in, want := range map[string]owner.Owner{"12:345": {PID: 12, Start: 345}, "12": {PID: 12}, " 7:1\n": {PID: 7, Start: 1}} {
		if got, err := owner.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "0", "-3", "12:x"} {
		if got, err := owner.Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, got)
		}
	}
	dir := t.TempDir()
	if _, err := owner.ReadFile(dir); err == nil {
		t.Errorf("a folder without an owner file has an owner")
	}
	if err := owner.WriteFile(dir); err != nil {
		t.Fatal(err)
	}
	if got, err := owner.ReadFile(dir); err != nil || got != owner.Self() {
		t.Errorf("ReadFile = %+v, %v; want %+v", got, err, owner.Self())
	}
}
