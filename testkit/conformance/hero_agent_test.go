package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/testnet"
	"github.com/redis/go-redis/v9"
)

// The hero dispatcher (seed 004) is a worker on a Redis, not an RPC
// server: its tests need the Redis it serves and its worker id. By
// default each test starts a redis-server and a hyphae agent serving one
// worker id on it; to test another implementation set
//
//	CONFORMANCE_HERO_REDIS   the Redis its worker serves, e.g. redis://127.0.0.1:6379
//	CONFORMANCE_HERO_WORKER  that worker's id
//
// (its jobs must run sh scripts on this machine, sharing /tmp). The tests
// that kill the worker run only against the agents they start.

// heroWorker is a hero dispatcher worker under test.
type heroWorker struct {
	c      *redis.Client
	id     string // worker_id
	redis  string
	own    bool      // started here: it can be killed and started again
	agent  *exec.Cmd // the running agent, when own
	logDir string
}

var (
	heroBinOnce sync.Once
	heroBin     string
	heroBinErr  error
)

// heroBinary builds cmd/hyphae once for the hero tests.
func heroBinary(t *testing.T) string {
	t.Helper()
	heroBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "conf-hero")
		if err != nil {
			heroBinErr = err
			return
		}
		heroBin = filepath.Join(dir, "hyphae")
		out, err := gobuild.Command("", "-o", heroBin, "github.com/hyphae-run/hyphae/cmd/hyphae").CombinedOutput()
		if err != nil {
			heroBinErr = fmt.Errorf("build hyphae: %v\n%s", err, out)
		}
	})
	if heroBinErr != nil {
		t.Fatal(heroBinErr)
	}
	return heroBin
}

// startHeroWorker gives the test a running hero worker.
func startHeroWorker(t *testing.T) *heroWorker {
	t.Helper()
	w := newHeroWorker(t)
	if w.own {
		w.start(t)
	}
	return w
}

// newHeroWorker gives the test a hero worker: the one named by the
// environment, or a redis-server of its own with no agent started yet.
func newHeroWorker(t *testing.T) *heroWorker {
	t.Helper()
	if url := os.Getenv("CONFORMANCE_HERO_REDIS"); url != "" {
		w := &heroWorker{id: os.Getenv("CONFORMANCE_HERO_WORKER"), redis: url}
		w.c = heroClient(t, url)
		return w
	}
	w := &heroWorker{id: "w-" + fmt.Sprint(time.Now().UnixNano()), own: true, logDir: t.TempDir()}
	port := freePort()
	w.redis = "redis://127.0.0.1:" + port
	srv := startProc(t, w.logDir, "redis", "redis-server", "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	t.Cleanup(func() { killGroup(srv) })
	if err := waitFor(func() bool { c, err := net.Dial("tcp", "127.0.0.1:"+port); ok(c); return err == nil }); err != nil {
		t.Fatal("redis-server did not answer")
	}
	w.c = heroClient(t, w.redis)
	return w
}

func heroClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// start starts an agent (a fresh data dir each time: another machine's
// worker with the same worker id) serving the worker id.
func (w *heroWorker) start(t *testing.T) {
	t.Helper()
	bin := heroBinary(t)
	data := t.TempDir()
	if out, err := exec.Command(bin, "init", "--data-dir", data).CombinedOutput(); err != nil {
		t.Fatalf("hyphae init: %v\n%s", err, out)
	}
	w.agent = startProc(t, w.logDir, "agent", bin, testnet.HostRunArgs("run", "--data-dir", data, "--redis", w.redis,
		"--api", "127.0.0.1:"+freePort(), "--listen", "/ip4/127.0.0.1/tcp/0",
		"--roles", "runner", "--concurrency", "4", "--worker-id", w.id)...)
	agent := w.agent
	t.Cleanup(func() { killGroup(agent) })
}

// kill kills the agent with SIGKILL, as a crash would: the jobs it ran
// are in process groups of their own and live on.
func (w *heroWorker) kill(t *testing.T) {
	t.Helper()
	killGroup(w.agent)
}

// startProc starts a process in its own process group, its output in
// <dir>/<name>.log (printed when the test fails).
func startProc(t *testing.T, dir, name, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano()))
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	t.Cleanup(func() {
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("%s log:\n%s", name, b)
		}
	})
	return cmd
}

func killGroup(cmd *exec.Cmd) {
	if cmd.ProcessState != nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

// job writes hero:job:<id> as the seed's "Job Creation" does (HSET of the
// job fields; created_at/updated_at ISO 8601, status dispatched).
func (w *heroWorker) job(t *testing.T, id, script string, fields ...any) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	all := append([]any{"id", id, "caller_id", "conformance", "worker_id", w.id, "context_id", "1",
		"script", script, "timeout", "60", "retries", "0", "concurrent", "true",
		"created_at", now, "updated_at", now, "status", "dispatched"}, fields...)
	if err := w.c.HSet(context.Background(), "hero:job:"+id, all...).Err(); err != nil {
		t.Fatal(err)
	}
}

// submit is the seed's "Job Submission": LPUSH hero:work_queue:<worker>.
func (w *heroWorker) submit(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := w.c.LPush(context.Background(), "hero:work_queue:"+w.id, id).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// stop is the seed's dispatcher.stop_job: LPUSH hero:stop_queue:<worker>.
func (w *heroWorker) stop(t *testing.T, id string) {
	t.Helper()
	if err := w.c.LPush(context.Background(), "hero:stop_queue:"+w.id, id).Err(); err != nil {
		t.Fatal(err)
	}
}

// await is run_job_and_await_result's wait: BLPOP hero:reply:<id>; it
// returns the reply and HGETALL hero:job:<id> (get_job_status).
func (w *heroWorker) await(t *testing.T, id string) (string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	res, err := w.c.BLPop(ctx, time.Minute, "hero:reply:"+id).Result()
	if err != nil {
		t.Fatalf("BLPOP hero:reply:%s: %v", id, err)
	}
	return res[1], w.c.HGetAll(ctx, "hero:job:"+id).Val()
}

// uuid4 is the seed's job id: a random UUID v4.
func uuid4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
