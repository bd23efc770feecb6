package kernel

import "encoding/json"

// The protocol between a Kernel and its driver (driver/analyst_driver.py),
// all in this file: one JSON object per line, requests on the driver's
// stdin, replies on its stdout. The first line is a driverConfig; then each
// request has a "type" and, where a reply answers it, an "id" the reply
// repeats. Outputs are nbformat outputs (nbformat.Output). The driver lists
// the same field names in DEFAULT_CONFIG, REQUEST_FIELDS and REPLY_FIELDS,
// and refuses to send a field its table does not name;
// TestDriverProtocolMatchesGo checks that the two sides agree.
//
// Forked sessions (fork.go, driver/analyst_fork.py) share the container's
// stdin and stdout: a line "@N <request>" is a request for session N, and
// "@N <reply>" a line session N wrote, framed by the parent driver (so a
// session can only ever speak for itself). Inside the frame each session
// speaks this same protocol; "fork", "forked", "fork_kill" and "fork_end"
// are between Go and the parent.

// Request types (Go → driver).
const (
	reqExecute   = "execute"
	reqInterrupt = "interrupt"
	reqInfo      = "info"
	reqShutdown  = "shutdown"
	reqFork      = "fork"      // fork a session: the parent answers replyForked, the session replyReady
	reqForkKill  = "fork_kill" // kill a session at once
)

// Reply types (driver → Go).
const (
	replyReady         = "ready"  // once, after the preloads are imported
	replyOutput        = "output" // one per output of a cell, in order
	replyFile          = "file"   // one chunk of a file new or changed under /output, after a cell
	replyStatus        = "status" // the cell's end; the last line for an execute
	replyInfo          = "info"
	replyProgress      = "progress"       // how far the running cell has got; never a cell output
	replyProtocolError = "protocol_error" // a request the driver could not read
	replyForked        = "forked"         // the fork happened (or was refused, saying why)
	replyForkEnd       = "fork_end"       // a session's process ended, and how
)

// sessionFrame starts a line for or from a forked session: "@N ".
const sessionFrame = '@'

// driverConfig is the first line: the caps the driver enforces and what it
// sets up before it is ready.
type driverConfig struct {
	Preload         bool             `json:"preload"`
	StreamLimit     int              `json:"stream_limit"`
	StreamStopLimit int              `json:"stream_stop_limit"`
	ImageLimit      int              `json:"image_limit"`
	HTMLLimit       int              `json:"html_limit"`
	MaxDisplays     int              `json:"max_displays"`
	RLimits         map[string]int64 `json:"rlimits"`
	// With an output folder: where /output is, its size for messages ("256
	// MiB") and how many files the driver copies out at most.
	OutputDir      string `json:"output_dir,omitempty"`
	OutputLimit    string `json:"output_limit,omitempty"`
	OutputMaxFiles int    `json:"output_max_files,omitempty"`
	// SessionMemory is the container's memory, from which a forked session's
	// address space cap is made (driver/analyst_fork.py, _cap_memory).
	SessionMemory int64 `json:"session_memory"`
}

type executeRequest struct {
	Type string `json:"type"` // reqExecute
	ID   string `json:"id"`
	Code string `json:"code"`
	// OutputRoom is how many bytes the files copied out may still add (with
	// an output folder): the driver sends no file larger than that.
	OutputRoom int64 `json:"output_room"`
}

type interruptRequest struct {
	Type   string `json:"type"`   // reqInterrupt
	Reason string `json:"reason"` // "timeout" | "cancel"
}

type infoRequest struct {
	Type string `json:"type"` // reqInfo
	ID   string `json:"id"`
}

type shutdownRequest struct {
	Type string `json:"type"` // reqShutdown
}

// forkRequest asks the parent for session Session (a number Go chooses,
// unique in the kernel) named Name: its output area /output/NAME, and the
// seed of its random generators.
type forkRequest struct {
	Type    string `json:"type"` // reqFork
	ID      string `json:"id"`
	Session int    `json:"session"`
	Name    string `json:"name"`
	Seed    int64  `json:"seed"`
}

type forkKillRequest struct {
	Type    string `json:"type"` // reqForkKill
	Session int    `json:"session"`
}

// readyReply is the driver's first line.
type readyReply struct {
	Type      string         `json:"type"` // replyReady
	PID       int            `json:"pid"`
	UID       int            `json:"uid"`
	Python    string         `json:"python"`
	RLimits   map[string]any `json:"rlimits"` // as applied: a number or "failed: why"
	PreloadMS float64        `json:"preload_ms"`
}

// reply is any line after the ready one: the type and id, and the fields of
// the one body its type names (the bodies' field names do not overlap).
type reply struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Session int    `json:"session"` // of replyForked and replyForkEnd
	outputReply
	fileReply
	statusReply
	infoReply
	progressReply
	protocolErrorReply
	forkedReply
	forkEndReply
}

type outputReply struct {
	Output json.RawMessage `json:"output"` // an nbformat.Output
}

// fileReply is one chunk of a file copied out of /output. The first chunk
// (offset 0) gives the file's size when the driver opened it; it sends no
// more bytes than that, however the file grows. Refused says why the
// driver did not send the file, or stopped sending it (no data follows).
type fileReply struct {
	Path      string `json:"path"`
	Offset    int64  `json:"offset"`
	Size      int64  `json:"size"`
	Allocated int64  `json:"allocated"` // bytes on disk (less than Size: sparse)
	Data      string `json:"data"`      // base64
	EOF       bool   `json:"eof"`
	Refused   string `json:"refused"`
}

type statusReply struct {
	Status          string  `json:"status"` // ok | error | interrupted
	Reason          string  `json:"reason"` // of an interrupt: the request's reason
	ExecutionCount  int     `json:"execution_count"`
	DurationMS      float64 `json:"duration_ms"`
	KilledProcesses int     `json:"killed_processes"` // left running by the cell
}

type infoReply struct {
	Versions map[string]any `json:"versions"` // package: version, or null
}

// progressReply is how far a running cell has got, from a record logged to
// the "analyst.progress" logger: Done of Total Units, Message in words.
type progressReply struct {
	Message string `json:"message"`
	Done    *int64 `json:"done"`
	Total   *int64 `json:"total"`
	Unit    string `json:"unit"`
}

type protocolErrorReply struct {
	Error string `json:"error"`
}

// forkedReply answers a forkRequest: the session's process id, or why the
// parent refused to fork (then PID is 0).
type forkedReply struct {
	PID     int    `json:"pid"`
	Refusal string `json:"refusal"` // not "refused": fileReply has that field
}

// forkEndReply says a session's process ended: its exit code or the signal
// that killed it, whether the container's memory limit did (OOM), and a
// note where the parent killed it for breaking the protocol.
type forkEndReply struct {
	ExitCode *int   `json:"exit_code"`
	Signal   *int   `json:"signal"`
	OOM      bool   `json:"oom"`
	Note     string `json:"note"`
}
