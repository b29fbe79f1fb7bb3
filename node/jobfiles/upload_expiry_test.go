package jobfiles

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// An upload no job adopts is released once UploadTTL has passed and its
// blob pruned; an adopted one is held by its job and outlives the TTL.
func TestUploadNoJobAdoptsExpires(t *testing.T) {
	s, err := Open(Config{DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, orphan, err := s.Upload(ctx, bytes.NewReader([]byte("nobody takes me")))
	if err != nil {
		t.Fatal(err)
	}
	tok, kept, err := s.Upload(ctx, bytes.NewReader([]byte("a job takes me")))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Adopt(1, "job:1:7", []string{kept.SHA256}, []string{tok}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.expireUploads(time.Now(), UploadTTL); err != nil || n != 0 {
		t.Fatalf("expire within the TTL: %d, %v; want none", n, err)
	}
	if n, err := s.expireUploads(time.Now().Add(UploadTTL+time.Minute), UploadTTL); err != nil || n != 1 {
		t.Fatalf("expire past the TTL: %d, %v; want the one upload no job adopted", n, err)
	}
	if _, err := s.store.Prune(); err != nil {
		t.Fatal(err)
	}
	if s.store.Has(orphan.SHA256) {
		t.Error("the upload no job adopted is still in the store after it expired")
	}
	if !s.store.Has(kept.SHA256) {
		t.Error("the adopted upload was pruned")
	}
}
