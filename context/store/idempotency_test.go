package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// The first claim of a key wins; a second one, even from another Store on
// the same Redis (an agent restarted), gets the first ref and digest back;
// the record expires with the retention window.
func TestClaimIdempotencyFirstWinsAndExpires(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	if ref, fresh, err := s.Jobs.ClaimIdempotency(ctx, 1, "order-42", "job:1:7", time.Hour); err != nil || !fresh || ref != "" {
		t.Fatalf("first claim: %q %v %v; want fresh", ref, fresh, err)
	}
	again, err := store.Open(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	rec, fresh, err := again.Jobs.ClaimIdempotencyRecord(ctx, 1, "order-42", store.IdemRecord{Ref: "job:1:8", Digest: "x"}, time.Hour)
	if err != nil || fresh || rec.Ref != "job:1:7" {
		t.Fatalf("second claim: %+v %v %v; want job:1:7, not fresh", rec, fresh, err)
	}
	if _, fresh, _ := s.Jobs.ClaimIdempotency(ctx, 2, "order-42", "job:1:9", time.Hour); !fresh {
		t.Fatal("a key is per context: context 2 must claim it afresh")
	}
	ttl := srv.Client(t, 1).PTTL(ctx, store.IdempotencyKey("order-42")).Val()
	if ttl <= 0 || ttl > time.Hour {
		t.Fatalf("record TTL %v; want within the retention window (1h)", ttl)
	}
	srv.Client(t, 1).PExpire(ctx, store.IdempotencyKey("order-42"), time.Millisecond)
	ctEventually(t, "the record to expire", func() bool {
		_, err := s.Jobs.LoadIdempotency(ctx, 1, "order-42")
		return errors.Is(err, store.ErrNotFound)
	})
	if _, fresh, _ := s.Jobs.ClaimIdempotency(ctx, 1, "order-42", "job:1:10", time.Hour); !fresh {
		t.Fatal("after the window the key claims afresh")
	}
}

// A pending claim is renamed to the object made, or released so that the
// key can be used again at once.
func TestIdempotencyPendingSetAndRelease(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	p := store.IdempotencyPending + "abc"
	if _, fresh, err := s.Jobs.ClaimIdempotency(ctx, 1, "k1", p, 0); err != nil || !fresh {
		t.Fatalf("claim: %v %v", fresh, err)
	}
	if ok, err := s.Jobs.SetIdempotencyRef(ctx, 1, "k1", "pending:other", "job:1:1", 0); err != nil || ok {
		t.Fatalf("set from a placeholder it does not hold: %v %v; want false", ok, err)
	}
	if ok, err := s.Jobs.SetIdempotencyRef(ctx, 1, "k1", p, "job:1:1", 0); err != nil || !ok {
		t.Fatalf("set: %v %v", ok, err)
	}
	if rec, _ := s.Jobs.LoadIdempotency(ctx, 1, "k1"); rec.Ref != "job:1:1" {
		t.Fatalf("record %+v; want job:1:1", rec)
	}
	if _, fresh, _ := s.Jobs.ClaimIdempotency(ctx, 1, "k2", p, 0); !fresh {
		t.Fatal("k2 claim")
	}
	if err := s.Jobs.ReleaseIdempotency(ctx, 1, "k2", p); err != nil {
		t.Fatal(err)
	}
	if _, fresh, _ := s.Jobs.ClaimIdempotency(ctx, 1, "k2", "job:1:2", 0); !fresh {
		t.Fatal("a released key must claim afresh")
	}
	for _, bad := range []string{"", "has space", string(make([]byte, store.MaxIdempotencyKey+1))} {
		if _, _, err := s.Jobs.ClaimIdempotency(ctx, 1, bad, "job:1:3", 0); err == nil {
			t.Fatalf("key %q accepted", bad)
		}
	}
}
