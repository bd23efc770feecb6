package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/internal/docscheck"
	"github.com/analyst-cli/analyst/llm"
)

// README.md's exit-code table has a row for every exit code.
func TestDocsREADMEListsEveryExitCode(t *testing.T) {
	var rows []string
	for _, code := range []int{ExitOK, ExitFailure, ExitUsage, ExitBadData, ExitModel, ExitSandbox,
		ExitBelowTarget, ExitNoAnswer, ExitChanges, ExitInterrupted} {
		rows = append(rows, fmt.Sprintf("| %d | ", code))
	}
	docscheck.Says(t, "README.md", rows...)
}

// README.md's table of commands names every command `analyst --help`
// lists, and each of their subcommands.
func TestDocsREADMEListsEveryCommand(t *testing.T) {
	root := NewCmdRoot(testFactory())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	readme := docscheck.Read(t, "README.md")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() && sub.Name() != "help" {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), "analyst ")
			named := strings.Contains(readme, "`analyst "+path)
			if !named && c != root { // a subcommand named in its parent's row: `validate`
				named = strings.Contains(readme, "`"+sub.Name()+"`")
			}
			if !named {
				t.Errorf("README.md's commands do not name `analyst %s` (%s)", path, sub.Short)
			}
			if sub.Name() != "completion" {
				walk(sub)
			}
		}
	}
	walk(root)
}

// docs/configuration.md names every configuration key by its variable.
func TestDocsConfigurationNamesEveryKey(t *testing.T) {
	var vars []string
	for _, key := range configKeys {
		vars = append(vars, "# ANALYST_"+strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))+",")
	}
	docscheck.Says(t, "docs/configuration.md", vars...)
	docscheck.Says(t, "docs/models.md", fmt.Sprintf("(default %d; at least %d)", llm.DefaultMaxReplyTokens, minReplyTokens))
}
