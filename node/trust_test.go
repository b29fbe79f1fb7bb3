package node_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/overlay"
)

// impostor is a bare overlay that announces itself as an idle runner of
// sh, bash, python and special (load 0, capacity 100) without being
// registered anywhere, and counts the envelopes it receives by type.
type impostor struct {
	id *identity.Identity
	o  *overlay.Overlay

	mu  sync.Mutex
	got map[envelope.Type]int // guarded by mu
}

func newImpostor(t *testing.T, addr string) *impostor {
	t.Helper()
	id := newIdentity(t)
	cfg := overlay.Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Bootstrap: []string{addr},
		PresenceInterval: 300 * time.Millisecond}
	info := func() overlay.Info {
		return overlay.Info{Roles: []string{"runner"}, ScriptTypes: []string{"sh", "bash", "python", "special"},
			Capacity: 100, Load: 0, Version: "impostor"}
	}
	o, err := overlay.New(context.Background(), cfg, id.PrivKey(), &memPeers{}, info,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	guardOverlay(t, "impostor", o.Exposure())
	x := &impostor{id: id, o: o, got: map[envelope.Type]int{}}
	done := make(chan struct{})
	go func() { defer close(done); x.count() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = o.Shutdown(ctx)
		<-done
	})
	return x
}

// count tallies what arrives, by envelope type, until the overlay closes.
func (x *impostor) count() {
	v := &envelope.Verifier{Self: x.id}
	for r := range x.o.Inbox() {
		if env, err := v.Check(r.Data, r.From); err == nil {
			x.mu.Lock()
			x.got[env.Type]++
			x.mu.Unlock()
		}
	}
}

func (x *impostor) received(typ envelope.Type) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.got[typ]
}

// forgeResult sends to a correctly signed and sealed result for origin job
// key of context ctxID, which was never sent to the impostor.
func (x *impostor) forgeResult(t *testing.T, to peer.ID, ctxID uint64, key string) {
	t.Helper()
	x.send(t, to, envelope.TypeResult, ctxID, map[string]any{"ref": "1/message:9:9", "origin_ctx": ctxID,
		"origin_job": key, "attempt": 1, "status": "finished", "result": map[string]string{"who": "impostor"}})
}

// send seals payload p as an envelope of type typ for context ctxID and
// sends it to to.
func (x *impostor) send(t *testing.T, to peer.ID, typ envelope.Type, ctxID uint64, p map[string]any) {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	env, err := envelope.Seal(x.id, to, typ, ctxID, 1, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := x.o.Send(ctx, to, env.Marshal()); err != nil {
		t.Fatalf("impostor send: %v", err)
	}
}

// peerRow is a's peer table row of peer ("" state when it has none).
func peerRow(t *testing.T, a *agent, peer string) wire.PeerView {
	var ps []wire.PeerView
	a.call(t, "peer.list", nil, &ps)
	if i := slices.IndexFunc(ps, func(p wire.PeerView) bool { return p.PeerID == peer }); i >= 0 {
		return ps[i]
	}
	return wire.PeerView{}
}

// A supervisor-only agent routes the jobs whose runner it chooses (job.run
// to any, a flow job with no runner) only to runners registered in the
// job's context. An impostor that announces itself as an idle runner of
// the job's type gets nothing while the registered runner is busy (its
// jobs wait there), its forged result for such a job changes nothing (and
// costs it peer score), and a job of a type no registered runner runs is
// refused, saying how to register one.
func TestImpostorRunnerGetsNothing(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{roles: []string{"supervisor"}})
	r := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}, slots: 1})
	x := newImpostor(t, a.addr(t))
	grantExecutor(t, r, 1, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": r.peerID()}, nil)

	// The registered runner is busy with a job of its own; a sees it so,
	// and the impostor idle with the type.
	var blocker wire.JobView
	r.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "sleep 60"}, &blocker)
	eventually(t, 30*time.Second, "a to see r busy and the impostor idle", func() bool {
		rr, xr := peerRow(t, a, r.peerID()), peerRow(t, a, x.id.PeerID().String())
		return rr.State == "up" && rr.Load >= rr.Capacity && rr.Capacity > 0 &&
			xr.State == "up" && slices.Contains(xr.ScriptTypes, "sh")
	})

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 1, "type": "sh",
		"env": map[string]string{"SECRET": "s3cret"}, "script": `echo "who=real" >> "$HYPHAE_RESULT"`}, &j)
	flow := runFlow(t, a, "name: t\ncontext: 1\njobs:\n  one: {type: sh, script: 'echo \"who=real\" >> \"$HYPHAE_RESULT\"'}\n")
	eventually(t, 30*time.Second, "r (or the impostor) to get both jobs", func() bool {
		return len(remoteJobs(t, r, 1)) == 3 || x.received(envelope.TypeJob) > 0
	})
	if n := x.received(envelope.TypeJob); n != 0 {
		t.Fatalf("the impostor received %d job envelopes", n)
	}
	if got := waitJobBriefly(t, a, j); got.Runner != r.peerID() {
		t.Fatalf("job to any went to %q, want the registered runner %s", got.Runner, r.peerID())
	}

	// The impostor's result for the job changes nothing.
	before := a.BusStats().Rejected["unexpected_result"]
	x.forgeResult(t, a.ID().PeerID(), j.ContextID, j.Key)
	eventually(t, 30*time.Second, "the forged result refused", func() bool {
		return a.BusStats().Rejected["unexpected_result"] > before
	})
	var now wire.JobView
	a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &now)
	if now.Status == "finished" || now.Result["who"] != "" {
		t.Fatalf("after the forged result the job is %+v", now)
	}
	if a.FrameStats().Penalized == 0 {
		t.Error("the refused result cost its sender nothing")
	}

	// Released, the registered runner runs both; the impostor got no job.
	var out map[string]string
	r.call(t, "job.stop", map[string]any{"context": 1, "key": blocker.Key}, &out)
	if got := waitJob(t, a, j.ContextID, j.Key); got.Status != "finished" || got.Result["who"] != "real" || got.Runner != r.peerID() {
		t.Fatalf("job to any = %+v; want it finished by r", got)
	}
	if v := waitFlow(t, a, flow); v.Status != "finished" || v.Jobs[0].Runner != r.peerID() {
		t.Fatalf("flow = %+v; want its job finished by r", v.Status)
	}

	// A type that only the impostor announces goes to the registered
	// runner (its record sets no types: the record is the authority, and
	// an external worker there might serve it), which refuses it saying
	// why; a flow job of it fails the same way. The impostor gets nothing.
	var sp wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 1, "type": "special", "script": "true"}, &sp)
	if got := waitJob(t, a, sp.ContextID, sp.Key); got.Status != "error" ||
		!strings.Contains(got.Error, `serves script type "special"`) {
		t.Fatalf("job.run to any of a type only the impostor announces = %+v", got)
	}
	special := runFlow(t, a, "name: s\ncontext: 1\njobs:\n  one: {type: special, script: 'true'}\n")
	if v := waitFlow(t, a, special); v.Status != "error" || !strings.Contains(v.Jobs[0].Error, `serves script type "special"`) {
		t.Fatalf("flow of a type no registered runner runs = %+v", v)
	}
	if n := x.received(envelope.TypeJob); n != 0 {
		t.Fatalf("the impostor received %d job envelopes", n)
	}
}

// waitJobBriefly is a's record of job j once it names a runner.
func waitJobBriefly(t *testing.T, a *agent, j wire.JobView) wire.JobView {
	t.Helper()
	var got wire.JobView
	eventually(t, 30*time.Second, "job "+j.Key+" to be routed", func() bool {
		a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &got)
		return got.Runner != ""
	})
	return got
}

// A job to any whose registered runner is away waits unsent, and no one
// else may answer for it: an impostor's ack (even one saying the job
// started) and its refusal of the job's message change nothing. A msg_out
// job message with no dst, of a type no registered runner runs, ends in
// error saying how to register one, and goes nowhere.
func TestImpostorCannotAnswerForAWaitingJob(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{roles: []string{"supervisor"}})
	x := newImpostor(t, a.addr(t))
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	away := newIdentity(t).PeerID().String() // registered, never up
	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": away, "script_types": []string{"sh"}}, nil)
	waitPeerUp(t, a, x.id.PeerID().String())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 1, "type": "sh", "script": "true"}, &j)
	msgKey := hashField(t, a, j.ContextID, j.Key, "message_key")
	if j.Status != "dispatched" || j.Runner != "" || msgKey == "" {
		t.Fatalf("job to any with its runner away = %+v (message %q); want it waiting", j, msgKey)
	}
	ref := "1/" + msgKey
	rejected := func(reason string) int64 { return a.BusStats().Rejected[reason] }
	acks, errs := rejected("ack_from_stranger"), rejected("error_from_stranger")
	x.send(t, a.ID().PeerID(), envelope.TypeAck, 1, map[string]any{"ack_of": ref, "status": "started"})
	x.send(t, a.ID().PeerID(), envelope.TypeError, 1, map[string]any{"ack_of": ref, "error": "refused by the impostor"})
	eventually(t, 30*time.Second, "the impostor's answers refused", func() bool {
		return rejected("ack_from_stranger") > acks && rejected("error_from_stranger") > errs
	})
	var now wire.JobView
	a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &now)
	if now.Status != "dispatched" || now.Runner != "" || now.Error != "" {
		t.Fatalf("after the impostor's answers the job is %+v", now)
	}
	if st := hashField(t, a, j.ContextID, msgKey, "status"); st != "dispatched" {
		t.Fatalf("after the impostor's answers the job message is %q", st)
	}
	if n, err := dbOf(t, a.redis, 1).ZScore(context.Background(), "outbox", msgKey).Result(); err != nil || n == 0 {
		t.Fatalf("the job message left the outbox: %v", err)
	}

	rawKey, _ := rawJobMessage(t, a, 1, 7, 1, 1, 1, "", "special", "true")
	eventually(t, 30*time.Second, "the raw message refused", func() bool {
		return hashField(t, a, 1, rawKey, "status") == "error"
	})
	if e := hashField(t, a, 1, rawKey, "error"); !strings.Contains(e, "hyphae runner create 1") {
		t.Fatalf("raw message error %q; want how to register a runner", e)
	}
	if n := x.received(envelope.TypeJob); n != 0 {
		t.Fatalf("the impostor received %d job envelopes", n)
	}
}
