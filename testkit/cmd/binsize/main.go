// Command binsize says what the release binary's megabytes are: it builds
// cmd/hyphae as scripts/release does for linux/amd64 (static, stripped,
// -trimpath), builds it again with symbols, and shares the stripped file's
// size among the modules whose code and read-only data it holds, in
// proportion to their symbols' sizes (go tool nm). The pclntab and other
// per-function tables scale with code, so the shares are estimates, good to
// about a tenth of a megabyte; "std" is Go's standard library.
//
//	go run ./testkit/cmd/binsize            # the top 25 modules
//	go run ./testkit/cmd/binsize -top 60
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	top := flag.Int("top", 25, "modules to list")
	flag.Parse()
	if err := run(*top); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run(top int) error {
	dir, err := os.MkdirTemp("", "binsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	stripped, full := filepath.Join(dir, "hyphae"), filepath.Join(dir, "hyphae.sym")
	if err := build(stripped, "-s -w -buildid="); err != nil {
		return err
	}
	if err := build(full, "-buildid="); err != nil {
		return err
	}
	fi, err := os.Stat(stripped)
	if err != nil {
		return err
	}
	mods, err := modules(full)
	if err != nil {
		return err
	}
	sizes, err := symbolSizes(full, mods)
	if err != nil {
		return err
	}
	print(fi.Size(), sizes, top)
	return nil
}

// build builds cmd/hyphae for linux/amd64 into out with ldflags.
func build(out, ldflags string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags, "-o", out, "./cmd/hyphae")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOAMD64=v1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, b)
	}
	return nil
}

// modules are the module paths linked into bin, longest first (so a
// nested module wins over its parent), the main module among them.
func modules(bin string) ([]string, error) {
	b, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go version -m: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "dep" || f[0] == "mod") {
			out = append(out, f[1])
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, nil
}

// symbolSizes sums the sizes of bin's text and read-only symbols per
// module ("std" for the standard library; tables no package owns apart).
func symbolSizes(bin string, mods []string) (map[string]int64, error) {
	b, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool nm: %w", err)
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.ContainsAny(f[2], "TtRr") {
			continue
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		out[owner(strings.Join(f[3:], " "), mods)] += size
	}
	return out, sc.Err()
}

// owner is the module a symbol name belongs to.
func owner(name string, mods []string) string {
	for _, p := range []string{"type:", "go:itab.", "go:func.", "go:", "eq."} {
		name = strings.TrimPrefix(name, p)
	}
	name = strings.TrimLeft(name, "*([]")
	for _, m := range mods {
		if strings.HasPrefix(name, m+".") || strings.HasPrefix(name, m+"/") {
			return m
		}
	}
	first, _, _ := strings.Cut(name, ".")
	if first != "" && !strings.Contains(strings.SplitN(first, "/", 2)[0], ".") {
		return "std"
	}
	return "shared tables (go:func.*, itabs, unnamed types)"
}

func print(file int64, sizes map[string]int64, top int) {
	var total int64
	type row struct {
		mod  string
		size int64
	}
	var rows []row
	for m, s := range sizes {
		total += s
		rows = append(rows, row{m, s})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].size > rows[j].size })
	fmt.Printf("release binary (linux/amd64, stripped): %.1f MB\n\n| MB | module |\n|---:|---|\n", float64(file)/1e6)
	var shown float64
	for i, r := range rows {
		if i == top {
			break
		}
		mb := float64(r.size) / float64(total) * float64(file) / 1e6
		shown += mb
		fmt.Printf("| %.2f | %s |\n", mb, r.mod)
	}
	fmt.Printf("| %.2f | %d more modules |\n", float64(file)/1e6-shown, max(0, len(rows)-top))
}
