package node_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/need"
)

// context.set refuses what it cannot mean with the field and the values
// it takes, and writes nothing then.
func TestContextSetRefusesBadValues(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	for _, c := range []struct {
		params      map[string]any
		code        int
		field, want string
	}{
		{map[string]any{"id": 1, "isolation": "sandbox"}, api.CodeInvalidParams, "isolation", `"sandbox": want host`},
		{map[string]any{"id": 1, "isolation": "Host"}, api.CodeInvalidParams, "isolation", "contained"},
		{map[string]any{"id": 1, "network": "off"}, api.CodeInvalidParams, "network", `"off": want none`},
		{map[string]any{"id": 1, "network": 0}, api.CodeInvalidParams, "network", ""},
		{map[string]any{"id": 1}, api.CodeInvalidParams, "isolation", "give isolation or network"},
		{map[string]any{"id": 0, "isolation": "host"}, api.CodeInvalidParams, "id", ""},
		{map[string]any{"id": 1, "isolatoin": "host"}, api.CodeInvalidParams, "isolatoin", ""},
		{map[string]any{"id": 7, "isolation": "host"}, api.CodeNotFound, "context 7 does not exist", "hyphae context create --id 7"},
	} {
		e := rpcErr(t, a.client.Call(context.Background(), "context.set", c.params, nil))
		if e.Code != c.code || !strings.Contains(e.Message, c.field) || !strings.Contains(e.Message, c.want) {
			t.Errorf("context.set %v: %d %q, want code %d naming %q and %q", c.params, e.Code, e.Message, c.code, c.field, c.want)
		}
	}
	var v wire.ContextView
	a.call(t, "context.load", map[string]any{"id": 1}, &v)
	if v.Isolation != "" || v.Network != "" {
		t.Fatalf("a refused context.set was written: %+v", v)
	}
}

// context.set writes both copies of the context's record (its DB, which
// the runner reads, and DB 0's registry), shows the settings in the
// context's view, keeps what it is not given, and removes a setting set
// to "" rather than leaving the old value.
func TestContextSetThenClear(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1, "name": "lab"}, nil)
	fields := func(db int) map[string]string {
		return a.redis.Client(t, db).HGetAll(context.Background(), store.ContextKey(1)).Val()
	}
	var v wire.ContextView
	a.call(t, "context.set", map[string]any{"id": 1, "isolation": "host", "network": "none"}, &v)
	if v.ID != 1 || v.Name != "lab" || v.Isolation != "host" || v.Network != "none" || len(v.Admins) != 1 {
		t.Fatalf("context.set answered %+v, want context 1 with isolation host, network none", v)
	}
	for _, db := range []int{0, 1} {
		if h := fields(db); h["isolation"] != "host" || h["network"] != "none" {
			t.Fatalf("DB %d: %v, want isolation host and network none", db, h)
		}
	}
	v = wire.ContextView{} // a field the answer leaves out must not keep the old value
	a.call(t, "context.set", map[string]any{"id": 1, "isolation": ""}, &v)
	if v.Isolation != "" || v.Network != "none" {
		t.Fatalf("after isolation \"\": %+v, want isolation gone and network kept", v)
	}
	for _, db := range []int{0, 1} {
		h := fields(db)
		if _, ok := h["isolation"]; ok || h["network"] != "none" {
			t.Fatalf("DB %d after isolation \"\": %v, want the isolation field removed, network none kept", db, h)
		}
	}
	var l []wire.ContextView
	a.call(t, "context.list", nil, &l)
	if len(l) != 1 || l[0].Isolation != "" || l[0].Network != "none" {
		t.Fatalf("context.list: %+v", l)
	}
}

// An agent that starts with a context set to isolation host says so in
// its log, once, naming the context and what its jobs can reach.
func TestHostIsolationIsLoggedAtStart(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.create", map[string]any{"id": 2}, nil)
	a.call(t, "context.set", map[string]any{"id": 2, "isolation": "host"}, nil)
	a.stop(t)

	log, lines := newCapturedLog()
	startAgent(t, agentOpts{dir: a.dir, redis: a.redis, log: log})
	out := lines.text()
	want := "jobs from other actors in context 2 run uncontained: they can read this agent's key, token and store"
	if n := strings.Count(out, want); n != 1 {
		t.Fatalf("the start logged %q %d times, want once:\n%s", want, n, out)
	}
	if strings.Contains(out, "in context 1 run uncontained") {
		t.Fatalf("context 1 (no isolation set) logged as uncontained:\n%s", out)
	}
}

func (l *capturedLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ifacesScript records the network interfaces a job sees, "lo," when it
// has only loopback.
const ifacesScript = `echo "ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ,)" >> "$HYPHAE_RESULT"`

// hostHasMoreThanLoopback says whether this machine has an interface
// other than lo (a job with the host's network then sees it).
func hostHasMoreThanLoopback(t *testing.T) bool {
	b, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return len(lines) > 3 // two header lines, lo, and more
}

func needContainment(t *testing.T) {
	t.Helper()
	need.Root(t, "network none runs the job contained: needs root here")
}

// A flow job with network: none runs with only loopback, and its hash says
// network none; a job of the same flow that says host keeps the host's.
func TestFlowJobNetworkNoneHasOnlyLoopback(t *testing.T) {
	t.Parallel()
	needContainment(t)
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	text := "name: net\ncontext: 1\nnetwork: none\njobs:\n" +
		"  cut:  {type: sh, script: '" + strings.ReplaceAll(ifacesScript, "'", "''") + "'}\n" +
		"  open: {type: sh, network: host, script: '" + strings.ReplaceAll(ifacesScript, "'", "''") + "'}\n"
	v := waitFlow(t, a, runFlow(t, a, text))
	if v.Status != "finished" {
		t.Fatalf("flow ended %s: %s", v.Status, v.Error)
	}
	if got := jobOf(t, v, "cut").Result["ifaces"]; got != "lo," {
		t.Fatalf("a job with network none sees interfaces %q, want only lo", got)
	}
	got := jobOf(t, v, "open").Result["ifaces"]
	if !strings.Contains(got, "lo,") || (hostHasMoreThanLoopback(t) && got == "lo,") {
		t.Fatalf("a job with network host (over the flow's none) sees interfaces %q, want the host's", got)
	}
	for name, want := range map[string]string{"cut": "none", "open": "host"} {
		h := a.redis.Client(t, 1).HGetAll(context.Background(), jobOf(t, v, name).Key).Val()
		if h["network"] != want {
			t.Errorf("job %s: stored network %q, want %q", name, h["network"], want)
		}
	}
}

// A context set to network none cuts the network of its jobs, which do
// not ask for it themselves.
func TestContextNetworkNoneCutsItsJobs(t *testing.T) {
	t.Parallel()
	needContainment(t)
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.set", map[string]any{"id": 1, "network": "none"}, nil)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": ifacesScript, "wait": 60}, &j)
	if j.Status != "finished" || j.Result["ifaces"] != "lo," {
		t.Fatalf("job in a context with network none: %s %q, interfaces %q; want only lo", j.Status, j.Error, j.Result["ifaces"])
	}
}
