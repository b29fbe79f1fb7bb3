package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// floorAgent is one side: an envelope identity, a bare libp2p host built
// from the same key (so the pubsub author, or the stream's remote peer, is
// the envelope sender), its wire for envelopes (the inbox topics, or direct
// streams), the raw baseline's topics, and its own redis-server.
type floorAgent struct {
	id     *identity.Identity
	h      host.Host
	wire   floorWire
	out    *pubsub.Topic        // the peer's envelope inbox (joined on both wires)
	rawIn  *pubsub.Subscription // raw baseline, this agent's topic
	rawOut *pubsub.Topic        // raw baseline, the peer's topic
	rdb    *redis.Client        // the context DB
	ver    *envelope.Verifier
}

func newFloorAgent(b *testing.B, ctx context.Context, self, other string, direct bool) *floorAgent {
	b.Helper()
	id := newIdentity(b)
	h, ps := overlaybench.Host(b, ctx, libp2p.Identity(id.PrivKey()))
	a := &floorAgent{id: id, h: h, ver: &envelope.Verifier{Self: id}}
	a.rdb = testredis.Start(b, testredis.Options{Socket: true}).Client(b, floorCtxDB)
	in, out := overlaybench.Join(b, ps, "floor/"+self, "floor/"+other)
	a.out, a.wire = out, pubsubWire{in: in, out: out}
	if direct {
		a.wire = newStreamWire(ctx, h)
	}
	a.rawIn, a.rawOut = overlaybench.Join(b, ps, "raw/"+self, "raw/"+other)
	return a
}

// floorConnect connects a to c and waits until each sees the other on both
// of its outgoing topics.
func floorConnect(b *testing.B, ctx context.Context, a, c *floorAgent) {
	b.Helper()
	if err := a.h.Connect(ctx, peer.AddrInfo{ID: c.h.ID(), Addrs: c.h.Addrs()}); err != nil {
		b.Fatal(err)
	}
	sees := func(x, y *floorAgent) bool {
		return slices.Contains(x.out.ListPeers(), y.h.ID()) && slices.Contains(x.rawOut.ListPeers(), y.h.ID())
	}
	deadline := time.Now().Add(floorTimeout)
	for !sees(a, c) || !sees(c, a) {
		if time.Now().After(deadline) {
			b.Fatal("gossipsub: peers not seen on the topics in time")
		}
		time.Sleep(time.Millisecond)
	}
}

// floorJob is the job request payload (~350 bytes of JSON).
type floorJob struct {
	Ref       string         `json:"ref"`
	OriginCtx uint64         `json:"origin_ctx"`
	Context   uint64         `json:"context"`
	Message   uint64         `json:"message"`
	AckAfter  int            `json:"timeout_ack"`
	ResultBy  int            `json:"timeout_result"`
	Job       floorJobFields `json:"job"`
}

type floorJobFields struct {
	ID            int               `json:"id"`
	CallerID      string            `json:"caller_id"`
	ContextID     uint64            `json:"context_id"`
	Script        string            `json:"script"`
	ScriptType    string            `json:"script_type"`
	Timeout       int               `json:"timeout"`
	Retries       int               `json:"retries"`
	EnvVars       map[string]string `json:"env_vars"`
	Prerequisites []int             `json:"prerequisites"`
	Dependends    []int             `json:"dependends"`
	Name          string            `json:"name"`
	Attempt       int               `json:"attempt"`
	CreatedAt     int64             `json:"created_at"`
}

// floorResult is the result payload.
type floorResult struct {
	Ref        string `json:"ref"`
	Status     string `json:"status"`
	Result     string `json:"result"`
	Error      string `json:"error"`
	StartedAt  int64  `json:"started_at"`
	FinishedAt int64  `json:"finished_at"`
}

func newFloorJob(n int) floorJob {
	return floorJob{
		Ref: "job:1:" + strconv.Itoa(n), OriginCtx: floorCtxID, Context: floorCtxID, Message: uint64(n),
		AckAfter: 5, ResultBy: 60,
		Job: floorJobFields{ID: n, CallerID: "1", ContextID: floorCtxID, Script: "-", ScriptType: "noop",
			Timeout: 60, EnvVars: map[string]string{"HYPHAE_ORIGIN": "alice"}, Prerequisites: []int{},
			Dependends: []int{}, Name: "floor-" + strconv.Itoa(n), Attempt: 1, CreatedAt: time.Now().Unix()},
	}
}

// roundTrip is alice's side of one floor round trip for job n. It returns
// the time spent in crypto and in the final MULTI.
func (a *floorAgent) roundTrip(ctx context.Context, to peer.ID, n int) (crypto, final time.Duration, err error) {
	job := newFloorJob(n)
	pt, err := json.Marshal(job)
	if err != nil {
		return 0, 0, err
	}
	durable := make(chan error, 1)
	go func() { durable <- a.persist(ctx, job, pt, to) }()
	crypto, err = a.send(ctx, to, envelope.TypeJob, pt)
	if err != nil {
		return 0, 0, errors.Join(err, <-durable)
	}
	res, open, err := a.receive(ctx)
	crypto += open
	if err == nil && res.Ref != job.Ref {
		err = fmt.Errorf("result for %s, want %s", res.Ref, job.Ref)
	}
	if err = errors.Join(err, <-durable); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	err = a.finish(ctx, job, res)
	return crypto, time.Since(t0), err
}

// send seals pt to peer to and sends it on the wire; it returns the time
// spent sealing and encoding.
func (a *floorAgent) send(ctx context.Context, to peer.ID, typ envelope.Type, pt []byte) (time.Duration, error) {
	t0 := time.Now()
	env, err := envelope.Seal(a.id, to, typ, floorCtxID, 1, pt)
	if err != nil {
		return 0, err
	}
	data := env.Marshal() // a fresh slice: Publish keeps it
	d := time.Since(t0)
	return d, a.wire.publish(ctx, to, data)
}

// receive waits for the result envelope, checks, opens and decodes it.
func (a *floorAgent) receive(ctx context.Context) (floorResult, time.Duration, error) {
	var res floorResult
	rctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	m, err := a.wire.next(rctx)
	if err != nil {
		return res, 0, fmt.Errorf("waiting for the result: %w", err)
	}
	env, pt, d, err := a.open(m)
	if err != nil {
		return res, d, err
	}
	if env.Type != envelope.TypeResult {
		return res, d, fmt.Errorf("got a %v envelope, want result", env.Type)
	}
	return res, d, json.Unmarshal(pt, &res)
}

// open checks m against its sender and decrypts it, timing both.
func (a *floorAgent) open(m floorMsg) (*envelope.Envelope, []byte, time.Duration, error) {
	t0 := time.Now()
	env, err := a.ver.Check(m.data, m.from)
	if err != nil {
		return nil, nil, time.Since(t0), err
	}
	pt, err := a.ver.Open(env)
	return env, pt, time.Since(t0), err
}

// persist is alice's durable write for job: the job hash, the message hash
// and the outbox entry, one MULTI.
func (a *floorAgent) persist(ctx context.Context, job floorJob, pt []byte, to peer.ID) error {
	now := strconv.FormatInt(time.Now().Unix(), 10)
	n := strconv.Itoa(job.Job.ID)
	mkey := "message:1:" + n
	_, err := a.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, job.Ref, "id", n, "caller_id", "1", "context_id", "1", "script", "-",
			"script_type", "noop", "timeout", "60", "retries", "0", "env_vars", `{"HYPHAE_ORIGIN":"alice"}`,
			"result", "", "prerequisites", "[]", "dependends", "[]", "status", "dispatched",
			"runner", to.String(), "created_at", now, "updated_at", now)
		p.HSet(ctx, mkey, "id", n, "caller_id", "1", "context_id", "1", "message_type", "job",
			"message_format_type", "json", "timeout", "60", "timeout_ack", "5", "timeout_result", "60",
			"job", pt, "status", "dispatched", "dst", to.String(), "created_at", now)
		p.ZAdd(ctx, "outbox", redis.Z{Score: float64(time.Now().Unix()), Member: mkey})
		return nil
	})
	return err
}

// finish is alice's final write: the job and message done, the outbox entry
// gone, the result pushed for the waiter.
func (a *floorAgent) finish(ctx context.Context, job floorJob, res floorResult) error {
	now := strconv.FormatInt(time.Now().Unix(), 10)
	mkey := "message:1:" + strconv.Itoa(job.Job.ID)
	_, err := a.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, job.Ref, "status", res.Status, "result", res.Result, "updated_at", now)
		p.HSet(ctx, mkey, "status", "processed", "updated_at", now)
		p.ZRem(ctx, "outbox", mkey)
		p.LPush(ctx, "reply:"+job.Ref, res.Status)
		return nil
	})
	return err
}
