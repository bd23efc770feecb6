package kernel_test

import (
	"context"
	"testing"
	"time"

	"github.com/analyst-cli/analyst/kernel"
)

// Records a cell logs to the "analyst.progress" logger reach the caller as
// progress (at most one per half second, the last of a task always), and
// never become outputs of the cell.
func TestProgressFromTheProgressLogger(t *testing.T) {
	k := startKernel(t, nil)
	var got []kernel.Progress
	code := `import logging, time
log = logging.getLogger("analyst.progress")
for i in range(1, 6):
    log.info(f"step {i} of 5", extra={"done": i, "total": 5, "unit": "steps"})
    time.sleep(0.3)
print("done")`
	ex, err := k.Execute(context.Background(), code, kernel.ExecOptions{Progress: func(p kernel.Progress) { got = append(got, p) }})
	if err != nil || ex.Status != kernel.StatusOK {
		t.Fatalf("cell: %v %+v", err, ex)
	}
	if len(ex.Outputs) != 1 || ex.Stdout() != "done\n" {
		t.Errorf("outputs: want only the print, got %+v", ex.Outputs)
	}
	if len(got) < 3 || len(got) > 5 {
		t.Fatalf("progress: want 3 to 5 messages (every 0.5 s, and the last step), got %+v", got)
	}
	if got[0] != (kernel.Progress{Message: "step 1 of 5", Done: 1, Total: 5, Unit: "steps"}) {
		t.Errorf("first progress %+v", got[0])
	}
	if last := got[len(got)-1]; last.Done != 5 || last.Total != 5 || last.Message != "step 5 of 5" {
		t.Errorf("last progress %+v: want step 5 of 5 (the end of a task is always sent)", last)
	}
	// Without a callback the messages are dropped; the cell is unchanged.
	ex, err = k.Execute(context.Background(), `logging.getLogger("analyst.progress").info("x", extra={"done": 1, "total": 1})`, kernel.ExecOptions{Timeout: 10 * time.Second})
	if err != nil || ex.Status != kernel.StatusOK || len(ex.Outputs) != 0 {
		t.Errorf("cell without a progress callback: %v %+v", err, ex)
	}
}
