package store

import (
	"slices"
	"testing"
)

// Lists come in the order a person expects: ids by value, not as text.
func TestCompareKeys(t *testing.T) {
	got := []string{"job:2:1", "job:1:10", "context:10", "job:1:2", "context:2", "job:1:2:x", "peer:12D3KooWb", "peer:12D3KooWa", "job:1:9"}
	slices.SortFunc(got, compareKeys)
	want := []string{"context:2", "context:10", "job:1:2", "job:1:2:x", "job:1:9", "job:1:10", "job:2:1", "peer:12D3KooWa", "peer:12D3KooWb"}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted: %q\nwant    %q", got, want)
	}
}
