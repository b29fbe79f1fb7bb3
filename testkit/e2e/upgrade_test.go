package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
)

// storeSchema reads hyphae:schema from the embedded Redis of a running
// agent's data dir ("" when absent).
func storeSchema(t *testing.T, dir string) string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: filepath.Join(dir, "redis", "redis.sock")})
	defer c.Close()
	v, err := c.Get(t.Context(), store.SchemaKey).Result()
	if err != nil && err != redis.Nil {
		t.Fatalf("read %s: %v", store.SchemaKey, err)
	}
	return v
}

// A data dir written by the previous build, with a job run in it, is
// taken over by this build: the job is still there with its result, the
// schema is stamped and the log says so, and new jobs run.
func TestUpgradeFromPreviousBuild(t *testing.T) {
	t.Parallel()
	old := newBinAgent(t, "previous", oldBinary(t))
	old.hy(t, "context", "create", "--id", "1")
	var before struct {
		Key    string            `json:"key"`
		Status string            `json:"status"`
		Result map[string]string `json:"result"`
	}
	decode(t, old.hy(t, "job", "run", "--context", "1", "--wait", "--json",
		"--script", `echo "answer=42" >> "$HYPHAE_RESULT"`), &before)
	if before.Status != "finished" || before.Result["answer"] != "42" {
		t.Fatalf("the previous build's job: %+v", before)
	}
	if v := storeSchema(t, old.dir); v != "" {
		t.Fatalf("the previous build stamped %s = %q; this test wants an unstamped data dir", store.SchemaKey, v)
	}
	old.stop(t)

	cur := &binAgent{name: "current", bin: bin, dir: old.dir}
	cur.start(t)
	var after struct {
		Status string            `json:"status"`
		Result map[string]string `json:"result"`
	}
	decode(t, cur.hy(t, "job", "status", "1", before.Key, "--json"), &after)
	if after.Status != "finished" || after.Result["answer"] != "42" {
		t.Fatalf("job %s after the upgrade: %+v; want it finished with answer=42", before.Key, after)
	}
	if v := storeSchema(t, cur.dir); v != strconv.Itoa(store.Schema) {
		t.Fatalf("%s after the upgrade = %q, want %d", store.SchemaKey, v, store.Schema)
	}
	out := cur.hy(t, "job", "run", "--context", "1", "--wait", "--script", "echo after the upgrade")
	if !strings.Contains(out, "after the upgrade") {
		t.Fatalf("a job after the upgrade printed %q", out)
	}
	cur.stop(t) // its log is complete (and no longer written) once it exited
	if log := cur.proc.log.String(); !strings.Contains(log, "store: data migrated") || !strings.Contains(log, "from_schema=0") {
		t.Fatalf("the upgraded agent's log does not say it migrated from schema 0:\n%s", log)
	}
}

// A data dir stamped by a newer Hyphae is refused before anything
// starts: exit 1, a message naming the data dir and both schemas, no
// API socket.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	a := newBinAgent(t, "a", bin)
	newer := store.Schema + 1
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: filepath.Join(a.dir, "redis", "redis.sock")})
	err := c.Set(t.Context(), store.SchemaKey, newer, 0).Err()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	a.stop(t)

	run := exec.Command(bin, append([]string{"run", "--data-dir", a.dir}, localArgs()...)...)
	done := make(chan struct{})
	time.AfterFunc(2*time.Minute, func() {
		select {
		case <-done:
		default:
			_ = run.Process.Kill()
		}
	})
	out, err := run.CombinedOutput()
	close(done)
	want := fmt.Sprintf("data dir %s was written by a newer Hyphae (schema %d, this binary knows %d): upgrade the binary or use another data dir",
		a.dir, newer, store.Schema)
	if exitCode(err) != 1 || !strings.Contains(string(out), want) {
		t.Fatalf("hyphae run on a newer data dir: exit %d; want 1 and %q in:\n%s", exitCode(err), want, out)
	}
	if strings.Contains(string(out), "agent running") || strings.Contains(string(out), "draining") {
		t.Fatalf("the agent started (or says it drains) before refusing:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(a.dir, "hyphae.sock")); !os.IsNotExist(err) {
		t.Fatalf("the API socket exists after the refusal (stat: %v)", err)
	}
}
