package store_test

import (
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A context's isolation and network reach both copies of its record (its
// own DB, which the runner reads, and the DB 0 registry); an empty value
// removes the field from both, also one only the registry still held.
func TestSetContextIsolationWritesAndRemovesBothCopies(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 2, Name: "lab", Admins: []uint64{1}}); err != nil {
		t.Fatal(err)
	}
	fields := func(db int) (string, string, bool) {
		h := srv.Client(t, db).HGetAll(ctx, store.ContextKey(2)).Val()
		iso, okI := h[model.ExtraIsolation]
		net, okN := h[model.ExtraNetwork]
		return iso, net, okI || okN
	}
	c, err := s.Registry.SetContextIsolation(ctx, 2, ptr(model.IsolationHost), ptr(model.NetworkNone))
	if err != nil || c.Isolation() != "host" || c.Network() != "none" || c.Name != "lab" {
		t.Fatalf("SetContextIsolation = %+v, %v", c, err)
	}
	for _, db := range []int{0, 2} {
		if iso, net, _ := fields(db); iso != "host" || net != "none" {
			t.Fatalf("DB %d: isolation %q network %q, want host none", db, iso, net)
		}
	}
	if l, err := s.Registry.LoadContext(ctx, 2); err != nil || l.Isolation() != "host" || l.Network() != "none" {
		t.Fatalf("LoadContext = %+v, %v", l, err)
	}

	// nil keeps a setting.
	if c, err = s.Registry.SetContextIsolation(ctx, 2, nil, ptr(model.NetworkHost)); err != nil || c.Isolation() != "host" || c.Network() != "host" {
		t.Fatalf("SetContextIsolation(nil, host) = %+v, %v; want isolation kept", c, err)
	}
	// The registry copy drifted: it keeps a field the context's own lost.
	srv.Client(t, 2).HDel(ctx, store.ContextKey(2), model.ExtraNetwork)
	c, err = s.Registry.SetContextIsolation(ctx, 2, ptr(""), ptr(""))
	if err != nil || c.Isolation() != "" || c.Network() != "" {
		t.Fatalf("SetContextIsolation(\"\", \"\") = %+v, %v", c, err)
	}
	for _, db := range []int{0, 2} {
		if iso, net, set := fields(db); set {
			t.Fatalf("DB %d: isolation %q network %q left behind, want the fields removed", db, iso, net)
		}
	}
	if l, err := s.Registry.LoadContext(ctx, 2); err != nil || l.Name != "lab" || len(l.Admins) != 1 {
		t.Fatalf("the rest of the context changed: %+v, %v", l, err)
	}
}

func TestSetContextIsolationRefusesBadValues(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 1}); err != nil {
		t.Fatal(err)
	}
	for _, v := range [][2]string{{"sandbox", ""}, {"", "off"}, {"Host", ""}} {
		if _, err := s.Registry.SetContextIsolation(ctx, 1, ptr(v[0]), ptr(v[1])); !errors.Is(err, model.ErrBadField) {
			t.Errorf("SetContextIsolation(%q, %q) = %v, want ErrBadField", v[0], v[1], err)
		}
	}
	if h := srv.Client(t, 1).HGetAll(ctx, store.ContextKey(1)).Val(); h[model.ExtraIsolation] != "" || h[model.ExtraNetwork] != "" {
		t.Fatalf("a refused setting was written: %v", h)
	}
	if _, err := s.Registry.SetContextIsolation(ctx, 5, ptr("host"), nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown context: %v, want ErrNotFound", err)
	}
}

// UpdateContext removes what its func takes away instead of leaving the
// old value in the hash.
func TestUpdateContextRemovesWhatItsFuncDrops(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 1, Name: "old", Extra: model.Hash{"note": "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Registry.UpdateContext(ctx, 1, func(c *model.Context) error {
		c.Name = ""
		delete(c.Extra, "note")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, db := range []int{0, 1} {
		h := srv.Client(t, db).HGetAll(ctx, store.ContextKey(1)).Val()
		if _, ok := h["name"]; ok {
			t.Errorf("DB %d: name left: %v", db, h)
		}
		if _, ok := h["note"]; ok {
			t.Errorf("DB %d: note left: %v", db, h)
		}
	}
}

func ptr[T any](v T) *T { return &v }
