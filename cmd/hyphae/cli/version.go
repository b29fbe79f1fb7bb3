package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set by scripts/release with -ldflags -X (node.Version too). A plain
// `go build` leaves them empty, and the commit and its time come from the
// VCS stamp Go writes into the binary (debug.ReadBuildInfo). The version
// is node.Version alone, resolved once in package node, so that `hyphae
// version` says what node.info, /info, presence and the dashboard say.
var (
	commit    string
	buildDate string
)

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

// currentVersion is this binary's version (Agent.Version, node.Version
// there), with the commit and date from ldflags first, then build info.
func currentVersion(version string) versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return resolveVersion(versionInfo{Version: version, Commit: commit, Date: buildDate}, bi)
}

// resolveVersion fills the commit and date ldflags left unset from bi (nil
// when the binary has no build info): vcs.revision, vcs.modified and
// vcs.time of a build inside a checkout. The version is left as it is:
// node.ResolveVersion made it, for every surface at once.
func resolveVersion(ld versionInfo, bi *debug.BuildInfo) versionInfo {
	v := ld
	if bi == nil {
		return v
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

func newVersion(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "hyphae version %s\n", currentVersion(g.agent.Version()).detail())
		},
	}
}

// setVersionFlag gives the root command `--version`, printing what
// `hyphae version` prints. Cobra's default version output is used as is:
// a custom template would link text/template, whose reflection makes the
// linker keep every exported method in the binary.
func setVersionFlag(root *cobra.Command, version string) {
	root.Version = currentVersion(version).detail()
}
