package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node"
)

// Set by scripts/release with -ldflags -X (node.Version too). A plain
// `go build` leaves them empty, and the commit and its time come from the
// VCS stamp Go writes into the binary (debug.ReadBuildInfo).
var (
	commit    string
	buildDate string
)

// develVersion is node.Version when no release build set it.
const develVersion = "0.1.0-dev"

// versionInfo is what `hyphae version` prints.
type versionInfo struct {
	Version string
	Commit  string // full hash, "-dirty" appended when built from a modified tree
	Date    string // RFC 3339, UTC: the commit's time
}

// detail is what follows "hyphae version ", the prefix cobra gives --version.
func (v versionInfo) detail() string {
	return fmt.Sprintf("%s (commit %s, built %s, %s, %s/%s)",
		v.Version, orUnknown(v.Commit), orUnknown(v.Date), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// currentVersion is this binary's version: ldflags first, then build info.
func currentVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return resolveVersion(versionInfo{Version: node.Version, Commit: commit, Date: buildDate}, bi)
}

// resolveVersion fills what ldflags left unset from bi (nil when the
// binary has no build info): the module version of `go install …@vX`,
// and vcs.revision, vcs.modified, vcs.time of a build inside a checkout.
func resolveVersion(ld versionInfo, bi *debug.BuildInfo) versionInfo {
	v := ld
	if bi == nil {
		return v
	}
	if v.Version == develVersion && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if v.Commit == "" && settings["vcs.revision"] != "" {
		v.Commit = settings["vcs.revision"]
		if settings["vcs.modified"] == "true" {
			v.Commit += "-dirty"
		}
	}
	if v.Date == "" {
		v.Date = settings["vcs.time"]
	}
	return v
}

func newVersion(*globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "hyphae version %s\n", currentVersion().detail())
		},
	}
}

// setVersionFlag gives the root command `--version`, printing what
// `hyphae version` prints. Cobra's default version output is used as is:
// a custom template would link text/template, whose reflection makes the
// linker keep every exported method in the binary.
func setVersionFlag(root *cobra.Command) {
	root.Version = currentVersion().detail()
}
