package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// contextAgent serves context.set and context.load of context 1 from a
// socket, keeping what context.set was given as the agent does (a field
// left out keeps its value, "" removes it), and records each context.set.
type contextAgent struct {
	mu   sync.Mutex
	c    wire.ContextView
	sets []map[string]any
}

func startContextAgent(t *testing.T) (*contextAgent, string) {
	t.Helper()
	ca := &contextAgent{c: wire.ContextView{ID: 1, Name: "lab", Admins: []uint64{1}, Readers: []uint64{}, Executors: []uint64{}}}
	table := api.NewTable()
	api.Register(table, "context.set", "", func(_ context.Context, p map[string]any) (*wire.ContextView, error) {
		ca.mu.Lock()
		defer ca.mu.Unlock()
		ca.sets = append(ca.sets, p)
		if v, ok := p["isolation"].(string); ok {
			ca.c.Isolation = v
		}
		if v, ok := p["network"].(string); ok {
			ca.c.Network = v
		}
		c := ca.c
		return &c, nil
	})
	api.Register(table, "context.load", "", func(context.Context, struct {
		ID uint64 `json:"id"`
	}) (*wire.ContextView, error) {
		ca.mu.Lock()
		defer ca.mu.Unlock()
		c := ca.c
		return &c, nil
	})
	srv := api.NewServer(table, "", nil, nil)
	sock := filepath.Join(t.TempDir(), "h.sock")
	if err := srv.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return ca, "unix://" + sock
}

// context set sends only the settings it is given (default as ""), and
// context show prints them once set, and not once removed.
func TestContextSetShowRoundTrip(t *testing.T) {
	ca, addr := startContextAgent(t)
	code, out, errOut := runCLI(t, "context", "set", "1", "--isolation", "host", "--network", "none", "--addr", addr)
	if code != ExitOK {
		t.Fatalf("context set: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"isolation: host (jobs from other actors run uncontained)", "network:   none (every job gets only loopback)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("context set printed:\n%s\nwant %q", out, want)
		}
	}
	if !strings.Contains(errOut, "warning: jobs from other actors in context 1 now run uncontained") {
		t.Fatalf("isolation host without a warning on stderr: %q", errOut)
	}
	code, out, errOut = runCLI(t, "context", "show", "1", "--addr", addr)
	if code != ExitOK || !strings.Contains(out, "isolation: host") || !strings.Contains(out, "network:   none") {
		t.Fatalf("context show: exit %d:\n%s%s", code, out, errOut)
	}

	if code, _, errOut = runCLI(t, "context", "set", "-c", "1", "--isolation", "default", "--addr", addr); code != ExitOK {
		t.Fatalf("context set --isolation default: exit %d: %s", code, errOut)
	}
	last := ca.sets[len(ca.sets)-1]
	if v, ok := last["isolation"]; !ok || v != "" {
		t.Fatalf("--isolation default sent %v, want isolation \"\"", last)
	}
	if _, ok := last["network"]; ok {
		t.Fatalf("--network not given but sent: %v", last)
	}
	_, out, _ = runCLI(t, "context", "show", "1", "--addr", addr)
	if strings.Contains(out, "isolation:") || !strings.Contains(out, "network:   none") {
		t.Fatalf("context show after --isolation default:\n%s\nwant no isolation line and network none kept", out)
	}
	_, out, _ = runCLI(t, "context", "show", "1", "--json", "--addr", addr)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["network"] != "none" || v["isolation"] != nil {
		t.Fatalf("context show --json: %v (%v)", out, err)
	}
}

// A value context set does not know, or no setting at all, is bad usage
// that says what it takes, and the agent is not asked.
func TestContextSetRefusesBadUsage(t *testing.T) {
	ca, addr := startContextAgent(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--isolation", "sandbox"}, `--isolation "sandbox": want host, contained or default`},
		{[]string{"--network", "off"}, `--network "off": want none, host or default`},
		{[]string{"--network", ""}, `--network "": want none, host or default`},
		{nil, "nothing to set"},
	} {
		args := append([]string{"context", "set", "1", "--addr", addr}, c.args...)
		code, _, errOut := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error saying %q", c.args, code, errOut, c.want)
		}
	}
	if len(ca.sets) != 0 {
		t.Fatalf("the agent was asked: %v", ca.sets)
	}
}

// --help teaches what each value does.
func TestContextSetHelpExplainsTheValues(t *testing.T) {
	code, out, _ := runCLI(t, "context", "set", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"contained  every job", "host       jobs from other actors", "key, API token and store",
		"none       every job of the context runs contained with only loopback", "default"} {
		if !strings.Contains(out, want) {
			t.Errorf("context set --help lacks %q:\n%s", want, out)
		}
	}
}
