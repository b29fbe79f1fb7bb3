// Package cli implements the hyphae commands, one noun per file. Every
// command except init, id, run and demo talks to the agent running on
// --data-dir through its API socket; none opens Redis itself. Those four
// act in this process through the Agent that main hands in (agent.go), so
// that this package imports the API client and its wire types, not the
// agent's own packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailed  = 1 // the command, job or flow failed, or was refused
	ExitUsage   = 2 // bad flags or arguments
	ExitNoAgent = 3 // no agent is running on the data dir
)

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func failed(format string, args ...any) error {
	return &exitError{ExitFailed, fmt.Errorf(format, args...)}
}

func usage(format string, args ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, args...)}
}

// globals are the flags every command takes.
type globals struct {
	agent   Agent // the agent in this process: init, id, run, demo, paths
	dataDir string
	remote  remote // --addr, --token-file (remote.go)
	stdout  io.Writer
	stderr  io.Writer
}

// Main runs the CLI with args and returns the process exit code. a is the
// agent the local commands run in this process (cmd/hyphae/agent).
func Main(ctx context.Context, a Agent, args []string) int {
	return mainWith(ctx, &globals{agent: a, stdout: os.Stdout, stderr: os.Stderr}, args)
}

// mainWith is Main writing to g's stdout and stderr.
func mainWith(ctx context.Context, g *globals, args []string) int {
	root := newRoot(g)
	root.SetArgs(args)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(g.stderr, "hyphae:", err)
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, api.ErrNoAgent):
		return ExitNoAgent
	case isUsage(err):
		return ExitUsage
	}
	return ExitFailed
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "hyphae",
		Short: "Hyphae: a peer-to-peer job agent — one binary on every machine, no central server",
		Long: `Hyphae runs one agent per machine. Agents find each other (mDNS on a LAN,
bootstrap peers and a DHT beyond it), carry signed, encrypted messages over
gossipsub and direct streams, keep state in Redis, and run jobs and DAG flows
for the actors allowed into their contexts.

Start here:
  hyphae demo                      three agents in one process, a cross-tenant flow
  hyphae init && hyphae run        a real agent on this machine (~/.hyphae)
  hyphae job run --context 1 --type sh --script 'echo hi' --wait`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	setVersionFlag(root, g.agent.Version())
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", g.agent.DefaultDataDir(),
		"agent data directory (env HYPHAE_DATA_DIR, default ~/.hyphae)")
	g.remote.register(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usage("%v (see %s --help)", err, c.CommandPath())
	})
	for _, add := range []func(*globals) *cobra.Command{
		newInit, newID, newRun, newVersion, newContext, newActor, newRunner, newJob, newPeers, newNodeInfo, newDrain, newPrune, newFlow, newDemo, newUI, newStats, newInvite, newJoin,
	} {
		root.AddCommand(add(g))
	}
	root.AddCommand(newDeadLetter(g))
	root.AddCommand(newEvent(g))    // event.go
	root.InitDefaultCompletionCmd() // now, not at Execute, so that it refuses unknown shells too
	refuseUnknownSubcommands(root)
	registerCompletions(root, g) // completion.go
	return root
}

func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "accepts ", "requires ", "invalid argument", "required flag", "flags in the group"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// refuseUnknownSubcommands makes every command that only groups others
// (job, flow, …) refuse an unknown subcommand as bad usage: cobra would
// print the group's help and exit 0, so a typo in a script passed. With no
// argument the group still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		hint := ""
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usage("unknown command %q for %q%s (see %s --help)", args[0], cmd.CommandPath(), hint, cmd.CommandPath())
	}
}
