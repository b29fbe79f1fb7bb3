package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Seed 004 (hero dispatcher protocol), read only from the seed text: jobs
// are hashes hero:job:<id>, submitted on hero:work_queue:<worker_id>,
// stopped on hero:stop_queue:<worker_id>, answered on hero:reply:<id>.

// runs counts the lines a script appended to a file: how often it ran.
func runs(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// Seed 004 "Job Processing" and "Job Completion": status started, then
// finished with output; the reply on hero:reply:<id> is the result.
func TestHeroJobRunsAndReplies(t *testing.T) {
	w := startHeroWorker(t)
	id := uuid4()
	w.job(t, id, `echo hello`)
	w.submit(t, id)
	rep, hj := w.await(t, id)
	if rep != "hello\n" || hj["status"] != "finished" || hj["output"] != "hello\n" {
		t.Fatalf("reply %q, job %v", rep, hj)
	}
	keys := w.c.Keys(context.Background(), "hero:job:*").Val() // list_jobs
	if len(keys) != 1 || keys[0] != "hero:job:"+id {
		t.Fatalf("KEYS hero:job:* = %v", keys)
	}
}

// Seed 004 "retries: Number of retry attempts": a failing job is tried
// again up to retries times, then ends error.
func TestHeroRetries(t *testing.T) {
	w := startHeroWorker(t)
	m := t.TempDir()
	flaky, doomed := uuid4(), uuid4()
	w.job(t, flaky, `echo >> `+m+`/flaky; [ $(wc -l < `+m+`/flaky) -ge 3 ] && echo ok || exit 3`, "retries", "2")
	w.job(t, doomed, `echo >> `+m+`/doomed; exit 4`, "retries", "1")
	w.submit(t, flaky, doomed)
	if rep, hj := w.await(t, flaky); rep != "ok\n" || hj["status"] != "finished" {
		t.Fatalf("flaky: reply %q, job %v", rep, hj)
	}
	if _, hj := w.await(t, doomed); hj["status"] != "error" || hj["error"] == "" {
		t.Fatalf("doomed: job %v", hj)
	}
	if n := runs(m + "/doomed"); n != 2 {
		t.Fatalf("a job with retries 1 ran %d times", n)
	}
}

// Seed 004 "prerequisites" / "dependencies" ("A job will not be
// dispatched until all its dependencies have completed successfully"):
// jobs naming another wait for it; one whose dependency failed does not
// run and ends error (the seed does not say how; error is what its
// statuses allow).
func TestHeroDependencies(t *testing.T) {
	w := startHeroWorker(t)
	m := t.TempDir()
	a, b, c, bad, d := uuid4(), uuid4(), uuid4(), uuid4(), uuid4()
	after := `[ -e ` + m + `/a_done ] && echo after || echo before`
	w.job(t, a, `while [ ! -e `+m+`/release ]; do sleep 0.05; done; touch `+m+`/a_done`)
	w.job(t, b, after, "prerequisites", `["`+a+`"]`)
	w.job(t, c, after, "dependencies", `["`+a+`"]`)
	w.job(t, bad, `exit 1`)
	w.job(t, d, `touch `+m+`/d_ran`, "dependencies", `["`+bad+`"]`)
	w.submit(t, b, c, d, bad, a)
	if _, hj := w.await(t, d); hj["status"] != "error" {
		t.Fatalf("a job whose dependency failed: %v", hj)
	}
	if _, err := os.Stat(m + "/d_ran"); err == nil {
		t.Fatal("a job whose dependency failed ran")
	}
	if err := os.WriteFile(m+"/release", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{b, c} {
		if rep, hj := w.await(t, id); rep != "after\n" || hj["status"] != "finished" {
			t.Fatalf("dependent job: reply %q, job %v", rep, hj)
		}
	}
}

// Seed 004 "log_path: Optional path to log file for job output", read by
// get_job_logs from the filesystem. The worker writes only inside its own
// log directory: a relative log_path lies there, and the worker writes
// back the file it names.
func TestHeroLogPath(t *testing.T) {
	w := startHeroWorker(t)
	id := uuid4()
	w.job(t, id, `echo line-one; echo line-two`, "log_path", "conformance-"+id+".log")
	w.submit(t, id)
	if _, hj := w.await(t, id); hj["status"] != "finished" {
		t.Fatalf("job %v", hj)
	}
	path := w.c.HGet(context.Background(), "hero:job:"+id, "log_path").Val() // get_job_logs
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "line-one") || !strings.Contains(string(b), "line-two") {
		t.Fatalf("log file %s holds %q (%v)", path, b, err)
	}
}

// Seed 004 "Job Timeouts": "HSET hero:job:{job_id} status "error" error
// "timeout"".
func TestHeroTimeout(t *testing.T) {
	w := startHeroWorker(t)
	id := uuid4()
	w.job(t, id, `sleep 60`, "timeout", "1")
	w.submit(t, id)
	if _, hj := w.await(t, id); hj["status"] != "error" || hj["error"] != "timeout" {
		t.Fatalf("job %v", hj)
	}
}

// Seed 004 "concurrent: Whether to execute in separate thread": a job
// that is not concurrent runs in the worker's own loop, which takes no
// other job off hero:work_queue:<worker_id> until it ended. (The jobs are
// queued before the worker starts, so it needs a worker of its own.)
func TestHeroNotConcurrent(t *testing.T) {
	w := newHeroWorker(t)
	if !w.own {
		t.Skip("needs a worker started after its jobs were queued")
	}
	m := t.TempDir()
	solo, next := uuid4(), uuid4()
	w.job(t, solo, `touch `+m+`/solo; while [ ! -e `+m+`/release ]; do sleep 0.05; done`, "concurrent", "false")
	w.job(t, next, `echo next`)
	w.submit(t, next, solo) // LPUSH, and BLPOP takes from the left: solo first
	w.start(t)
	eventually(t, "the solo job to start", func() bool { _, err := os.Stat(m + "/solo"); return err == nil })
	if n := w.c.LLen(context.Background(), "hero:work_queue:"+w.id).Val(); n != 1 {
		t.Fatalf("LLEN hero:work_queue while a non-concurrent job runs = %d, want 1", n)
	}
	if err := os.WriteFile(m+"/release", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{solo, next} {
		if _, hj := w.await(t, id); hj["status"] != "finished" {
			t.Fatalf("job %v", hj)
		}
	}
}

// Seed 004 worker loop and "Stop Request Handling": a job stopped before
// it ran ends error "stopped" and never runs; a running one ends error
// "stopped_by_request"; the stop requests leave the stop queue.
func TestHeroStop(t *testing.T) {
	w := newHeroWorker(t)
	if !w.own {
		t.Skip("needs a worker started after its jobs were queued")
	}
	m := t.TempDir()
	solo, queued := uuid4(), uuid4()
	w.job(t, solo, `touch `+m+`/solo; while :; do sleep 0.05; done`, "concurrent", "false")
	w.job(t, queued, `touch `+m+`/queued_ran`)
	w.submit(t, queued, solo) // solo is taken first; queued waits behind it
	w.start(t)
	eventually(t, "the running job to start", func() bool { _, err := os.Stat(m + "/solo"); return err == nil })
	w.stop(t, queued)
	if _, hj := w.await(t, queued); hj["status"] != "error" || hj["error"] != "stopped" {
		t.Fatalf("job stopped while queued: %v", hj)
	}
	w.stop(t, solo)
	if _, hj := w.await(t, solo); hj["status"] != "error" || hj["error"] != "stopped_by_request" {
		t.Fatalf("job stopped while running: %v", hj)
	}
	if _, err := os.Stat(m + "/queued_ran"); err == nil {
		t.Fatal("a job stopped while queued ran")
	}
	// "Remove stop request": both requests are gone from the stop queue.
	eventually(t, "hero:stop_queue:"+w.id+" empty", func() bool {
		return w.c.LLen(context.Background(), "hero:stop_queue:"+w.id).Val() == 0
	})
}

// onceThenBlock blocks on its first run (its pid in <m>/<name>.pid) and
// prints "again" on later runs.
func onceThenBlock(m, name string) string {
	p := filepath.Join(m, name)
	return `if [ ! -e ` + p + `.once ]; then touch ` + p + `.once; echo $$ > ` + p + `.tmp; mv ` + p + `.tmp ` + p +
		`.pid; while :; do sleep 1; done; fi; echo again`
}

// Seed 004 "Worker Failures": the worker is killed (SIGKILL) mid-job; the
// job "remains in started status"; a worker with the same worker_id
// started after requeues it and runs it again while its retries allow,
// and ends it error when they are spent.
func TestHeroWorkerDies(t *testing.T) {
	w := startHeroWorker(t)
	if !w.own {
		t.Skip("needs a worker this test can kill")
	}
	m := t.TempDir()
	again, spent := uuid4(), uuid4()
	w.job(t, again, onceThenBlock(m, "again"), "retries", "1")
	w.job(t, spent, onceThenBlock(m, "spent"))
	w.submit(t, again, spent)
	for _, name := range []string{"again", "spent"} {
		pid := waitPID(t, filepath.Join(m, name+".pid"))
		t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }) // the orphan outlives the worker
	}
	w.kill(t)
	if st := w.c.HGet(context.Background(), "hero:job:"+again, "status").Val(); st != "started" {
		t.Fatalf("status after the worker died: %q", st)
	}
	w.start(t)
	if rep, hj := w.await(t, again); rep != "again\n" || hj["status"] != "finished" {
		t.Fatalf("requeued job: reply %q, job %v", rep, hj)
	}
	if _, hj := w.await(t, spent); hj["status"] != "error" || hj["error"] == "" {
		t.Fatalf("job with no retries left: %v", hj)
	}
}

func waitPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, "pid in "+path, func() bool {
		b, _ := os.ReadFile(path)
		var err error
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}
