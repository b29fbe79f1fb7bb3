package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node/api"
)

// fakeAPI serves the methods register puts in its table from a socket,
// as an agent would, and returns the --addr that reaches it.
func fakeAPI(t *testing.T, register func(*api.Table)) string {
	t.Helper()
	table := api.NewTable()
	register(table)
	srv := api.NewServer(table, "", nil, nil)
	sock := filepath.Join(t.TempDir(), "h.sock")
	if err := srv.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return "unix://" + sock
}

// runAt runs the CLI in process against the agent at addr: exit code,
// stdout and stderr.
func runAt(t *testing.T, addr string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWith(t.Context(), &globals{agent: agent.New(), stdout: &out, stderr: &errb}, append(args, "--addr", addr))
	return code, out.String(), errb.String()
}
