package bridge

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/overlay"
)

// Crafted envelopes from a peer granted executor in the target context
// (so only the envelope checks stand between the bytes and a job) are each
// refused, counted once under their reason, and write nothing into the
// context; the bridge then still takes a well-formed job from the same
// kind of peer (node: TestBridgeRejectsForgedEnvelopes).
func TestForgedEnvelopesAreRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	const target = 2
	b.context(t, target)
	before := b.keys(t, target)
	job := func(ref string) *payload { return jobFrom(ref, "echo ran") }
	sealed := func(t *testing.T, x *stranger, ref string) *envelope.Envelope {
		return x.seal(t, b.peer(), envelope.TypeJob, target, job(ref))
	}
	cases := []struct {
		name, reason string
		verdict      overlay.ValidationResult // the inbox validator's
		craft        func(t *testing.T, x *stranger) []byte
	}{
		{"tampered ciphertext", "bad_signature", overlay.ValidationReject, func(t *testing.T, x *stranger) []byte {
			env := sealed(t, x, "1/message:1:1")
			env.Payload[len(env.Payload)/2] ^= 0x01 // in transit, after signing
			return env.Marshal()
		}},
		{"tampered ciphertext re-signed by its sender", "decrypt", overlay.ValidationAccept, func(t *testing.T, x *stranger) []byte {
			env := sealed(t, x, "1/message:1:2")
			env.Payload[len(env.Payload)-3] ^= 0x01
			if err := env.Sign(x.id); err != nil {
				t.Fatal(err)
			}
			return env.Marshal()
		}},
		{"signed by a key that is not the author", "author_mismatch", overlay.ValidationReject, func(t *testing.T, x *stranger) []byte {
			other := &stranger{id: newTestIdentity(t)}
			return sealed(t, other, "1/message:1:3").Marshal()
		}},
		{"claims the author as sender but signed by another key", "bad_signature", overlay.ValidationReject, func(t *testing.T, x *stranger) []byte {
			other := &stranger{id: newTestIdentity(t)}
			env := sealed(t, other, "1/message:1:4")
			env.From = x.id.PeerID() // the signature stays other's
			return env.Marshal()
		}},
		{"timestamp in the past beyond the skew window", "skew", overlay.ValidationReject, func(t *testing.T, x *stranger) []byte {
			env := sealed(t, x, "1/message:1:5")
			if err := env.Restamp(x.id, time.Now().Add(-envelope.DefaultSkew-time.Minute)); err != nil {
				t.Fatal(err)
			}
			return env.Marshal()
		}},
		{"timestamp in the future beyond the skew window", "skew", overlay.ValidationReject, func(t *testing.T, x *stranger) []byte {
			env := sealed(t, x, "1/message:1:6")
			if err := env.Restamp(x.id, time.Now().Add(envelope.DefaultSkew+time.Minute)); err != nil {
				t.Fatal(err)
			}
			return env.Marshal()
		}},
		{"sealed to another peer", "not_for_me", overlay.ValidationIgnore, func(t *testing.T, x *stranger) []byte {
			env, err := envelope.Seal(x.id, newTestIdentity(t).PeerID(), envelope.TypeJob, target, 1, job("1/message:1:7").encode())
			if err != nil {
				t.Fatal(err)
			}
			return env.Marshal()
		}},
	}
	want := map[string]int64{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A fresh sender each time, as the node test has, so one
			// refusal never hides behind another's.
			x := newStranger(t, n)
			b.let(t, target, x.name(), model.RoleExecutor)
			want[c.reason] = b.rejected(c.reason) + 1
			judged := b.tr.judged(c.verdict)
			data := c.craft(t, x)
			n.inject(x.id.PeerID(), b.peer(), data)
			// The validator counts its refusal, then answers the transport.
			poll.Eventually(t, waitFor, c.reason+" refusal counted", func() bool {
				return b.rejected(c.reason) >= want[c.reason] && b.tr.judged(c.verdict) > judged
			})
			if got := b.tr.judged(c.verdict); got != judged+1 {
				t.Errorf("validator answered %v %d times more, want once", c.verdict, got-judged)
			}
			if c.verdict == overlay.ValidationAccept { // refused after the validator: held against its sender
				poll.Eventually(t, waitFor, "the sender penalized", func() bool {
					return b.tr.penalized(x.id.PeerID(), c.reason) == 1
				})
			}
			if c.reason == "not_for_me" { // ignored before the replay check: no seen marker
				env, err := envelope.Unmarshal(data, 0)
				if err != nil {
					t.Fatal(err)
				}
				if n := b.db(t, 0).Exists(context.Background(), "seen:"+env.ReplayKey()).Val(); n != 0 {
					t.Error("an envelope for another peer reached the replay check")
				}
			}
		})
	}
	if after := b.keys(t, target); !slices.Equal(before, after) {
		t.Errorf("refused envelopes changed context %d: keys %v, then %v", target, before, after)
	}
	for reason, n := range want {
		if got := b.rejected(reason); got != n {
			t.Errorf("rejected{reason=%q} = %d, want %d", reason, got, n)
		}
	}
	// The bridge keeps serving: a well-formed job is taken.
	x := newStranger(t, n)
	b.let(t, target, x.name(), model.RoleExecutor)
	x.send(t, b.peer(), envelope.TypeJob, target, job("1/message:1:8"))
	if j := b.onlyJob(t, target); j.Origin().Peer != x.name() || j.Script != "echo ran" {
		t.Fatalf("job after the attacks = %+v", j)
	}
}

// The very same signed envelope sent twice materialises one job: the
// second copy is refused as a replay by the validator, by its envelope id,
// which is then remembered in Redis (seen:<sender>/<id>); after the bridge
// restarts, Redis still refuses it (node: TestBridgeRejectsReplayedEnvelope).
func TestReplayedEnvelopeIsRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	x := newStranger(t, n)
	const target = 3
	b.grant(t, target, x.name(), model.RoleExecutor)

	env := x.seal(t, b.peer(), envelope.TypeJob, target, jobFrom("1/message:1:1", "echo once"))
	data := env.Marshal()
	n.inject(x.id.PeerID(), b.peer(), data)
	b.onlyJob(t, target)
	n.inject(x.id.PeerID(), b.peer(), data)
	poll.Eventually(t, waitFor, "the replay refused by the validator", func() bool {
		return b.rejected("replay") == 1 && b.tr.judged(overlay.ValidationReject) == 1
	})
	poll.Eventually(t, waitFor, "the envelope id in Redis", func() bool {
		return b.db(t, 0).Exists(context.Background(), "seen:"+env.ReplayKey()).Val() == 1
	})

	b.restart(t)
	n.inject(x.id.PeerID(), b.peer(), data)
	poll.Eventually(t, waitFor, "the replay refused after a restart", func() bool { return b.rejected("replay") == 1 })
	if js := b.jobs(t, target); len(js) != 1 {
		t.Errorf("context %d has %d jobs, want 1", target, len(js))
	}
	if n := b.llen(t, target, store.MsgInKey); n != 1 {
		t.Errorf("msg_in has %d entries, want 1", n)
	}
	if n := b.llen(t, target, store.QueueKey("sh")); n != 1 {
		t.Errorf("queue:sh has %d jobs, want 1", n)
	}
}

// A job frame the network delivers twice (the same bytes) runs once: the
// second copy is a replay; the job's result still comes home.
func TestDuplicatedFrameIsProcessedOnce(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	n.setRule(func(f fakeFrame) frameFate {
		if f.is(envelope.TypeJob) {
			return frameDuplicate
		}
		return frameDeliver
	})
	j := a.submit(t, 1, 2, b.name(), "true", 0)
	remote := b.onlyJob(t, 2)
	poll.Eventually(t, waitFor, "the second copy refused", func() bool { return b.rejected("replay") == 1 })
	b.finish(t, 2, jobKey(remote), map[string]string{"n": "1"})
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished || got.Result["n"] != "1" {
		t.Fatalf("origin job = %s %v", got.Status, got.Result)
	}
	if js := b.jobs(t, 2); len(js) != 1 {
		t.Errorf("target has %d jobs, want 1", len(js))
	}
}
