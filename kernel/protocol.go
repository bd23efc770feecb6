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

// Request types (Go → driver).
const (
	reqExecute   = "execute"
	reqInterrupt = "interrupt"
	reqInfo      = "info"
	reqShutdown  = "shutdown"
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
)

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
	Type string `json:"type"`
	ID   string `json:"id"`
	outputReply
	fileReply
	statusReply
	infoReply
	progressReply
	protocolErrorReply
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
