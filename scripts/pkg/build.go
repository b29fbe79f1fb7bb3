package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the packagers nfpm.Get finds
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm"
)

type buildArgs struct {
	version, arch, binary, repo, out string
	formats                          []string
	mtime                            time.Time
}

// arches: the release's name of a Linux target (hyphae-linux-NAME) →
// the architecture names of dpkg and rpm.
var arches = map[string]struct{ deb, rpm string }{
	"amd64": {"amd64", "x86_64"},
	"arm64": {"arm64", "aarch64"},
	"armv7": {"armhf", "armv7hl"},
}

// The package's paths. The unit goes where each family keeps packaged
// units; the binary is /usr/bin/hyphae (scripts/install.sh uses
// /usr/local, which is the admin's, not a package's).
const (
	binPath    = "/usr/bin/hyphae"
	configPath = "/etc/hyphae/hyphae.yaml"
	debUnitDir = "/lib/systemd/system"
	rpmUnitDir = "/usr/lib/systemd/system"
)

// build writes one package per format and returns their paths.
func build(a buildArgs) ([]string, error) {
	ver, err := pkgVersion(a.version)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	arch, ok := arches[a.arch]
	if !ok {
		return nil, fmt.Errorf("build: arch %q: amd64, arm64 or armv7", a.arch)
	}
	stage, err := os.MkdirTemp("", "hyphae-pkg")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := stageFiles(a.repo, stage); err != nil {
		return nil, err
	}
	var paths []string
	for _, format := range a.formats {
		info := packageInfo(a, format, ver, stage)
		info.Deb.Arch, info.RPM.Arch = arch.deb, arch.rpm
		path := filepath.Join(a.out, "hyphae-linux-"+a.arch+"."+format)
		if err := write(info, format, path); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// stageFiles writes what the package holds that is not in the checkout
// as it is: the unit with the package's binary path, and the maintainer
// scripts with scripts/account.sh in them.
func stageFiles(repo, stage string) error {
	unit, err := os.ReadFile(filepath.Join(repo, "configs", "hyphae.service"))
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	unit = []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/hyphae", binPath))
	if err := os.WriteFile(filepath.Join(stage, "hyphae.service"), unit, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	account, err := os.ReadFile(filepath.Join(repo, "scripts", "account.sh"))
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	for _, name := range []string{"postinst.sh", "prerm.sh", "postrm.sh"} {
		s, err := os.ReadFile(filepath.Join(repo, "scripts", "pkg", name))
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		const mark = "#ACCOUNT# scripts/account.sh goes here (scripts/pkg)\n"
		text := strings.Replace(string(s), mark, string(account), 1)
		if err := os.WriteFile(filepath.Join(stage, name), []byte(text), 0o755); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	return nil
}

// packageInfo is what nfpm needs for one format.
func packageInfo(a buildArgs, format, ver, stage string) *nfpm.Info {
	unitDir := debUnitDir
	depends := []string{"passwd"} // groupadd, useradd
	recommends := []string{"redis-server"}
	if format == "rpm" {
		unitDir = rpmUnitDir
		depends = []string{"shadow-utils"}
		recommends = []string{"redis"}
	}
	file := func(src, dst, typ string, mode os.FileMode) *files.Content {
		return &files.Content{Source: src, Destination: dst, Type: typ,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: a.mtime}}
	}
	return &nfpm.Info{
		Name:          "hyphae",
		Arch:          a.arch,
		Platform:      "linux",
		Version:       ver,
		VersionSchema: "none", // pkgVersion made it fit both
		Maintainer:    "Hyphae developers <https://github.com/hyphae-run/hyphae/issues>",
		Homepage:      "https://github.com/hyphae-run/hyphae",
		Description: "Peer-to-peer job agent\n" +
			"One static binary: agents on libp2p share work through Redis-backed\n" +
			"queues. Runs as the system user hyphae from /var/lib/hyphae.",
		MTime: a.mtime,
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: recommends,
			Contents: files.Contents{
				file(a.binary, binPath, "", 0o755),
				file(filepath.Join(stage, "hyphae.service"), unitDir+"/hyphae.service", "", 0o644),
				file(filepath.Join(a.repo, "configs", "hyphae.yaml"), configPath, files.TypeConfigNoReplace, 0o640),
			},
			Scripts: nfpm.Scripts{
				PostInstall: filepath.Join(stage, "postinst.sh"),
				PreRemove:   filepath.Join(stage, "prerm.sh"),
				PostRemove:  filepath.Join(stage, "postrm.sh"),
			},
			RPM: nfpm.RPM{Group: "System Environment/Daemons", BuildHost: "localhost"},
		},
		Section:  "net",
		Priority: "optional",
	}
}

// write packages info as format into path (through a temporary file, so
// that a failed build leaves no half package).
func write(info *nfpm.Info, format, path string) error {
	p, err := nfpm.Get(format)
	if err != nil {
		return fmt.Errorf("build %s: %w", format, err)
	}
	info = nfpm.WithDefaults(info)
	f, err := os.CreateTemp(filepath.Dir(path), ".hyphae-pkg-*")
	if err != nil {
		return fmt.Errorf("build %s: %w", format, err)
	}
	defer os.Remove(f.Name())
	if err := p.Package(info, f); err != nil {
		f.Close()
		return fmt.Errorf("build %s: %w", format, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("build %s: %w", format, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("build %s: %w", format, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("build %s: %w", format, err)
	}
	return nil
}
