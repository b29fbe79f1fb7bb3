// Command hyphae is the Hyphae agent and its command-line interface: one
// binary that runs on every machine (`hyphae run`) and talks to the local
// agent (`hyphae job run …`). See `hyphae --help`. Main only turns signals
// into a cancelled context and hands the CLI the in-process agent.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/cmd/hyphae/cli"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel() // first signal: drain and stop
		<-sigs
		fmt.Fprintln(os.Stderr, "hyphae: second signal, exiting now")
		os.Exit(1)
	}()
	code := cli.Main(ctx, agent.New(), os.Args[1:])
	cancel()
	os.Exit(code)
}
