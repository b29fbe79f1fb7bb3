package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// grantExecutor creates context ctxID on owner and lets peer execute there.
func grantExecutor(t testing.TB, owner *agent, ctxID int, peer string) {
	t.Helper()
	owner.call(t, "context.create", map[string]any{"id": ctxID}, nil)
	owner.call(t, "context.grant", map[string]any{"id": ctxID, "actor": peer, "role": "executor"}, nil)
}

// dbClients keeps one client per test, server and DB, so polling loops do
// not open a connection per poll.
var dbClients = struct {
	sync.Mutex
	m map[dbClientKey]*redis.Client
}{m: map[dbClientKey]*redis.Client{}}

type dbClientKey struct {
	t    testing.TB
	addr string
	db   int
}

// dbOf is a client on DB n of s, shared within test t.
func dbOf(t testing.TB, s *testredis.Server, n int) *redis.Client {
	k := dbClientKey{t, s.Addr, n}
	dbClients.Lock()
	defer dbClients.Unlock()
	if c := dbClients.m[k]; c != nil {
		return c
	}
	c := s.Client(t, n)
	dbClients.m[k] = c
	t.Cleanup(func() { dbClients.Lock(); delete(dbClients.m, k); dbClients.Unlock() })
	return c
}

// hashField reads one field of a hash in an agent's context DB ("" when absent).
func hashField(t testing.TB, a *agent, ctxID uint64, key, field string) string {
	t.Helper()
	v, err := dbOf(t, a.redis, int(ctxID)).HGet(context.Background(), key, field).Result()
	if err != nil {
		return ""
	}
	return v
}

// remoteJobs lists the jobs of a context on an agent.
func remoteJobs(t testing.TB, a *agent, ctxID int) []wire.JobView {
	t.Helper()
	var jobs []wire.JobView
	a.call(t, "job.list", map[string]any{"context": ctxID}, &jobs)
	return jobs
}

// endedJobs waits until context ctxID on a holds n jobs, all ended, and
// returns them. A remote job's result leaves its runner while the runner
// records the end (bridge/early.go), so the origin may hold the result
// before the runner's own record says the job ended.
func endedJobs(t testing.TB, a *agent, ctxID, n int) []wire.JobView {
	t.Helper()
	var jobs []wire.JobView
	eventually(t, 30*time.Second, fmt.Sprintf("%d ended jobs in context %d", n, ctxID), func() bool {
		jobs = remoteJobs(t, a, ctxID)
		ended := len(jobs) == n
		for _, j := range jobs {
			ended = ended && (j.Status == "finished" || j.Status == "error")
		}
		return ended
	})
	return jobs
}

// waitRemoteStarted waits until the only job of a context on a has started.
func waitRemoteStarted(t testing.TB, a *agent, ctxID int) wire.JobView {
	t.Helper()
	var started wire.JobView
	eventually(t, 60*time.Second, "the remote job to start", func() bool {
		jobs := remoteJobs(t, a, ctxID)
		if len(jobs) == 1 && jobs[0].Status == "started" {
			started = jobs[0]
			return true
		}
		return false
	})
	return started
}

// TestBridgeTargetDownThenUp: the job is submitted while its target agent
// is down; the origin keeps it in its outbox and retransmits; once the
// target is back (same data dir and Redis) it is delivered, runs exactly
// once and the result reaches the origin.
func TestBridgeTargetDownThenUp(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}, tcpAPI: true})
	grantExecutor(t, b, 2, a.peerID())
	bDir, bRedis, bID := b.dir, b.redis, b.peerID()
	b.stop(t)

	marker := filepath.Join(t.TempDir(), "runs")
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": bID, "context": 2, "type": "sh",
		"script": `echo run >> ` + marker + `; echo "n=1" >> "$HYPHAE_RESULT"`}, &j)

	// The message is sent, finds no route, and is sent again.
	msgKey := ""
	eventually(t, 60*time.Second, "a retransmission while the target is down", func() bool {
		msgKey = hashField(t, a, j.ContextID, j.Key, "message_key")
		sends, _ := strconv.Atoi(hashField(t, a, j.ContextID, msgKey, "sends"))
		return msgKey != "" && sends >= 2
	})
	if st := hashField(t, a, j.ContextID, j.Key, "status"); st != "dispatched" {
		t.Fatalf("origin job status while the target is down = %q, want dispatched", st)
	}
	if lines(t, marker) != 0 {
		t.Fatal("the job ran while its target was down")
	}

	b2 := startAgent(t, agentOpts{dir: bDir, redis: bRedis, bootstrap: []string{a.addr(t)}})
	if b2.peerID() != bID {
		t.Fatalf("restarted target has peer ID %s, want %s", b2.peerID(), bID)
	}
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "finished" || got.Result["n"] != "1" {
		t.Fatalf("origin job = %+v", got)
	}
	if m := metrics(t, a)["hyphae_bus_retransmits_total"]; m < 1 {
		t.Errorf("retransmits = %v, want at least 1", m)
	}
	// Exactly once: wait until nothing is left in flight on either side,
	// then count the runs and the jobs on the target.
	eventually(t, 60*time.Second, "both outboxes to empty", func() bool {
		na, _ := dbOf(t, a.redis, int(j.ContextID)).ZCard(context.Background(), "outbox").Result()
		nb, _ := dbOf(t, bRedis, 2).ZCard(context.Background(), "outbox").Result()
		return na == 0 && nb == 0
	})
	if n := lines(t, marker); n != 1 {
		t.Errorf("job ran %d times, want exactly once", n)
	}
	if jobs := endedJobs(t, b2, 2, 1); jobs[0].Status != "finished" {
		t.Errorf("target context 2 jobs = %+v, want one finished", jobs)
	}
	if st := hashField(t, a, j.ContextID, msgKey, "status"); st != "processed" {
		t.Errorf("origin message status = %q, want processed", st)
	}
}

// TestBridgeOriginRestartedWhileJobRuns: the origin agent goes away while
// its job runs remotely and comes back on the same data dir and Redis; the
// result still lands on the origin job.
func TestBridgeOriginRestartedWhileJobRuns(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh",
		"script": `sleep 3; echo "answer=42" >> "$HYPHAE_RESULT"`}, &j)
	waitRemoteStarted(t, b, 2)
	aDir, aRedis := a.dir, a.redis
	a.stop(t)
	// Keep the origin down until the job has ended, so its result is
	// produced (and first sent) while there is nobody to take it.
	eventually(t, 60*time.Second, "the remote job to end while the origin is down", func() bool {
		jobs := remoteJobs(t, b, 2)
		return len(jobs) == 1 && (jobs[0].Status == "finished" || jobs[0].Status == "error")
	})
	// Dispatched, or started if b's ack saying it runs came before the stop.
	if st := hashField(t, a, j.ContextID, j.Key, "status"); st != "dispatched" && st != "started" {
		t.Fatalf("origin job status while the origin is down = %q, want it not ended", st)
	}

	a2 := startAgent(t, agentOpts{dir: aDir, redis: aRedis, bootstrap: []string{b.addr(t)}})
	got := waitJob(t, a2, j.ContextID, j.Key)
	if got.Status != "finished" || got.Result["answer"] != "42" {
		t.Fatalf("origin job after restart = %+v", got)
	}
	if ran := hashField(t, a2, j.ContextID, j.Key, "ran_on"); ran != b.peerID() {
		t.Errorf("ran_on = %q, want %s", ran, b.peerID())
	}
}

// rawJobMessage writes, as a plain Redis client would, a job message into
// context ctxID of a (HSET message + LPUSH msg_out) and returns the job key.
// extra are more message field, value pairs.
func rawJobMessage(t *testing.T, a *agent, ctxID int, caller, msgID, jobID int, target int, dst, typ, script string,
	extra ...any) (msgKey, jobKey string) {
	t.Helper()
	job := map[string]string{"id": strconv.Itoa(jobID), "caller_id": strconv.Itoa(caller),
		"script": script, "script_type": typ, "timeout": "60"}
	jobs, err := json.Marshal([]map[string]string{job})
	if err != nil {
		t.Fatal(err)
	}
	msgKey = "message:" + strconv.Itoa(caller) + ":" + strconv.Itoa(msgID)
	jobKey = "job:" + strconv.Itoa(caller) + ":" + strconv.Itoa(jobID)
	fields := []any{"id", strconv.Itoa(msgID), "caller_id", strconv.Itoa(caller),
		"context_id", strconv.Itoa(target), "message_type", "job", "job", string(jobs)}
	if dst != "" {
		fields = append(fields, "dst", dst)
	}
	fields = append(fields, extra...)
	ctx := context.Background()
	rdb := a.redis.Client(t, ctxID)
	if err := rdb.HSet(ctx, msgKey, fields...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.LPush(ctx, "msg_out", msgKey).Err(); err != nil {
		t.Fatal(err)
	}
	return msgKey, jobKey
}

// waitRawJob waits for the job of a raw message to appear (the bridge
// writes it when it takes the message from msg_out), then for it to end.
func waitRawJob(t *testing.T, a *agent, ctxID uint64, key string) wire.JobView {
	t.Helper()
	eventually(t, 30*time.Second, "the bridge to record "+key, func() bool {
		n, err := dbOf(t, a.redis, int(ctxID)).Exists(context.Background(), key).Result()
		return err == nil && n == 1
	})
	return waitJob(t, a, ctxID, key)
}

// TestBridgeRawRedisPath: a client that only does HSET message:<c>:<id> and
// LPUSH msg_out in the origin's context DB gets the job run on the target
// and its result written back onto its local job:<c>:<id>; BLPOP
// reply:job:<c>:<id> returns and the message ends processed.
func TestBridgeRawRedisPath(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 5}, nil) // the origin context

	msgKey, jobKey := rawJobMessage(t, a, 5, 7, 1, 11, 2, b.peerID(), "sh",
		`echo "host=$HYPHAE_CONTEXT_ID" >> "$HYPHAE_RESULT"; echo hello`)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rdb := a.redis.Client(t, 5)
	res, err := rdb.BLPop(ctx, 60*time.Second, "reply:"+jobKey).Result()
	if err != nil {
		t.Fatalf("BLPOP reply:%s: %v", jobKey, err)
	}
	if len(res) != 2 || res[1] != "finished" {
		t.Fatalf("BLPOP reply:%s = %v, want finished", jobKey, res)
	}
	h, err := rdb.HGetAll(ctx, jobKey).Result()
	if err != nil {
		t.Fatal(err)
	}
	var result map[string]string
	if err := json.Unmarshal([]byte(h["result"]), &result); err != nil {
		t.Fatalf("%s result %q: %v", jobKey, h["result"], err)
	}
	if h["status"] != "finished" || result["host"] != "2" || !strings.Contains(result["stdout"], "hello") {
		t.Fatalf("%s = %v", jobKey, h)
	}
	eventually(t, 30*time.Second, "the message to be processed", func() bool {
		return hashField(t, a, 5, msgKey, "status") == "processed"
	})
	if jobs := endedJobs(t, b, 2, 1); jobs[0].Status != "finished" {
		t.Errorf("target context 2 jobs = %+v, want one finished", jobs)
	}
}

// specialTrio starts b, c and a (both bootstrapped from b): only c runs
// script type "special", and both b and c let a execute in their context
// 4, so either would accept a job of a's there.
func specialTrio(t *testing.T) (a, b, c *agent) {
	t.Helper()
	b = startAgent(t, agentOpts{})
	c = startAgent(t, agentOpts{bootstrap: []string{b.addr(t)},
		executors: map[string][]string{"special": {"sh", "{file}"}}})
	a = startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 4, a.peerID())
	grantExecutor(t, c, 4, a.peerID())
	return a, b, c
}

// TestBridgeRoutesByScriptType: a job message with neither dst nor runner
// goes to the only agent registered in the context whose runner serves the
// job's script type.
func TestBridgeRoutesByScriptType(t *testing.T) {
	t.Parallel()
	a, b, c := specialTrio(t)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": b.peerID()}, nil)
	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": c.peerID()}, nil)

	_, jobKey := rawJobMessage(t, a, 1, 3, 1, 1, 4, "", "special", `echo "who=special" >> "$HYPHAE_RESULT"`)
	j := waitRawJob(t, a, 1, jobKey)
	if j.Status != "finished" || j.Result["who"] != "special" {
		t.Fatalf("origin job = %+v", j)
	}
	if r := hashField(t, a, 1, jobKey, "runner"); r != c.peerID() {
		t.Errorf("routed to %q, want c %s", r, c.peerID())
	}
	if r := hashField(t, a, 1, jobKey, "ran_on"); r != c.peerID() {
		t.Errorf("ran_on %q, want c %s", r, c.peerID())
	}
	if jobs := endedJobs(t, c, 4, 1); jobs[0].Status != "finished" {
		t.Errorf("c's context 4 jobs = %+v, want one finished", jobs)
	}
	if jobs := remoteJobs(t, b, 4); len(jobs) != 0 {
		t.Errorf("b's context 4 got %d jobs, want none", len(jobs))
	}
}

// TestBridgeStopTravels: job.stop on the origin stops the job on the agent
// that runs it; the origin job ends error "stopped".
func TestBridgeStopTravels(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh",
		"script": `sleep 300; echo "late=yes" >> "$HYPHAE_RESULT"`}, &j)
	remote := waitRemoteStarted(t, b, 2)

	var out map[string]string
	a.call(t, "job.stop", map[string]any{"context": j.ContextID, "key": j.Key}, &out)
	if out["where"] != b.peerID() {
		t.Errorf("job.stop answered %v, want it sent to %s", out, b.peerID())
	}
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "error" || !strings.Contains(got.Error, "stopped") {
		t.Fatalf("origin job = %+v, want error stopped", got)
	}
	rj := waitJob(t, b, 2, remote.Key)
	if rj.Status != "error" || !strings.Contains(rj.Error, "stopped") || rj.Result["late"] != "" {
		t.Fatalf("remote job = %+v, want error stopped", rj)
	}
}

// TestBridgeStopBeforeDelivery: job.stop of a job whose agent has not
// acknowledged it (here, an agent never seen) takes it back at once: the
// job ends error saying so, and its message leaves the outbox, so it cannot
// run when that agent appears.
func TestBridgeStopBeforeDelivery(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	away := newIdentity(t).PeerID().String()
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": away, "context": 2, "type": "sh", "script": "true"}, &j)
	var msg string
	eventually(t, 30*time.Second, "the job message in the outbox", func() bool {
		msgs, _ := a.redis.Client(t, int(j.ContextID)).ZRange(context.Background(), "outbox", 0, -1).Result()
		if len(msgs) == 1 {
			msg = msgs[0]
		}
		return msg != ""
	})

	var out map[string]string
	a.call(t, "job.stop", map[string]any{"context": j.ContextID, "key": j.Key}, &out)
	if out["withdrawn"] != "true" {
		t.Errorf("job.stop answered %v, want the job withdrawn", out)
	}
	var got wire.JobView
	a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &got)
	if got.Status != "error" || !strings.Contains(got.Error, "stopped before "+away+" acknowledged it") {
		t.Fatalf("job after the stop = %+v, want it ended, stopped", got)
	}
	// Its message leaves the outbox at the next try, unsent.
	db := a.redis.Client(t, int(j.ContextID))
	eventually(t, 30*time.Second, "the job message to be withdrawn", func() bool {
		f, _ := db.HMGet(context.Background(), msg, "status", "error").Result()
		n, _ := db.ZScore(context.Background(), "outbox", msg).Result()
		return n == 0 && f[0] == "error" && strings.Contains(fmt.Sprint(f[1]), "withdrawn: the job ended (error) before delivery")
	})
}

// TestBridgeRawMessageGivesUp: a raw message (no created_at, as a plain
// client writes it) to a peer that never answers ends with status error
// and a reason after its timeout, and so does its local job.
func TestBridgeRawMessageGivesUp(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	nobody := newIdentity(t)
	msgKey, jobKey := rawJobMessage(t, a, 1, 9, 1, 1, 2, nobody.PeerID().String(), "sh", "true", "timeout", "1")
	j := waitRawJob(t, a, 1, jobKey)
	if j.Status != "error" || !strings.Contains(j.Error, "not acknowledged") {
		t.Fatalf("job = %+v, want error: not acknowledged", j)
	}
	if st, why := hashField(t, a, 1, msgKey, "status"), hashField(t, a, 1, msgKey, "error"); st != "error" || why == "" {
		t.Fatalf("message status %q error %q, want error with a reason", st, why)
	}
	if n, _ := a.redis.Client(t, 1).ZCard(context.Background(), "outbox").Result(); n != 0 {
		t.Errorf("outbox still holds %d messages", n)
	}
}

// TestBridgeStopOfEndedJobIsAnswered: a stop that reaches the runner's
// agent after the job has ended there (the result is still on its way, or
// a raw client sent it late) gets a clear answer instead of being resent
// until its timeout.
func TestBridgeStopOfEndedJobIsAnswered(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "script": "true"}, &j)
	if got := waitJob(t, a, j.ContextID, j.Key); got.Status != "finished" {
		t.Fatalf("origin job = %+v", got)
	}
	// A stop message for the ended job, written as a raw client would.
	ctx := context.Background()
	rdb := a.redis.Client(t, int(j.ContextID))
	const msgKey = "message:9:900"
	if err := rdb.HSet(ctx, msgKey, "id", "900", "caller_id", "9", "context_id", "2", "message_type", "stop",
		"dst", b.peerID(), "origin_job", j.Key, "timeout", "600").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.LPush(ctx, "msg_out", msgKey).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the stop to be answered", func() bool {
		return hashField(t, a, j.ContextID, msgKey, "status") == "error"
	})
	if why := hashField(t, a, j.ContextID, msgKey, "error"); !strings.Contains(why, "ended") {
		t.Errorf("stop answered with %q, want it to say the job already ended", why)
	}
	if n, _ := rdb.ZCard(ctx, "outbox").Result(); n != 0 {
		t.Errorf("outbox still holds %d messages", n)
	}
	if got := endedJobs(t, b, 2, 1); got[0].Status != "finished" {
		t.Errorf("remote jobs = %+v, want the one finished job untouched", got)
	}
}
