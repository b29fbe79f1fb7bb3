package store

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// Every script of the package compiles in a real Redis (SCRIPT LOAD), under
// the hash go-redis will ask for, and defines every shared function it
// calls: a script that names the wrong Lua functions in newScript would
// otherwise fail only when its operation first runs.
func TestEveryScriptLoads(t *testing.T) {
	if len(scripts) < 20 {
		t.Fatalf("only %d scripts registered: is newScript still recording them?", len(scripts))
	}
	db := redis.NewClient(&redis.Options{Addr: testredis.Start(t).Addr})
	defer db.Close()
	ctx := context.Background()
	defined := regexp.MustCompile(`local function (\w+)\(`)
	shared := map[string]bool{}
	for _, r := range scripts {
		for _, m := range defined.FindAllStringSubmatch(r.src, -1) {
			shared[m[1]] = true
		}
	}
	names := map[string]bool{}
	for _, r := range scripts {
		if names[r.name] {
			t.Errorf("two scripts are named %s", r.name)
		}
		names[r.name] = true
		sha, err := db.ScriptLoad(ctx, r.src).Result()
		if err != nil {
			t.Errorf("%s does not load: %v", r.name, err)
			continue
		}
		if sha != r.s.Hash() {
			t.Errorf("%s: SCRIPT LOAD gave %s, the script's hash is %s", r.name, sha, r.s.Hash())
		}
		for fn := range shared {
			calls := regexp.MustCompile(`(^|[^\w.:])` + fn + `\(`).MatchString(r.src)
			if calls && !strings.Contains(r.src, "local function "+fn+"(") {
				t.Errorf("%s calls %s() without its definition: name the Lua constant that defines it in newScript", r.name, fn)
			}
		}
	}
}

// No script escapes the registry: every one is made by newScript (the
// only redis.NewScript call is in scripts.go), so TestEveryScriptLoads
// sees each.
func TestScriptsAreMadeByNewScript(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "scripts.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "redis.NewScript(") {
			t.Errorf("%s calls redis.NewScript: make the script with newScript(name, …) so the registry holds it", f)
		}
	}
}
