// Package tabletest gives tests an endgame table under the default rules,
// built on first need or, when the environment names one, opened from a
// file. The puzzle generator's table (12 seeds) takes seconds to build, and
// about 100 s of CPU under the race detector: every package whose tests
// prove puzzles (api, puzzles, puzzles/gen, puzzles/ahead) built it again.
// .ci/run builds it once, without the detector, and names the file in
// AYOAYO_TEST_ENDGAME_TABLE for its race step; package tablebase's own
// tests build tables under the detector, and tests about a fresh build
// (or a fresh generator) still make their own.
package tabletest

import (
	"context"
	"fmt"
	"os"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Env names the table file the tests open instead of building the table:
// one of exactly the seeds asked for, under the default rules, with the
// default true scores (ayoayo tablebase build --seeds 12 --out FILE).
const Env = "AYOAYO_TEST_ENDGAME_TABLE"

// Endgame returns a table of seeds seeds under the default rules, with
// tablebase.DefaultScores(seeds) seeds of true scores: the file Env names,
// when it is set, else one built on workers goroutines. A file of other
// seeds, rules or scores is an error, not a reason to build: a test run
// that names a file means it.
func Endgame(ctx context.Context, seeds, workers int) (*tablebase.Table, error) {
	path := os.Getenv(Env)
	if path == "" {
		return tablebase.Build(ctx, seeds, engine.Rules{}, workers, nil)
	}
	t, err := tablebase.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Env, err)
	}
	if t.MaxSeeds() != seeds || t.Rules() != (engine.Rules{}) || t.ScoreSeeds() != tablebase.DefaultScores(seeds) {
		t.Close()
		return nil, fmt.Errorf("%s=%s: a table of %d seeds (%d with scores) under %+v, want %d (%d) under the default rules",
			Env, path, t.MaxSeeds(), t.ScoreSeeds(), t.Rules(), seeds, tablebase.DefaultScores(seeds))
	}
	return t, nil
}
