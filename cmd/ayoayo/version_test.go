package main

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			m, stdout, stderr := testMain(nil)
			if code := m.Run(context.Background(), args); code != 0 {
				t.Fatalf("exit status %d: %s", code, stderr.String())
			}
			want := readBuildInfo().String() + "\n"
			if stdout.String() != want {
				t.Errorf("printed %q, want %q", stdout.String(), want)
			}
			if !strings.HasPrefix(want, "ayoayo ") || !strings.Contains(want, "commit ") {
				t.Errorf("%q does not name the version and commit", want)
			}
		})
	}
}

// A release's -ldflags values win over the build's own information.
func TestVersionFromLdflags(t *testing.T) {
	saved := [3]string{version, commit, date}
	t.Cleanup(func() { version, commit, date = saved[0], saved[1], saved[2] })
	version, commit, date = "v1.2.3", "0123abc", "2026-12-01T00:00:00Z"

	b := readBuildInfo()
	if b.Version != "v1.2.3" || b.Commit != "0123abc" || b.Date != "2026-12-01T00:00:00Z" {
		t.Errorf("build info %+v, want the -ldflags values", b)
	}
	m, stdout, _ := testMain(nil)
	if code := m.Run(context.Background(), []string{"version"}); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	if !strings.HasPrefix(stdout.String(), "ayoayo v1.2.3 (commit 0123abc, built 2026-12-01T00:00:00Z, go") {
		t.Errorf("printed %q", stdout.String())
	}

	reg := prometheus.NewRegistry()
	if err := registerBuildInfo(reg, b); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 1 || mfs[0].GetName() != "ayoayo_build_info" || len(mfs[0].Metric) != 1 || mfs[0].Metric[0].GetGauge().GetValue() != 1 {
		t.Fatalf("gathered %v, want one ayoayo_build_info of 1", mfs)
	}
	labels := map[string]string{}
	for _, l := range mfs[0].Metric[0].Label {
		labels[l.GetName()] = l.GetValue()
	}
	want := map[string]string{"version": "v1.2.3", "commit": "0123abc", "date": "2026-12-01T00:00:00Z", "goversion": b.GoVersion}
	if !maps.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
}

func TestVersionTakesNoArguments(t *testing.T) {
	m, _, _ := testMain(nil)
	if code := m.Run(context.Background(), []string{"version", "extra"}); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
}
