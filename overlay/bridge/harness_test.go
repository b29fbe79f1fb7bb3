package bridge

import (
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// waitFor bounds every wait of the protocol tests; a pass takes far less.
const waitFor = 30 * time.Second

// giveUp fires when a wait of the protocol tests is over.
func giveUp() <-chan time.Time { return time.After(waitFor) }

// side is one agent for the protocol tests: a Bridge on its own
// redis-server, with its own key, on a fakeNet. There is no runner: a
// test plays it (side.finish ends a received job as the runner would).
type side struct {
	id   *identity.Identity
	srv  *testredis.Server
	st   *store.Store
	tr   *fakeTransport
	net  *fakeNet
	cfg  Config
	b    *Bridge
	stop chan string // job keys StopLocal was called with
}

// newSide starts a bridge on n; tweak, when given, adjusts its config.
// Everything stops when the test ends (the bridge before its Redis).
func newSide(t *testing.T, n *fakeNet, tweak func(*Config)) *side {
	t.Helper()
	srv := testredis.Start(t)
	st, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &side{id: newTestIdentity(t), srv: srv, st: st, net: n, stop: make(chan string, 16)}
	s.tr = n.attach(s.id.PeerID())
	s.cfg = Config{Self: s.id, Contexts: st.Registry.ContextIDs, LocalTypes: func() []string { return nil },
		StopLocal: func(_ context.Context, _ uint64, key string) error { s.stop <- key; return nil }}
	if tweak != nil {
		tweak(&s.cfg)
	}
	s.start(t)
	t.Cleanup(func() {
		n.stopBridges(t)
		s.tr.close()
		_ = st.Close()
	})
	return s
}

// parts hands the bridge the store's concern types.
func parts(st *store.Store) Store {
	return Store{Jobs: st.Jobs, Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Events: st.Events, Registry: st.Registry, Logs: st.Logs}
}

// start runs a new bridge for s on its store and transport.
func (s *side) start(t *testing.T) {
	t.Helper()
	b, err := New(s.cfg, parts(s.st), s.tr, testLogger(t, s.name()[len(s.name())-6:]))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.b = b
	s.net.running(b)
	s.b.Kick()
}

// restart stops s's bridge and starts a new one on the same store and
// transport, as an agent restarting on its data does.
func (s *side) restart(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	s.start(t)
}

func newTestIdentity(t *testing.T) *identity.Identity {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// testLogger discards the bridge's log unless the test runs verbose.
func testLogger(t *testing.T, who string) *slog.Logger {
	if !testing.Verbose() {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", who)
}

func (s *side) peer() peer.ID { return s.id.PeerID() }
func (s *side) name() string  { return s.id.PeerID().String() }

// context creates context id here and lets the bridge serve it.
func (s *side) context(t *testing.T, id uint64) {
	t.Helper()
	if err := s.st.Registry.CreateContext(context.Background(), &model.Context{ID: id}); err != nil {
		t.Fatal(err)
	}
	s.b.Kick()
}

// grant creates context id and gives the actor with pubkey role there.
func (s *side) grant(t *testing.T, id uint64, pubkey string, role model.Role) {
	t.Helper()
	s.context(t, id)
	s.let(t, id, pubkey, role)
}

// let gives the actor with pubkey (made when unknown) role in existing
// context id.
func (s *side) let(t *testing.T, id uint64, pubkey string, role model.Role) {
	t.Helper()
	ctx := context.Background()
	a, err := s.st.Registry.EnsureActor(ctx, pubkey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.st.Registry.Grant(ctx, id, a.ID, role); err != nil {
		t.Fatal(err)
	}
}

// submit sends a new sh job from context origin to context target of dst,
// as job.run does, and returns it (its key: store.JobKey).
func (s *side) submit(t *testing.T, origin, target uint64, dst, script string, timeout time.Duration) *model.RunnerJob {
	t.Helper()
	j := &model.RunnerJob{CallerID: 1, Script: script, ScriptType: "sh",
		Status: model.JobDispatched, Attempt: 1, Runner: dst}
	if _, err := s.b.Submit(context.Background(), origin, target, dst, j, timeout, false); err != nil {
		t.Fatalf("submit: %v", err)
	}
	return j
}

// rawMessage writes a message as a plain Redis client would (HSET, then
// LPUSH msg_out) into context ctxID and returns its key; fields are the
// hash's field, value pairs besides id and caller_id.
func (s *side) rawMessage(t *testing.T, ctxID, caller, id uint64, fields ...any) string {
	t.Helper()
	key := store.MessageKey(caller, id)
	db := s.db(t, ctxID)
	ctx := context.Background()
	all := append([]any{"id", u64(id), "caller_id", u64(caller)}, fields...)
	if err := db.HSet(ctx, key, all...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.LPush(ctx, store.MsgOutKey, key).Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

// db is a client of DB id (0: the agent's global DB, else a context's).
func (s *side) db(t *testing.T, id uint64) *redis.Client {
	t.Helper()
	return s.srv.Client(t, int(id))
}

func jobKey(j *model.RunnerJob) string { return store.JobKey(j.CallerID, j.ID) }

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// job is context ctxID's job key as stored now.
func (s *side) job(t *testing.T, ctxID uint64, key string) *model.RunnerJob {
	t.Helper()
	j, err := s.st.Jobs.LoadJobKey(context.Background(), ctxID, key)
	if err != nil {
		t.Fatalf("job %s: %v", key, err)
	}
	return j
}

// msg is context ctxID's message key as stored now.
func (s *side) msg(t *testing.T, ctxID uint64, key string) *model.Message {
	t.Helper()
	m, err := s.st.Bus.LoadMessageKey(context.Background(), ctxID, key)
	if err != nil {
		t.Fatalf("message %s: %v", key, err)
	}
	return m
}

// jobs lists context ctxID's jobs.
func (s *side) jobs(t *testing.T, ctxID uint64) []*model.RunnerJob {
	t.Helper()
	js, err := s.st.Jobs.ListJobs(context.Background(), ctxID)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// keys lists every key of context ctxID's DB, sorted.
func (s *side) keys(t *testing.T, ctxID uint64) []string {
	t.Helper()
	ks, err := s.db(t, ctxID).Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ks)
	return ks
}

// zcard is the size of sorted set key (outbox, awaiting_result) in ctxID.
func (s *side) zcard(t *testing.T, ctxID uint64, key string) int64 {
	t.Helper()
	n, err := s.db(t, ctxID).ZCard(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// llen is the length of list key (msg_in, queue:sh) in ctxID.
func (s *side) llen(t *testing.T, ctxID uint64, key string) int64 {
	t.Helper()
	n, err := s.db(t, ctxID).LLen(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rejected is the bridge's refusal counter for reason.
func (s *side) rejected(reason string) int64 { return s.b.Stats().Snapshot().Rejected[reason] }

// finish ends received job key of context ctxID as its runner would, with
// result res: the bridge then sends the result home (remote_done).
func (s *side) finish(t *testing.T, ctxID uint64, key string, res map[string]string) {
	t.Helper()
	fields := (&model.RunnerJob{Result: res}).ToHash()
	err := s.st.Jobs.CompleteJob(context.Background(), ctxID, key, 0, model.JobFinished, model.Hash{"result": fields["result"]})
	if err != nil {
		t.Fatalf("finish %s: %v", key, err)
	}
}

// onlyJob waits for context ctxID to hold exactly one job and returns it.
func (s *side) onlyJob(t *testing.T, ctxID uint64) *model.RunnerJob {
	t.Helper()
	var js []*model.RunnerJob
	poll.Eventually(t, waitFor, "one job in context "+u64(ctxID), func() bool {
		js = s.jobs(t, ctxID)
		return len(js) == 1
	})
	return js[0]
}

// waitEnded waits for job key of context ctxID to end and returns it.
func (s *side) waitEnded(t *testing.T, ctxID uint64, key string) *model.RunnerJob {
	t.Helper()
	var j *model.RunnerJob
	poll.Eventually(t, waitFor, "job "+key+" to end", func() bool {
		j = s.job(t, ctxID, key)
		return j.Status.Terminal()
	})
	return j
}

// stranger is a third identity on the network with no bridge: it sends
// frames it seals (or crafts) and keeps what reaches it, opened.
type stranger struct {
	id  *identity.Identity
	tr  *fakeTransport
	got chan received
}

// received is an envelope a stranger got, with its opened payload.
type received struct {
	env *envelope.Envelope
	p   *payload
}

func newStranger(t *testing.T, n *fakeNet) *stranger {
	t.Helper()
	x := &stranger{id: newTestIdentity(t), got: make(chan received, 64)}
	x.tr = n.attach(x.id.PeerID())
	go x.read()
	t.Cleanup(x.tr.close)
	return x
}

func (x *stranger) read() {
	v := &envelope.Verifier{Self: x.id}
	for r := range x.tr.Inbox() {
		env, err := v.Check(r.Data, r.From)
		if err != nil {
			continue
		}
		plain, err := v.Open(env)
		if err != nil {
			continue
		}
		if p, err := decodePayload(plain); err == nil {
			select {
			case x.got <- received{env, p}:
			default:
			}
		}
	}
}

func (x *stranger) name() string { return x.id.PeerID().String() }

// seal seals p from the stranger to to.
func (x *stranger) seal(t *testing.T, to peer.ID, typ envelope.Type, ctxID uint64, p *payload) *envelope.Envelope {
	t.Helper()
	env, err := envelope.Seal(x.id, to, typ, ctxID, 1, p.encode())
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// send seals p and sends it to to through the network.
func (x *stranger) send(t *testing.T, to peer.ID, typ envelope.Type, ctxID uint64, p *payload) {
	t.Helper()
	if err := x.tr.Send(context.Background(), to, x.seal(t, to, typ, ctxID, p).Marshal()); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next envelope of type typ to reach the stranger,
// skipping others.
func (x *stranger) next(t *testing.T, typ envelope.Type) received {
	t.Helper()
	over := giveUp()
	for {
		select {
		case r := <-x.got:
			if r.env.Type == typ {
				return r
			}
		case <-over:
			t.Fatalf("no %s envelope reached the stranger", typ)
		}
	}
}

// jobFrom is the payload of a job the stranger sends as an origin would:
// ref names its message, origin_job its job.
func jobFrom(ref, script string) *payload {
	j := &model.RunnerJob{ID: 1, CallerID: 1, ContextID: 1, Script: script, ScriptType: "sh",
		Status: model.JobDispatched, Attempt: 1}
	return &payload{Ref: ref, OriginCtx: 1, OriginJob: "job:1:1", Attempt: 1, Job: j.ToHash(),
		Message: model.Hash{"message_type": string(model.MsgTypeJob)}}
}
