package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Set at release with -ldflags "-X main.version=v1.2.3 -X main.commit=...
// -X main.date=...": a release names itself, where the build's own
// information has no tag (a build from a clean checkout has the commit and
// its time, but `go build` stamps the main module as "(devel)").
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildInfo is what this binary knows of its own build.
type buildInfo struct {
	Version   string // a release's tag, the module's version, or "devel"
	Commit    string // the VCS revision, "+dirty" when it had changes; "unknown"
	Date      string // the commit's time, or the release's build time; "unknown"
	GoVersion string
}

// readBuildInfo merges the values set at release over the build's own
// information (debug.ReadBuildInfo): `go install …@v1.2.3` records the
// module's version, a build in a clone records the commit and its time.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		var revision, when string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if b.Commit == "" && revision != "" {
			b.Commit = revision
			if dirty {
				b.Commit += "+dirty"
			}
		}
		if b.Date == "" {
			b.Date = when
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

// String is the line `ayoayo version` prints.
func (b buildInfo) String() string {
	return fmt.Sprintf("ayoayo %s (commit %s, built %s, %s)", b.Version, b.Commit, b.Date, b.GoVersion)
}

// runVersion prints the version, commit and build date.
func runVersion(_ context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: no arguments expected", errUsage)
	}
	fmt.Fprintln(m.Stdout, readBuildInfo())
	return nil
}

// registerBuildInfo adds ayoayo_build_info, always 1, whose labels say which
// build answers: what a dashboard shows, and what tells a rolling upgrade's
// old instances from its new ones.
func registerBuildInfo(reg prometheus.Registerer, b buildInfo) error {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ayoayo_build_info",
		Help: "Always 1; the labels name the build that serves: its version, commit, build date and Go version.",
		ConstLabels: prometheus.Labels{
			"version": b.Version, "commit": b.Commit, "date": b.Date, "goversion": b.GoVersion,
		},
	})
	g.Set(1)
	return reg.Register(g)
}
