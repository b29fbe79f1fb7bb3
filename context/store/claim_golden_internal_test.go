package store

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/claim/*.lua from the claim gates")

// goldenVariants are the claim variants checked in: the plain one, each
// optional gate alone, and all of them (the others are the same parts
// in the same order).
func goldenVariants() []gateFlag {
	out := []gateFlag{0}
	for _, g := range claimGates {
		if g.flag != 0 {
			out = append(out, g.flag)
		}
	}
	return append(out, gateAll)
}

// The claim scripts Redis runs are checked in under testdata/claim/, so a
// reviewer reads them: a built variant that differs from its file fails
// (go test ./context/store -run ClaimGolden -update rewrites them).
func TestClaimGolden(t *testing.T) {
	dir := filepath.Join("testdata", "claim")
	want := map[string]bool{}
	for _, v := range goldenVariants() {
		name := claimScriptName(v) + ".lua"
		want[name] = true
		path := filepath.Join(dir, name)
		src := claimSource(v)
		if *updateGolden {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./context/store -run ClaimGolden -update writes it)", err)
		}
		if string(got) != src {
			t.Errorf("%s differs from the script the gates build: rerun with -update and review the diff", path)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.lua"))
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is no variant the gates build: remove it", f)
		}
	}
}

// Every fixed key a claim variant names is in its KEYS: no quoted key
// name is left in its Lua but the prefixes of the keys named after the
// pop (claimDerived), and every local a fragment names a fixed key by is
// set from KEYS.
func TestClaimKeysDeclared(t *testing.T) {
	derived := []string{"job:", "stop:", "keyed_running:", "keyed:", "idem:"}
	quoted := regexp.MustCompile(`'([a-z_]+:?)'`)
	for v := range gateAll + 1 {
		src := claimSource(v)
		for _, k := range claimKeys {
			if k.local != "" && regexp.MustCompile(`(?m)^local [\w, ]*\b`+k.local+`\b`).MatchString(src) &&
				!strings.Contains(src, k.local+" = KEYS[") {
				t.Errorf("%s: %s (%s) is not set from KEYS", claimScriptName(v), k.local, k.key)
			}
		}
		for _, m := range quoted.FindAllStringSubmatch(src, -1) {
			name := m[1]
			if !strings.HasSuffix(name, ":") {
				continue // a field, mode or verdict
			}
			ok := false
			for _, d := range derived {
				ok = ok || name == d
			}
			if !ok {
				t.Errorf("%s names key prefix %q outside KEYS and the derived keys", claimScriptName(v), name)
			}
		}
	}
}

// Every claim variant compiles in a real Redis under the hash it is run
// by, and defines every function it calls (as TestEveryScriptLoads asks
// of the registered scripts; the variants are built on demand).
func TestEveryClaimVariantLoads(t *testing.T) {
	db := redis.NewClient(&redis.Options{Addr: testredis.Start(t).Addr})
	defer db.Close()
	ctx := context.Background()
	defined := regexp.MustCompile(`local function (\w+)\(`)
	fns := map[string]bool{}
	for v := range gateAll + 1 {
		for _, m := range defined.FindAllStringSubmatch(claimSource(v), -1) {
			fns[m[1]] = true
		}
	}
	// Every call of a bare name: one pass over each variant, rather than
	// one pattern per function (which took a minute under -race).
	called := regexp.MustCompile(`\w+\(`)
	for v := range gateAll + 1 {
		src, name := claimSource(v), claimScriptName(v)
		sha, err := db.ScriptLoad(ctx, src).Result()
		if err != nil {
			t.Errorf("%s does not load: %v", name, err)
			continue
		}
		if sha != claimScript(v).Hash() {
			t.Errorf("%s: SCRIPT LOAD gave %s, the script's hash is %s", name, sha, claimScript(v).Hash())
		}
		here := map[string]bool{}
		for _, m := range defined.FindAllStringSubmatch(src, -1) {
			here[m[1]] = true
		}
		seen := map[string]bool{}
		for _, m := range called.FindAllStringIndex(src, -1) {
			if m[0] > 0 && strings.ContainsRune(".:", rune(src[m[0]-1])) {
				continue // a method or a field's function: obj.f(, obj:f(
			}
			if fn := src[m[0] : m[1]-1]; fns[fn] && !here[fn] && !seen[fn] {
				seen[fn] = true
				t.Errorf("%s calls %s() without its definition: list its Lua in the gate", name, fn)
			}
		}
	}
}
