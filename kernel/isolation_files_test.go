package kernel_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// fileCountAttack makes empty folders in each writable place until refused
// (at most four times the cap, so a missing cap fails fast), then removes
// them; it prints, per place, how many it made, the errno that stopped it and
// the place's nr_inodes in the mount table.
const fileCountAttack = `
import errno, json, os, shutil
caps = {}
for line in open("/proc/self/mounts"):
    _, where, _, opts = line.split()[:4]
    caps[where] = dict(o.split("=", 1) for o in opts.split(",") if "=" in o).get("nr_inodes", "none")
res = {}
for top, cap in %s:
    d = os.path.join(top, "files-attack")
    made, err = 0, "none"
    try:
        os.mkdir(d)
        while made < 4 * cap:
            os.mkdir(os.path.join(d, str(made)))
            made += 1
    except OSError as e:
        err = errno.errorcode[e.errno]
    shutil.rmtree(d, ignore_errors=True)
    res[top] = {"made": made, "error": err, "nr_inodes": caps.get(top, "not mounted")}
print(json.dumps(res))`

type fileCount struct {
	Made     int    `json:"made"`
	Error    string `json:"error"`
	NrInodes string `json:"nr_inodes"`
}

// Empty files and folders pin host kernel memory that a tmpfs's size cap
// does not count (rootless on cgroup v1, 3.1 million folders in /tmp held
// 1.7 GB outside --memory, and every later fork failed): each place the
// sandbox may write caps their number too, one per 4 KiB of its size. A
// cell makes folders until refused; the refusal is ENOSPC, as a cell's
// error when not caught, and the kernel keeps its state.
func TestResourceTmpFilesCapped(t *testing.T) {
	k := startKernel(t, func(o *kernel.Options) {
		o.Limits.TmpBytes = 16 << 20
		o.Limits.OutputBytes = 8 << 20
		o.OutputDir = t.TempDir()
	})
	caps := map[string]int{"/tmp": 16 << 20 >> 12, "/dev/shm": 64 << 20 >> 12, "/output": 8 << 20 >> 12}
	var places []string
	for top, c := range caps {
		places = append(places, fmt.Sprintf("(%q, %d)", top, c))
	}
	var got map[string]fileCount
	jsonCell(t, k, fmt.Sprintf(fileCountAttack, "["+strings.Join(places, ", ")+"]"), &got)
	for top, c := range caps {
		g := got[top]
		// What the kernel already has there counts against the cap.
		if g.Error != "ENOSPC" || g.Made > c || g.Made < c/2 || g.NrInodes != fmt.Sprint(c) {
			t.Errorf("%s: made %d folders, stopped by %s, nr_inodes %s; want ENOSPC after at most %d (nr_inodes %d)", top, g.Made, g.Error, g.NrInodes, c, c)
		}
	}

	// Not caught, the refusal is the cell's error; the kernel goes on.
	mustOK(t, k, "kept = 41")
	ex := runTimeout(t, k, "import os\nos.mkdir('/tmp/many')\nfor i in range(1 << 20):\n    os.mkdir(f'/tmp/many/{i}')", time.Minute)
	if ex.Status != kernel.StatusError || ex.Error == nil || ex.Error.Name != "OSError" || !strings.Contains(ex.Error.Value, "No space left on device") {
		t.Fatalf("status %s error %+v cause %q, want OSError: No space left on device", ex.Status, ex.Error, ex.Cause)
	}
	if got := mustOK(t, k, "import shutil\nshutil.rmtree('/tmp/many')\nopen('/tmp/after', 'w').write('x')\nkept + 1").Text(); got != "42" {
		t.Errorf("the kernel after the refusal: %q, want 42", got)
	}
	assertHostHealthy(t)
}
