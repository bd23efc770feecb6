// Command analyst answers questions about data with code that runs in a
// sandboxed Python kernel, and writes the run out as a notebook and a report.
package main

import (
	"os"

	"github.com/analyst-cli/analyst/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
