package kernel_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/kerneltest"
)

// Extra mounts (a Parquet file's converted columns) are readable and
// read-only: code in the kernel cannot change or add files there.
func TestExtraMountIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	data := filepath.Join(dir, "x.parquet")
	os.WriteFile(data, []byte("PAR1"), 0o644)
	cols := filepath.Join(dir, "cols")
	os.Mkdir(cols, 0o755)
	os.WriteFile(filepath.Join(cols, "schema.json"), []byte(`{"rows": 1}`), 0o644)
	k := kerneltest.Start(t, func(o *kernel.Options) {
		o.Data = data
		o.Mounts = []kernel.Mount{{Source: cols, Target: kernel.DataMount + "/x.parquet.columns"}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ex, err := k.Execute(ctx, `
import errno
print(open("/data/x.parquet.columns/schema.json").read())
for attempt in ("open('/data/x.parquet.columns/schema.json', 'w')", "open('/data/x.parquet.columns/new', 'w')"):
    try:
        eval(attempt)
        print("WROTE", attempt)
    except OSError as e:
        print(errno.errorcode[e.errno])
`, kernel.ExecOptions{})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("%v %v", err, ex.Error)
	}
	if got, want := ex.Stdout(), "{\"rows\": 1}\nEROFS\nEROFS\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(cols, "schema.json")); !strings.Contains(string(b), "rows") {
		t.Errorf("schema.json changed: %q", b)
	}
}
