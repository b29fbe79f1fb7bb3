package executor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
)

// processGone reports whether pid no longer runs (a zombie counts as gone).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	waitFile(t, path)
	var pid int
	waitFor(t, "pid in "+path, func() bool {
		b, _ := os.ReadFile(path)
		var err error
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// A job over its timeout has its whole process group killed (a child that
// ignores SIGTERM included) and ends "timeout after Ns".
func TestTimeoutKillsProcessGroup(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	marks := t.TempDir()
	script := `trap '' TERM; sh -c 'trap "" TERM; echo $$ > ` + marks + `/child.tmp; mv ` + marks + `/child.tmp ` + marks + `/child; while :; do sleep 1; done' &
wait`
	key := submit(t, c, 1, 1, "sh", script, "timeout", 1)
	child := readPID(t, filepath.Join(marks, "child"))
	got := waitEnd(t, c, key)
	if got["status"] != "error" || got["error"] != "timeout after 1s" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	waitFor(t, "the grandchild to die", func() bool { return processGone(child) })
}

// A job that fails twice and then succeeds, with retries 2, ends finished
// at attempt 3; the attempt number is visible to the script.
func TestRetriesWithBackoff(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	counter := filepath.Join(t.TempDir(), "count")
	script := `n=$(cat ` + counter + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + counter + `
echo "seen=$n attempt=$HYPHAE_ATTEMPT" >> "$HYPHAE_RESULT"
echo "attempt=$HYPHAE_ATTEMPT" >> "$HYPHAE_RESULT"
if [ $n -lt 3 ]; then echo "boom $n" >&2; exit 3; fi`
	got := waitEnd(t, c, submit(t, c, 1, 1, "sh", script, "retries", 2))
	if got["status"] != "finished" || got["attempt"] != "3" || got["error"] != "" {
		t.Fatalf("hash %v", got)
	}
	if res := resultOf(t, got); res["attempt"] != "3" {
		t.Fatalf("result %v", res)
	}
	logs := strings.Join(mustLRange(t, c, "logs:job:1:1"), "\n")
	for _, want := range []string{"boom 1", "[hyphae] exit status 3: boom 1", "[hyphae] attempt 2", "[hyphae] attempt 3"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("logs lack %q:\n%s", want, logs)
		}
	}
}

// When the retries are spent the job ends error with the exit status and
// the last stderr line.
func TestRetriesSpent(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	got := waitEnd(t, c, submit(t, c, 1, 1, "sh", `echo first >&2; echo "last words" >&2; exit 3`, "retries", 1))
	if got["status"] != "error" || got["attempt"] != "2" || got["error"] != "exit status 3: last words" {
		t.Fatalf("hash %v", got)
	}
	if res := resultOf(t, got); res["exit_code"] != "3" {
		t.Fatalf("result %v", res)
	}
}

// Stop kills a running job's process group and ends it "error: stopped".
func TestStopRunningJob(t *testing.T) {
	h := newHarness(t)
	r := h.start(t, h.config())
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 1, "sh", `echo $$ > `+marks+`/pid.tmp; mv `+marks+`/pid.tmp `+marks+`/pid; trap '' TERM; while :; do sleep 1; done`, "retries", 3)
	pid := readPID(t, filepath.Join(marks, "pid"))
	if err := r.Stop(context.Background(), 1, key); err != nil {
		t.Fatal(err)
	}
	got := waitEnd(t, c, key)
	if got["status"] != "error" || got["error"] != "stopped" || got["attempt"] != "1" {
		t.Fatalf("hash %v", got)
	}
	waitFor(t, "the job's process to die", func() bool { return processGone(pid) })
	if err := r.Stop(context.Background(), 1, key); !errors.Is(err, executor.ErrJobEnded) {
		t.Fatalf("second stop: %v", err)
	}
	if err := r.Stop(context.Background(), 1, "job:1:404"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("stop of unknown job: %v", err)
	}
}

// A queued job that is stopped ends "error: stopped" at once and never
// starts, even once a slot is free.
func TestStopQueuedJob(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 1
	r := h.start(t, cfg)
	c := h.client(t, 1)
	marks := t.TempDir()
	blocker := submit(t, c, 1, 1, "sh", `touch `+marks+`/blocker; while [ ! -e `+marks+`/go ]; do sleep 0.05; done`)
	waitFile(t, filepath.Join(marks, "blocker"))
	queued := submit(t, c, 1, 2, "sh", `touch `+marks+`/queued-ran`)
	if err := r.Stop(context.Background(), 1, queued); err != nil {
		t.Fatal(err)
	}
	got, err := c.HGetAll(context.Background(), queued).Result()
	if err != nil || got["status"] != "error" || got["error"] != "stopped" {
		t.Fatalf("queued job right after Stop: %v %v", got, err)
	}
	if n := c.LLen(context.Background(), "queue:sh").Val(); n != 0 {
		t.Fatalf("queue:sh still has %d entries", n)
	}
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitEnd(t, c, blocker)
	after := submit(t, c, 1, 3, "sh", `true`) // FIFO: runs after anything left of job 2
	waitEnd(t, c, after)
	if _, err := os.Stat(filepath.Join(marks, "queued-ran")); err == nil {
		t.Fatal("the stopped job ran")
	}
}

// A stop marker written before the job is taken (e.g. by another agent
// process) keeps it from starting.
func TestStopMarkerBeforeClaim(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 1, "sh", `touch `+marks+`/ran`)
	if err := c.Set(context.Background(), "stop:"+key, "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	h.start(t, h.config())
	got := waitEnd(t, c, key)
	if got["status"] != "error" || got["error"] != "stopped" {
		t.Fatalf("hash %v", got)
	}
	if _, err := os.Stat(filepath.Join(marks, "ran")); err == nil {
		t.Fatal("the stopped job ran")
	}
}
