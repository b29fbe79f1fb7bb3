package main

import (
	"fmt"
	"io"
	"os"

	rpmutils "github.com/sassoftware/go-rpmutils"
)

// rpm's file flags (rpmfiles.h) that list shows.
const (
	rpmFileConfig    = 1 << 0
	rpmFileNoReplace = 1 << 4
)

// listRPM prints what an .rpm holds, read with a Go reader so that no rpm
// tool is needed: "name N", "version V-R", "arch A", "script NAME" for each
// maintainer script, then "file MODE OWNER GROUP PATH [config]
// [noreplace]" for each file (MODE in octal, with the type bits).
func listRPM(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	defer f.Close()
	r, err := rpmutils.ReadRpm(f)
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	nevra, err := r.Header.GetNEVRA()
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	fmt.Fprintf(w, "name %s\nversion %s-%s\narch %s\n", nevra.Name, nevra.Version, nevra.Release, nevra.Arch)
	for _, s := range []struct {
		tag  int
		name string
	}{{rpmutils.POSTIN, "post"}, {rpmutils.PREUN, "preun"}, {rpmutils.POSTUN, "postun"}} {
		if r.Header.HasTag(s.tag) {
			fmt.Fprintf(w, "script %s\n", s.name)
		}
	}
	fis, err := r.Header.GetFiles()
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	for _, fi := range fis {
		line := fmt.Sprintf("file %o %s %s %s", fi.Mode(), fi.UserName(), fi.GroupName(), fi.Name())
		if fi.Flags()&rpmFileConfig != 0 {
			line += " config"
		}
		if fi.Flags()&rpmFileNoReplace != 0 {
			line += " noreplace"
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
