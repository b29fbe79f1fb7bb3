// Command pkg builds the .deb and .rpm packages of a Hyphae release with
// nfpm, and reads an .rpm back. scripts/release runs it for every Linux
// target; docs/install.md says what the packages hold and how they
// upgrade. It is a module of its own, so that nfpm and its dependencies
// stay out of the agent's go.mod.
//
//	go run . build --version V --arch amd64|arm64|armv7 --binary FILE \
//	    [--repo DIR] [--out DIR] [--formats deb,rpm]
//	go run . list FILE.rpm
//
// build writes OUT/hyphae-linux-ARCH.deb and .rpm and prints their paths.
// Their files' times are SOURCE_DATE_EPOCH (required): the same inputs
// give the same bytes. list prints an rpm's name, version, arch,
// maintainer scripts and files (mode, owner, group, config flags).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pkg:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: pkg build ... | pkg list FILE.rpm (see main.go)")
	}
	switch args[0] {
	case "build":
		return runBuild(args[1:])
	case "list":
		if len(args) != 2 {
			return errors.New("usage: pkg list FILE.rpm")
		}
		return listRPM(os.Stdout, args[1])
	}
	return fmt.Errorf("unknown command %q: build or list", args[0])
}

func runBuild(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var a buildArgs
	var formats string
	fs.StringVar(&a.version, "version", "", "the release VERSION (required)")
	fs.StringVar(&a.arch, "arch", "", "amd64, arm64 or armv7 (required)")
	fs.StringVar(&a.binary, "binary", "", "the hyphae binary for that arch (required)")
	fs.StringVar(&a.repo, "repo", "../..", "the checkout: configs/ and scripts/ are read there")
	fs.StringVar(&a.out, "out", ".", "where the packages go")
	fs.StringVar(&formats, "formats", "deb,rpm", "which packages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if a.version == "" || a.arch == "" || a.binary == "" {
		return errors.New("build: --version, --arch and --binary are required")
	}
	a.formats = strings.Split(formats, ",")
	epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	if err != nil {
		return fmt.Errorf("build: SOURCE_DATE_EPOCH must be set to unix seconds (the files' time): %w", err)
	}
	a.mtime = time.Unix(epoch, 0).UTC()
	paths, err := build(a)
	for _, p := range paths {
		fmt.Println(p)
	}
	return err
}
