package e2e

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// inFlight is how many cross-agent jobs (and raw request/responses) the
// in-flight benchmark keeps going at once.
const inFlight = 64

// BenchmarkCrossAgentInFlight: two `hyphae run` agents, each its own
// process with its embedded redis-server, as on two machines; this
// process keeps 64 job.run calls going at once on alice's API socket, each
// a noop job into bob's context 4, waiting for its result. The raw
// baseline runs after it in the same benchmark: a bare host here and one
// in a helper process (BenchmarkCrossAgentProcesses's), 64 request/
// responses of 1 KiB over gossipsub in flight, each matched to its echo
// by an id in its first bytes.
//
// Metrics: jobs/s and raw-rr/s; cpu-µs/op (both agents' processes and
// both redis-servers, from /proc, per job; the client here not counted)
// and raw-cpu-µs/op (both raw hosts: this process during the raw window
// and the helper, per request/response).
func BenchmarkCrossAgentInFlight(b *testing.B) {
	alice, bob, client := crossPair(b)
	params := map[string]any{"to": bob.peer, "context": 4, "type": "noop", "script": "-", "wait": 120}
	job := func(int, int) {
		var got wire.JobView
		if err := client.Call(context.Background(), "job.run", params, &got); err != nil || got.Status != "finished" {
			b.Fatalf("job.run: %v, job %+v", err, got)
		}
	}
	spread(2*inFlight, inFlight, job) // warm: connections, mesh, scripts
	pids := []int{alice.proc.cmd.Process.Pid, bob.proc.cmd.Process.Pid,
		agentRedisPID(b, alice.dir), agentRedisPID(b, bob.dir)}
	cpu := func() (d time.Duration) {
		for _, p := range pids {
			d += procCPU(p)
		}
		return d
	}
	b.ResetTimer()
	c0, t0 := cpu(), time.Now()
	spread(b.N, inFlight, job)
	el, used := time.Since(t0), cpu()-c0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "jobs/s")
	b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
	rate, rawCPU := rawInFlight(b, b.N)
	b.ReportMetric(rate, "raw-rr/s")
	b.ReportMetric(float64(rawCPU.Microseconds())/float64(b.N), "raw-cpu-µs/op")
}

// agentRedisPID is the process id of the embedded redis-server of the
// agent in dir.
func agentRedisPID(b *testing.B, dir string) int {
	var info wire.InfoView
	if err := api.NewUnixClient(node.PathsFor(dir).Socket).Call(context.Background(), "node.info", nil, &info); err != nil {
		b.Fatal(err)
	}
	a := &leanAgent{info: info}
	pid, err := redisPID(context.Background(), a.redis(b, 0))
	if err != nil {
		b.Fatal(err)
	}
	return pid
}

// rawInFlight runs n raw request/responses, inFlight at a time, between
// a bare host here and the echo helper, and returns their rate and the
// CPU both hosts spent (this process's and the helper's).
func rawInFlight(b *testing.B, n int) (perSec float64, used time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	echo, helper := startRawEchoPID(b)
	h, ps := overlaybench.Host(b, ctx)
	in, out := overlaybench.Join(b, ps, "raw/a", "raw/b")
	if err := overlaybench.ConnectTopic(ctx, h, echo, out); err != nil {
		b.Fatal(err)
	}
	w := newRawWaiters(ctx, in)
	rr := func(_, i int) {
		if err := w.roundTrip(ctx, out, uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
	spread(2*inFlight, inFlight, rr)
	c0, h0, t0 := selfCPU(), procCPU(helper), time.Now()
	spread(n, inFlight, func(w, i int) { rr(w, i+2*inFlight) })
	el := time.Since(t0)
	return float64(n) / el.Seconds(), selfCPU() - c0 + procCPU(helper) - h0
}

// rawWaiters hands each echo read from the subscription to the caller
// waiting for its id.
type rawWaiters struct {
	mu      sync.Mutex
	waiting map[uint64]chan struct{} // guarded by mu
}

func newRawWaiters(ctx context.Context, in *pubsub.Subscription) *rawWaiters {
	w := &rawWaiters{waiting: map[uint64]chan struct{}{}}
	go func() {
		for {
			m, err := in.Next(ctx)
			if err != nil {
				return
			}
			id := binary.BigEndian.Uint64(m.Data)
			w.mu.Lock()
			if c, ok := w.waiting[id]; ok {
				close(c)
				delete(w.waiting, id)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// roundTrip publishes RawSize bytes starting with id and waits for their
// echo.
func (w *rawWaiters) roundTrip(ctx context.Context, out *pubsub.Topic, id uint64) error {
	c := make(chan struct{})
	w.mu.Lock()
	w.waiting[id] = c
	w.mu.Unlock()
	msg := make([]byte, overlaybench.RawSize)
	binary.BigEndian.PutUint64(msg, id)
	if err := out.Publish(ctx, msg); err != nil {
		return err
	}
	select {
	case <-c:
		return nil
	case <-time.After(30 * time.Second):
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}
