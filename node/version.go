package node

import (
	"regexp"
	"runtime/debug"
)

// DevelVersion is the version of a build that names none: `go build` and
// `go run` in a checkout, and test binaries.
const DevelVersion = "0.1.0-dev"

// Version is this binary's version, the one every surface shows: `hyphae
// version`, node.info, /info, presence and the dashboard. scripts/release
// and the Dockerfile set it with -ldflags -X; otherwise init takes the
// module version of `go install …@vX.Y.Z` from the build info, and any
// other build is DevelVersion. Read it after init; nothing may set it.
var Version = DevelVersion

func init() {
	bi, _ := debug.ReadBuildInfo()
	Version = ResolveVersion(Version, bi)
}

// pseudoVersion matches the versions the go command makes up for a build
// that is not at a tag: v0.0.0-20261125100000-994c1f9de1eb, the
// v1.2.4-0.2026….-hash after a tag, with +dirty for a modified tree.
var pseudoVersion = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}(\+|$)`)

// ResolveVersion is the version of a binary whose -ldflags left ld (the
// initial Version) and whose build info is bi (nil when it has none): ld
// when a build set it, else a tagged module version in bi (`go install
// …@v0.3.0`, or a `go build` at a tag), else DevelVersion. A pseudo-version
// says no more than the commit `hyphae version` prints beside it, and
// would read as older than any release, so it is not used.
func ResolveVersion(ld string, bi *debug.BuildInfo) string {
	if ld != DevelVersion || bi == nil {
		return ld
	}
	mv := bi.Main.Version
	if mv == "" || mv == "(devel)" || pseudoVersion.MatchString(mv) {
		return ld
	}
	return mv
}
