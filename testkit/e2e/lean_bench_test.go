package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// leanAgent is a fresh `hyphae run` on the host with its default
// (embedded) store, mDNS and port mapping off (localArgs, checked by
// guardAgent), default presence interval.
type leanAgent struct {
	proc     *proc
	api      *api.Client
	info     wire.InfoView
	redisPID int
	startup  time.Duration // exec → first node.info answer
}

// startLean starts an agent on a fresh data dir (hyphae init not timed)
// and creates contexts 1..contexts through the API.
func startLean(b testing.TB, contexts int) *leanAgent {
	b.Helper()
	dir := newDataDir(b)
	cmd := exec.Command(bin, append([]string{"run", "--data-dir", dir}, localArgs()...)...)
	p := &proc{cmd: cmd, dir: dir, log: &syncBuf{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	a := &leanAgent{proc: p, api: api.NewUnixClient(node.PathsFor(dir).Socket)}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	b.Cleanup(p.kill)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := a.api.Call(ctx, "node.info", nil, &a.info)
		cancel()
		if err == nil {
			break
		}
		select {
		case err := <-p.done:
			b.Fatalf("hyphae run exited: %v\n%s", err, p.log)
		default:
		}
		if time.Since(start) > 30*time.Second {
			b.Fatalf("agent API did not answer within 30 s: %v\n%s", err, p.log)
		}
		time.Sleep(500 * time.Microsecond)
	}
	a.startup = time.Since(start)
	guardAgent(b, bin, dir)
	for id := 1; id <= contexts; id++ {
		if err := a.api.Call(context.Background(), "context.create", map[string]any{"id": id}, nil); err != nil {
			b.Fatalf("context.create %d: %v", id, err)
		}
	}
	if a.info.RedisSocket == "" {
		b.Fatalf("node.info names no redis socket: store %q", a.info.Store)
	}
	c := a.redis(b, 0)
	var err error
	if a.redisPID, err = redisPID(context.Background(), c); err != nil {
		b.Fatal(err)
	}
	return a
}

// redis is a client of the agent's store on DB db, closed at cleanup.
func (a *leanAgent) redis(b testing.TB, db int) *redis.Client {
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: a.info.RedisSocket, DB: db, MaxRetries: -1, PoolSize: 8})
	b.Cleanup(func() { c.Close() })
	return c
}

// leanEnvSeconds reads a window length in seconds from env, or def.
func leanEnvSeconds(b *testing.B, env string, def time.Duration) time.Duration {
	s := os.Getenv(env)
	if s == "" {
		return def
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want seconds", env, s)
	}
	return time.Duration(n * float64(time.Second))
}

// BenchmarkLeanNoopJobs: plain noop jobs through the Redis contract
// (HSET job:<c>:<id>, LPUSH queue:noop, BLPOP reply:job:<c>:<id>) from
// 4 submitters on a fresh agent's embedded store, context 1; each
// submitter waits for its job's reply before the next. The window's cost
// is all of it, background loops included, as for asynq in
// testkit/cmd/bench/asynqbase. Metrics: jobs/s; redis-cmds/op, Redis
// commands per job (INFO stats) less the client's 3; agent-cpu-µs/op,
// self-cpu-µs/op (the submitters), redis-cpu-µs/op; keys/op, keys kept per
// ended job a second after the window (all DBs). It logs the commands and
// the kept keys by kind.
func BenchmarkLeanNoopJobs(b *testing.B) { leanJobs(b, "noop", "") }

// BenchmarkLeanShTrue: BenchmarkLeanNoopJobs with sh jobs whose script is
// `true` (beside asynq's handler running sh -c true, AsynqShTrue).
func BenchmarkLeanShTrue(b *testing.B) { leanJobs(b, "sh", "true") }

// leanJobs runs BenchmarkLeanNoopJobs' window with jobs of scriptType
// running script.
func leanJobs(b *testing.B, scriptType, script string) {
	ctx := context.Background()
	a := startLean(b, 1)
	rc, meter := a.redis(b, 1), a.redis(b, 0)
	const submitters = 4
	submit := func(s, id int) { leanSubmitAs(b, rc, s, id, scriptType, script) }
	spread(20, submitters, func(s, i int) { submit(s, 1_000_000+i) }) // warm
	time.Sleep(time.Second)
	u0, err := leanSample(ctx, meter)
	if err != nil {
		b.Fatal(err)
	}
	agent0, self0 := procCPU(a.proc.cmd.Process.Pid), selfCPU()
	b.ResetTimer()
	start := time.Now()
	spread(b.N, submitters, func(s, i int) { submit(s, i) })
	el := time.Since(start)
	b.StopTimer()
	agent, self := procCPU(a.proc.cmd.Process.Pid)-agent0, selfCPU()-self0
	u1, err := leanSample(ctx, meter)
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second) // writes after the reply
	u2, err := leanSample(ctx, meter)
	if err != nil {
		b.Fatal(err)
	}
	d, n := u1.sub(u0), float64(b.N)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
	b.ReportMetric(n/el.Seconds(), "jobs/s")
	b.ReportMetric(float64(d.commands)/n-3, "redis-cmds/op")
	b.ReportMetric(per(agent), "agent-cpu-µs/op")
	b.ReportMetric(per(self), "self-cpu-µs/op")
	b.ReportMetric(per(d.cpu), "redis-cpu-µs/op")
	b.ReportMetric(float64(u2.keys-u0.keys)/n, "keys/op")
	b.ReportMetric(0, "ns/op")
	b.Logf("commands per job (client's included): %s", d.top(n, ""))
	b.Logf("keys in context 1 by kind: %s", keyKinds(ctx, rc))
}

// leanSubmit runs plain noop job job:<s+1>:<id> of context 1 through the
// Redis contract, as a seed client: HSET, LPUSH queue:noop (one
// pipeline), then BLPOP on its reply list.
func leanSubmit(tb testing.TB, rc *redis.Client, s, id int) { leanSubmitAs(tb, rc, s, id, "noop", "") }

// leanSubmitAs is leanSubmit with a job of scriptType running script.
func leanSubmitAs(tb testing.TB, rc *redis.Client, s, id int, scriptType, script string) {
	ctx := context.Background()
	key := fmt.Sprintf("job:%d:%d", s+1, id)
	_, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "id", id, "caller_id", s+1, "context_id", 1, "script_type", scriptType, "script", script,
			"retries", 0, "timeout", 60)
		p.LPush(ctx, "queue:"+scriptType, key)
		return nil
	})
	if err == nil {
		err = rc.BLPop(ctx, 30*time.Second, "reply:"+key).Err()
	}
	if err != nil {
		tb.Errorf("job %s: %v", key, err)
	}
}

// spread runs jobs 1..n on the given number of goroutines (submitter 0,
// 1, …), each taking the next as it finishes one.
func spread(n, workers int, job func(worker, i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range workers {
		wg.Go(func() {
			for i := range next {
				job(w, i)
			}
		})
	}
	for i := 1; i <= n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// BenchmarkIdleAgent: a fresh agent (default store, 1 or 20 contexts)
// left alone: after HYPHAE_BENCH_IDLE_SETTLE seconds (default 5), over
// HYPHAE_BENCH_IDLE_SECONDS (default 10) it reports the agent's CPU
// (agent-cpu-%, of one CPU), its redis-server's (redis-cpu-%, from
// /proc; redis-info-cpu-% from INFO), Redis commands/s (redis-cmds/s,
// the meter's INFO taken out), the agent's and redis-server's RSS
// (rss-MiB, redis-rss-MiB) and its start-up, exec → API answering
// (startup-ms). A bare redis-server with the embedded store's arguments
// idles beside it in the same window (bare-redis-cpu-%): the floor under
// the store's figure, under the same load. It logs which commands the
// agent's store saw.
func BenchmarkIdleAgent(b *testing.B) {
	settle := leanEnvSeconds(b, "HYPHAE_BENCH_IDLE_SETTLE", 5*time.Second)
	win := leanEnvSeconds(b, "HYPHAE_BENCH_IDLE_SECONDS", 10*time.Second)
	for _, contexts := range []int{1, 20} {
		b.Run(fmt.Sprintf("contexts=%d", contexts), func(b *testing.B) {
			ctx := context.Background()
			a := startLean(b, contexts)
			meter := a.redis(b, 0)
			pid := a.proc.cmd.Process.Pid
			bare, bc := startEmbeddedLike(b) // the floor, in the same window
			defer func() { bc.Close(); _ = bare.Process.Kill(); _ = bare.Wait() }()
			time.Sleep(settle)
			b.ResetTimer()
			u0, err := leanSample(ctx, meter)
			if err != nil {
				b.Fatal(err)
			}
			c0, r0, f0, t0 := procCPU(pid), procCPU(a.redisPID), procCPU(bare.Process.Pid), time.Now()
			time.Sleep(win)
			c1, r1, f1, el := procCPU(pid), procCPU(a.redisPID), procCPU(bare.Process.Pid), time.Since(t0)
			u1, err := leanSample(ctx, meter)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			d := u1.sub(u0)
			pct := func(d time.Duration) float64 { return 100 * d.Seconds() / el.Seconds() }
			b.ReportMetric(pct(c1-c0), "agent-cpu-%")
			b.ReportMetric(pct(r1-r0), "redis-cpu-%")
			b.ReportMetric(pct(d.cpu), "redis-info-cpu-%")
			b.ReportMetric(pct(f1-f0), "bare-redis-cpu-%")
			b.ReportMetric(float64(d.commands)/el.Seconds(), "redis-cmds/s")
			b.ReportMetric(rssMiB(pid), "rss-MiB")
			b.ReportMetric(rssMiB(a.redisPID), "redis-rss-MiB")
			b.ReportMetric(float64(a.startup.Microseconds())/1000, "startup-ms")
			b.ReportMetric(0, "ns/op")
			b.Logf("idle agent, %d contexts, over %v: %s", contexts, el.Round(time.Millisecond), d.top(el.Seconds(), "/s"))
		})
	}
}

// BenchmarkAgentStartup: b.N fresh agents (default store, data dir made
// by hyphae init beforehand), each from exec to its API answering
// node.info on the unix socket, then killed. Reports p50-ms and max-ms.
func BenchmarkAgentStartup(b *testing.B) {
	var d []float64
	for range b.N {
		a := startLean(b, 0)
		d = append(d, float64(a.startup.Microseconds())/1000)
		a.proc.kill() // before the next starts
	}
	reportMs(b, d)
}

// BenchmarkRedisServerStartup is its baseline: redis-server alone with
// the embedded store's arguments (node/embedredis childArgs: no TCP, a
// private unix socket, AOF only), exec → first PONG. Reports p50-ms and
// max-ms.
func BenchmarkRedisServerStartup(b *testing.B) {
	var d []float64
	for range b.N {
		start := time.Now()
		cmd, c := startEmbeddedLike(b)
		d = append(d, float64(time.Since(start).Microseconds())/1000)
		c.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	reportMs(b, d)
}

// BenchmarkIdleRedisServer is the idle store's floor: redis-server alone
// with the embedded store's arguments and no client but the meter, over
// HYPHAE_BENCH_IDLE_SECONDS after a second to settle; it reports
// redis-cpu-% (from /proc) and redis-info-cpu-% (INFO), as
// BenchmarkIdleAgent does for the agent's.
func BenchmarkIdleRedisServer(b *testing.B) {
	win := leanEnvSeconds(b, "HYPHAE_BENCH_IDLE_SECONDS", 10*time.Second)
	cmd, c := startEmbeddedLike(b)
	defer func() { c.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctx := context.Background()
	time.Sleep(time.Second)
	b.ResetTimer()
	u0, err := leanSample(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	r0, t0 := procCPU(cmd.Process.Pid), time.Now()
	time.Sleep(win)
	r1, el := procCPU(cmd.Process.Pid), time.Since(t0)
	u1, err := leanSample(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / el.Seconds() }
	b.ReportMetric(pct(r1-r0), "redis-cpu-%")
	b.ReportMetric(pct(u1.sub(u0).cpu), "redis-info-cpu-%")
	b.ReportMetric(0, "ns/op")
}

// startEmbeddedLike starts redis-server as node/embedredis does (its
// childArgs: no TCP, a private unix socket, AOF only) and waits for PONG.
func startEmbeddedLike(b *testing.B) (*exec.Cmd, *redis.Client) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		b.Skip("redis-server is not on PATH")
	}
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(redisBin, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--dir", dir, "--appendonly", "yes", "--databases", "64", "--save", "", "--daemonize", "no", "--logfile", "")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// A bare PING on the socket: go-redis's first dial of a socket not
	// there yet waits out its own retry backoff (about 100 ms), which
	// measured the client, not the server.
	for !rawPong(sock) {
		if time.Since(start) > 10*time.Second {
			b.Fatal("redis-server did not answer PING within 10 s")
		}
		time.Sleep(200 * time.Microsecond)
	}
	return cmd, redis.NewClient(&redis.Options{Network: "unix", Addr: sock, MaxRetries: -1})
}

// rawPong reports whether the server on unix socket sock answers PING.
func rawPong(sock string) bool {
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

func reportMs(b *testing.B, d []float64) {
	slices.Sort(d)
	b.ReportMetric(d[len(d)/2], "p50-ms")
	b.ReportMetric(d[len(d)-1], "max-ms")
	b.ReportMetric(0, "ns/op")
}
