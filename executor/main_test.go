package executor_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
)

// childEnv switches the test binary into a runner process (see runChild),
// so a test can kill -9 a real process that holds jobs.
const childEnv = "HYPHAE_TEST_RUNNER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := runChild(); err != nil {
			fmt.Fprintln(os.Stderr, "child runner:", err)
			os.Exit(2)
		}
		return
	}
	os.Exit(m.Run())
}

// runChild runs a Runner on context 1 until the process is killed.
// Settings come from HYPHAE_TEST_REDIS, HYPHAE_TEST_DATA_DIR,
// HYPHAE_TEST_RUNNER_ID and HYPHAE_TEST_LEASE.
func runChild() error {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	st, err := store.Open(ctx, os.Getenv("HYPHAE_TEST_REDIS"), log)
	if err != nil {
		return err
	}
	lease, err := time.ParseDuration(os.Getenv("HYPHAE_TEST_LEASE"))
	if err != nil {
		return err
	}
	r, err := executor.New(executor.Config{
		DataDir: os.Getenv("HYPHAE_TEST_DATA_DIR"), RunnerID: os.Getenv("HYPHAE_TEST_RUNNER_ID"),
		Concurrency: 2, Lease: lease, Contexts: fixedContexts(1),
	}, parts(st), log)
	if err != nil {
		return err
	}
	if err := r.Start(ctx); err != nil {
		return err
	}
	select {} // until killed
}
