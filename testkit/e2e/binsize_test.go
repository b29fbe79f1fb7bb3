package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryDeadCodeEliminated: the linker drops exported methods nothing
// calls. One reflective call with a method name it cannot see (or, with Go
// 1.26, protobuf v1.36.11's MethodByName("Methods"), golang/protobuf#1704)
// makes it keep every exported method of every type, and the binary grows
// by a quarter: all of go-redis' commands, text/template behind cobra's
// SetUsageTemplate. These symbols are in the binary only then.
func TestBinaryDeadCodeEliminated(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	for _, sym := range []string{
		"github.com/redis/go-redis/v9.cmdable.FTCreate", // RediSearch: never called
		"text/template.(*state).evalField",              // cobra: only with a custom template
	} {
		if strings.Contains(string(out), " "+sym+"\n") {
			t.Errorf("the binary holds %s: something defeats the linker's dead-code elimination "+
				"(go build -ldflags=-dumpdep ./cmd/hyphae 2>&1 | grep ReflectMethod shows what)", sym)
		}
	}
}
