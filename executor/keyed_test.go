package executor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// track is a directory where jobs record what they do: a shared event log
// (one "start <name>" / "end <name>" line each, appended under a lock) and
// per-group counters of jobs running at once, whose peaks are kept.
type track struct{ dir string }

func newTrack(t *testing.T) track { return track{dir: t.TempDir()} }

// script is a job's script: it records its start (bumping the running
// count of group), runs body, records its end and exits as body did.
func (tr track) script(name, group, body string) string {
	lock, log := filepath.Join(tr.dir, "lock"), filepath.Join(tr.dir, "events")
	cnt, peak := filepath.Join(tr.dir, group+".count"), filepath.Join(tr.dir, group+".peaks")
	return fmt.Sprintf(`flock %[1]s sh -c 'n=$(( $(cat %[3]s 2>/dev/null || echo 0) + 1 )); echo $n > %[3]s; echo $n >> %[4]s; echo "start %[5]s" >> %[2]s'
touch %[6]s/%[5]s.started
%[7]s
rc=$?
flock %[1]s sh -c 'echo $(( $(cat %[3]s) - 1 )) > %[3]s; echo "end %[5]s" >> %[2]s'
exit $rc`, lock, log, cnt, peak, name, tr.dir, body)
}

// awaitStarted is a script body that waits (bounded) until job other has
// started: two jobs that await each other can only both end if they ran
// at the same time.
func (tr track) awaitStarted(other string) string {
	return fmt.Sprintf(`i=0; while [ ! -e %s/%s.started ]; do i=$((i+1)); [ $i -gt 600 ] && exit 7; sleep 0.05; done`, tr.dir, other)
}

func (tr track) events(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.dir, "events"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// peak is the most jobs of group seen running at once.
func (tr track) peak(t *testing.T, group string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.dir, group+".peaks"))
	if err != nil {
		t.Fatal(err)
	}
	p := 0
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		p = max(p, n)
	}
	return p
}

// only keeps the events of the named jobs, in their order.
func only(events []string, names ...string) []string {
	var out []string
	for _, e := range events {
		for _, n := range names {
			if strings.HasSuffix(e, " "+n) {
				out = append(out, e)
			}
		}
	}
	return out
}

func keyed(k string, max int) []any {
	f := []any{model.ExtraConcurrencyKey, k}
	if max > 0 {
		f = append(f, model.ExtraMaxInFlight, max)
	}
	return f
}

func mustFinish(t *testing.T, c *redis.Client, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if h := waitEnd(t, c, k); h["status"] != "finished" {
			t.Fatalf("%s ended %v", k, h)
		}
	}
}

// Five jobs with one key run strictly one after another, in submission
// order, while a job with another key runs beside them (it waits for the
// first of them to start, and the first waits for it).
func TestKeyedJobsRunOneAfterAnotherInOrder(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 4
	h.start(t, cfg)
	c := h.client(t, 1)
	tr := newTrack(t)
	var keys []string
	names := []string{"a1", "a2", "a3", "a4", "a5"}
	for i, n := range names {
		body := "sleep 0.1"
		if n == "a1" {
			body = tr.awaitStarted("b1")
		}
		keys = append(keys, submit(t, c, 1, i+1, "sh", tr.script(n, "a", body), keyed("device-a", 0)...))
	}
	keys = append(keys, submit(t, c, 1, 9, "sh", tr.script("b1", "b", tr.awaitStarted("a1")), keyed("device-b", 0)...))
	mustFinish(t, c, keys...)

	var want []string
	for _, n := range names {
		want = append(want, "start "+n, "end "+n)
	}
	if got := only(tr.events(t), names...); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("jobs of key device-a ran as\n%v\nwant\n%v", got, want)
	}
	if p := tr.peak(t, "a"); p != 1 {
		t.Fatalf("%d jobs of key device-a ran at once", p)
	}
}

// max_in_flight 2: never more than two jobs of the key at once, and two
// do run at once (the first two wait for each other).
func TestKeyedMaxInFlightTwo(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 4
	h.start(t, cfg)
	c := h.client(t, 1)
	tr := newTrack(t)
	var keys []string
	for i := 1; i <= 6; i++ {
		body := "sleep 0.1"
		switch i {
		case 1:
			body = tr.awaitStarted("k2")
		case 2:
			body = tr.awaitStarted("k1")
		}
		keys = append(keys, submit(t, c, 1, i, "sh", tr.script(fmt.Sprintf("k%d", i), "k", body), keyed("pair", 2)...))
	}
	mustFinish(t, c, keys...)
	if p := tr.peak(t, "k"); p != 2 {
		t.Fatalf("peak of jobs of key pair at once: %d, want 2 (max_in_flight 2)", p)
	}
}

// A job of the key that fails, and one that times out, give the key back:
// the jobs behind them run.
func TestKeyedReleasedAfterFailureAndTimeout(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	fail := submit(t, c, 1, 1, "sh", "exit 3", keyed("k", 0)...)
	slow := submit(t, c, 1, 2, "sh", "sleep 30", append(keyed("k", 0), "timeout", 1)...)
	last := submit(t, c, 1, 3, "sh", "true", keyed("k", 0)...)
	if got := waitEnd(t, c, fail); got["status"] != "error" {
		t.Fatalf("failing job: %v", got)
	}
	if got := waitEnd(t, c, slow); got["status"] != "error" || !strings.Contains(got["error"], "timeout") {
		t.Fatalf("slow job: %v", got)
	}
	mustFinish(t, c, last)
	if st, err := h.st.Queues.KeyedStateOf(t.Context(), 1, "k"); err != nil || len(st.Running)+len(st.Parked) != 0 {
		t.Fatalf("key k still holds %+v %v", st, err)
	}
}

// A runner killed (kill -9) while a keyed job runs does not hold the key
// for ever: the restarted runner reclaims the job (no retries left: it
// fails) and the job parked behind it runs.
func TestKeyedNotStuckAfterRunnerKill(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	child := startChild(t, h, "runner-a", 30*time.Second)
	first := submit(t, c, 1, 1, "sh", crashScript(marks), keyed("k", 0)...)
	pid := readPID(t, filepath.Join(marks, "pid"))
	killOnCleanup(t, pid)
	second := submit(t, c, 1, 2, "sh", "true", keyed("k", 0)...)
	waitFor(t, "the second job to be parked", func() bool {
		st, err := h.st.Queues.KeyedStateOf(t.Context(), 1, "k")
		return err == nil && len(st.Parked) == 1
	})
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	h.start(t, h.config()) // same runner id: it reclaims its processing list
	if got := waitEnd(t, c, first); got["status"] != "error" {
		t.Fatalf("first job after the crash: %v", got)
	}
	mustFinish(t, c, second)
}

// runner.types.<type>.max_in_flight: at most one sh job at once, over two
// contexts, while a bash job runs beside one of them.
func TestTypeLimitHonoured(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 4
	cfg.TypeLimits = map[string]int{"sh": 1}
	cfg.Contexts = fixedContexts(1, 2)
	h.start(t, cfg)
	c1, c2 := h.client(t, 1), h.client(t, 2)
	tr := newTrack(t)
	var keys1, keys2 []string
	for i := 1; i <= 6; i++ {
		body := "sleep 0.1"
		if i == 1 {
			body = tr.awaitStarted("bash1")
		}
		c, keys := c1, &keys1
		if i%2 == 0 {
			c, keys = c2, &keys2
		}
		*keys = append(*keys, submit(t, c, 1, i, "sh", tr.script(fmt.Sprintf("sh%d", i), "sh", body)))
	}
	keys1 = append(keys1, submit(t, c1, 1, 9, "bash", tr.script("bash1", "bash", tr.awaitStarted("sh1"))))
	mustFinish(t, c1, keys1...)
	mustFinish(t, c2, keys2...)
	if p := tr.peak(t, "sh"); p != 1 {
		t.Fatalf("%d sh jobs ran at once, limit 1", p)
	}
}

// runner.max_in_flight_per_context: one job of context 1 at a time, while
// context 2's job runs beside it.
func TestContextLimitHonoured(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 4
	cfg.MaxInFlightPerContext = 1
	cfg.Contexts = fixedContexts(1, 2)
	h.start(t, cfg)
	c1, c2 := h.client(t, 1), h.client(t, 2)
	tr := newTrack(t)
	var keys []string
	for i := 1; i <= 3; i++ {
		body := "sleep 0.1"
		if i == 1 {
			body = tr.awaitStarted("other")
		}
		keys = append(keys, submit(t, c1, 1, i, "sh", tr.script(fmt.Sprintf("c%d", i), "c1", body)))
	}
	other := submit(t, c2, 1, 1, "sh", tr.script("other", "c2", tr.awaitStarted("c1")))
	mustFinish(t, c1, keys...)
	mustFinish(t, c2, other)
	if p := tr.peak(t, "c1"); p != 1 {
		t.Fatalf("%d jobs of context 1 ran at once, limit 1", p)
	}
}

// A job of the key that is retried keeps the key between its attempts:
// the job behind it starts only after its last attempt.
func TestKeyedRetryKeepsTheKey(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 4
	h.start(t, cfg)
	c := h.client(t, 1)
	tr := newTrack(t)
	flaky := submit(t, c, 1, 1, "sh", tr.script("a1", "a", `[ "$HYPHAE_ATTEMPT" -gt 1 ]`),
		append(keyed("k", 0), "retries", 1)...)
	next := submit(t, c, 1, 2, "sh", tr.script("a2", "a", "true"), keyed("k", 0)...)
	mustFinish(t, c, flaky, next)
	want := "start a1,end a1,start a1,end a1,start a2,end a2"
	if got := strings.Join(only(tr.events(t), "a1", "a2"), ","); got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}
