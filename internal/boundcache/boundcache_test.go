package boundcache

import "testing"

func TestCacheBounded(t *testing.T) {
	c := New[int, int](4)
	for i := range 100 {
		c.Put(i, i)
		if v, ok := c.Get(i); !ok || v != i {
			t.Fatalf("get %d", i)
		}
	}
	if c.Len() != 4 {
		t.Fatalf("len %d", c.Len())
	}
}
