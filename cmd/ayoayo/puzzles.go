package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/ahead"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// maxFillDays bounds one `puzzles generate` or `puzzles stats` run: ten
// years ahead is plenty.
const maxFillDays = 3660

// puzzleCutoverFlag declares --puzzle-cutover, shared by serve and the
// puzzles subcommands so that they agree on which version makes which day.
func puzzleCutoverFlag(fs *flag.FlagSet) *string {
	return fs.String("puzzle-cutover", gen.DefaultCutover.Format(gen.DateLayout), puzzleCutoverHelp)
}

// puzzleCutoverHelp describes --puzzle-cutover, for serve and puzzles alike.
const puzzleCutoverHelp = "first `day` (YYYY-MM-DD) of daily puzzles made by generator version 2; earlier days keep version 1's; days already stored never change (env AYOAYO_PUZZLE_CUTOVER)"

func parseCutover(s string) (time.Time, error) {
	d, err := gen.ParseDate(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: --puzzle-cutover: %v", errUsage, err)
	}
	return d, nil
}

// runPuzzles is `ayoayo puzzles generate|stats|ahead`.
func runPuzzles(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	from := fs.String("from", "", "first `date`, YYYY-MM-DD (default today, UTC)")
	days := fs.Int("days", 7, fmt.Sprintf("how many days, 1 to %d", maxFillDays))
	db := fs.String("db", "./ayoayo.db", dbHelp+" (generate, and stats --practice)")
	cutoverFlag := puzzleCutoverFlag(fs)
	asJSON := fs.Bool("json", false, "stats only: print the figures as one JSON object instead of tables")
	practice := fs.Bool("practice", false, "stats only: the practice stock of --db (per stocked filter: puzzles, non-greedy share, grades) instead of generated days")
	stock := fs.Int("stock", aheadStock, "ahead only: practice puzzles per stocked filter (buckets 0 to N-1)")
	out := fs.String("out", "", "ahead only: the `file` to write (the shipped one is "+ahead.File+")")
	check := fs.String("check", "", "ahead only: check this `file` (\"shipped\": the one in the binary) against the generator instead of making one")
	except := fs.String("except-days", "", "ahead --check only: `FIRST:LAST`, days (YYYY-MM-DD) whose daily puzzles the check leaves out because another check compares them (CI: the year tests of puzzles/gen)")
	info := fs.String("info", "", "ahead only: say what this `file` (\"shipped\": the one in the binary) holds, without checking it")
	until := fs.String("until", "", "ahead --info only: fail unless the file's daily puzzles reach this `day` (YYYY-MM-DD) without a gap (release/release.sh)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "ahead only: generations at once")
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	if sub != "generate" && sub != "stats" && sub != "ahead" {
		if err := fs.Parse(args); err != nil {
			return err
		}
		return fmt.Errorf("%w: want the subcommand generate, stats or ahead", errUsage)
	}
	if err := m.parse(fs, args[1:], envPrefix, "db", "puzzle-cutover"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	first := gen.Day(time.Now())
	if *from != "" {
		d, err := gen.ParseDate(*from)
		if err != nil {
			return fmt.Errorf("%w: --from: %v", errUsage, err)
		}
		first = d
	}
	if *days < 1 || *days > maxFillDays {
		return fmt.Errorf("%w: --days %d, want 1 to %d", errUsage, *days, maxFillDays)
	}
	cutover, err := parseCutover(*cutoverFlag)
	if err != nil {
		return err
	}
	if sub == "ahead" {
		if *info != "" {
			if *check != "" || *out != "" || *except != "" {
				return fmt.Errorf("%w: ahead --info takes neither --check, --out nor --except-days", errUsage)
			}
			return aheadInfo(m, *info, *until)
		}
		if *until != "" {
			return fmt.Errorf("%w: --until goes with ahead --info", errUsage)
		}
		if *check != "" {
			skip, err := parseDaySpan(*except)
			if err != nil {
				return err
			}
			return checkAhead(ctx, m, *check, skip, *workers)
		}
		if *except != "" {
			return fmt.Errorf("%w: --except-days goes with ahead --check", errUsage)
		}
		if *out == "" || *stock < 0 {
			return fmt.Errorf("%w: ahead needs --out FILE (or --check FILE) and --stock 0 or more", errUsage)
		}
		return makeAhead(ctx, m, *out, first, *days, cutover, *stock, *workers)
	}
	if sub == "stats" && *practice {
		return practiceStats(ctx, m, *db, *asJSON)
	}
	if sub == "stats" {
		feed, err := generateDays(ctx, first, *days, cutover)
		if err != nil {
			return err
		}
		st := puzzleStats(feed)
		if *asJSON {
			enc := json.NewEncoder(m.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(st)
		}
		st.write(m.Stdout)
		return nil
	}
	return fillPuzzles(ctx, m, *db, first, *days, cutover)
}

// fillTimeout bounds one day's generation by `ayoayo puzzles generate`.
const fillTimeout = 10 * time.Minute

// fillPuzzles is `ayoayo puzzles generate`: it fills the feed ahead of time,
// so the first request of a day reads a stored puzzle instead of generating
// it. Days already stored are left as they are (a stored puzzle never
// changes), and the run can be repeated or interrupted safely.
func fillPuzzles(ctx context.Context, m *Main, db string, first time.Time, days int, cutover time.Time) error {
	st, err := openStore(ctx, db, time.Now, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	// An offline job: no request waits for it, so a slow or busy machine
	// gets the time it needs rather than a failed run.
	feed := puzzles.NewFeed(st, newBudget(0), puzzles.FeedOptions{Cutover: cutover, GenerateTimeout: fillTimeout})
	for i := range days {
		d := first.AddDate(0, 0, i)
		start := time.Now()
		sp, generated, err := feed.Prepare(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Format(gen.DateLayout), err)
		}
		what := "already stored"
		if generated {
			what = fmt.Sprintf("generated in %d ms", time.Since(start).Milliseconds())
		}
		p := sp.Puzzle
		fmt.Fprintf(m.Stdout, "%s %s %-3s %-11s depth %d  difficulty %d  key legs %2d  %s\n",
			p.Date.Format(gen.DateLayout), p.ID, p.Date.Weekday().String()[:3], p.Goal, p.Depth, p.Difficulty, p.KeyLegs, what)
	}
	return nil
}

// generateDays generates n days from first, with the version in force for
// each, one generation per core at a time, and one endgame table for every
// day; the result is in date order.
func generateDays(ctx context.Context, first time.Time, n int, cutover time.Time) ([]gen.Puzzle, error) {
	return puzzles.NewGenerator(cores()).GenerateDays(ctx, first, n, cutover)
}

// stats is what `ayoayo puzzles stats` reports of a run of days.
type stats struct {
	From       string         `json:"from"`
	Days       int            `json:"days"`
	Versions   map[string]int `json:"versions"`
	Goals      map[string]int `json:"goals"` // win by depth: win1, win2, win3
	Themes     map[string]int `json:"themes"`
	KeyLegs    map[string]int `json:"keyLegs"` // 8-9, 10-11, 12-17, 18+
	Difficulty map[string]int `json:"difficulty"`
	OffTarget  int            `json:"offTarget"` // days whose difficulty is not the weekday's target
	// NonGreedy counts the puzzles whose key captures less than another
	// move (gen.NonGreedy), by weekday Monday first, and in all.
	NonGreedy      []share `json:"nonGreedy"`
	NonGreedyAll   share   `json:"nonGreedyAll"`
	NonGreedyWinN2 share   `json:"nonGreedyWin2or3"`
	NonGreedyEnd   share   `json:"nonGreedyEndgame"`
}

type share struct {
	Label string `json:"label,omitempty"`
	Count int    `json:"count"`
	Of    int    `json:"of"`
}

func (s share) String() string {
	if s.Of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f %%)", s.Count, s.Of, 100*float64(s.Count)/float64(s.Of))
}

func legsBand(legs int) string {
	switch {
	case legs >= 18:
		return "18+"
	case legs >= 12:
		return "12-17"
	case legs >= 10:
		return "10-11"
	}
	return "8-9"
}

func puzzleStats(feed []gen.Puzzle) stats {
	st := stats{Days: len(feed), Versions: map[string]int{}, Goals: map[string]int{}, Themes: map[string]int{},
		KeyLegs: map[string]int{}, Difficulty: map[string]int{}}
	if len(feed) > 0 {
		st.From = feed[0].Date.Format(gen.DateLayout)
	}
	names := []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	st.NonGreedy = make([]share, 7)
	for i := range st.NonGreedy {
		st.NonGreedy[i].Label = names[i]
	}
	st.NonGreedyAll.Label, st.NonGreedyWinN2.Label, st.NonGreedyEnd.Label = "all", "win within 2 or 3", "endgame"
	for _, p := range feed {
		st.Versions[fmt.Sprint(p.Version)]++
		goal := string(p.Goal)
		if p.Goal == gen.GoalWin {
			goal += fmt.Sprint(p.Depth)
		}
		st.Goals[goal]++
		for _, t := range p.Themes {
			st.Themes[t]++
		}
		st.KeyLegs[legsBand(p.KeyLegs)]++
		st.Difficulty[fmt.Sprint(p.Difficulty)]++
		if p.Difficulty != gen.TargetDifficulty(p.Date) {
			st.OffTarget++
		}
		ng := 0
		if gen.NonGreedy(p) {
			ng = 1
		}
		wd := (int(p.Date.Weekday()) + 6) % 7
		for _, s := range []*share{&st.NonGreedy[wd], &st.NonGreedyAll} {
			s.Count += ng
			s.Of++
		}
		if p.Goal == gen.GoalWin && p.Depth >= 2 {
			st.NonGreedyWinN2.Count += ng
			st.NonGreedyWinN2.Of++
		}
		if p.Goal == gen.GoalEndgame {
			st.NonGreedyEnd.Count += ng
			st.NonGreedyEnd.Of++
		}
	}
	return st
}

// write prints st as plain-text tables.
func (st stats) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%d days from %s; generator versions %s; %d off the weekday's difficulty\n\n", st.Days, st.From, counts(st.Versions, nil), st.OffTarget)
	fmt.Fprintf(tw, "goals\t%s\n", counts(st.Goals, []string{"max_capture", "win1", "win2", "win3", "defend", "endgame"}))
	fmt.Fprintf(tw, "difficulty\t%s\n", counts(st.Difficulty, []string{"1", "2", "3", "4", "5"}))
	fmt.Fprintf(tw, "key legs\t%s\n", counts(st.KeyLegs, []string{"8-9", "10-11", "12-17", "18+"}))
	fmt.Fprintf(tw, "themes\t%s\n", counts(st.Themes, gen.ThemeNames()))
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "non-greedy keys\t")
	for _, s := range append(slices.Clone(st.NonGreedy), st.NonGreedyAll, st.NonGreedyWinN2, st.NonGreedyEnd) {
		fmt.Fprintf(tw, "  %s\t%s\n", s.Label, s)
	}
	tw.Flush()
}

// counts lists m's entries as "key n", in order's order and then the rest
// sorted, skipping keys of order that m lacks.
func counts(m map[string]int, order []string) string {
	var keys []string
	for _, k := range order {
		if m[k] > 0 {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range m {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var parts []string
	for _, k := range append(keys, rest...) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// aheadStock is the practice puzzles per stocked filter of the shipped set
// unless --stock says otherwise: a walk's first 16 answers of each filter
// from a fresh server, for a file of about 100 KB made in minutes.
const aheadStock = 16

// makeAhead is `ayoayo puzzles ahead --out FILE`: the puzzles a fresh
// server serves at once (puzzles.MakeAhead), written as the binary ships
// them. The same flags make the same file content.
func makeAhead(ctx context.Context, m *Main, out string, first time.Time, days int, cutover time.Time, stock, workers int) error {
	start := time.Now()
	tb, err := puzzles.NewGenerator(workers).EndgameTable(ctx)
	if err != nil {
		return err
	}
	set, err := puzzles.MakeAhead(ctx, tb, first, days, cutover, stock, workers)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := set.Encode(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %d days from %s, %d practice puzzles (%d filters, buckets 0-%d), %d bytes, made in %s\n",
		out, len(set.Days), first.Format(gen.DateLayout), len(set.Stock), len(puzzles.StockedFilters()), stock-1, fi.Size(), time.Since(start).Round(time.Second))
	return nil
}

// daySpan is a run of days, both ends included; the zero span holds none.
type daySpan struct{ first, last time.Time }

func (s daySpan) holds(d time.Time) bool {
	return !s.first.IsZero() && !d.Before(s.first) && !d.After(s.last)
}

// parseDaySpan parses --except-days: FIRST:LAST, or nothing.
func parseDaySpan(s string) (daySpan, error) {
	if s == "" {
		return daySpan{}, nil
	}
	a, b, ok := strings.Cut(s, ":")
	first, err1 := gen.ParseDate(a)
	last, err2 := gen.ParseDate(b)
	if !ok || err1 != nil || err2 != nil || last.Before(first) {
		return daySpan{}, fmt.Errorf("%w: --except-days %q, want FIRST:LAST, two days YYYY-MM-DD in order", errUsage, s)
	}
	return daySpan{first, last}, nil
}

// readAhead reads a file of puzzles made ahead, or the shipped one.
func readAhead(file string) (puzzles.AheadSet, error) {
	if file == "shipped" {
		return ahead.Set()
	}
	f, err := os.Open(file)
	if err != nil {
		return puzzles.AheadSet{}, err
	}
	defer f.Close()
	return puzzles.DecodeAhead(f)
}

// aheadInfo is `ayoayo puzzles ahead --info FILE [--until DAY]`: what the
// file holds, and with --until, an error unless its daily puzzles run
// without a gap to DAY (release/release.sh refuses a release whose file
// ends less than 180 days after its date).
func aheadInfo(m *Main, file, until string) error {
	set, err := readAhead(file)
	if err != nil {
		return err
	}
	if _, err := puzzles.NewAhead(set); err != nil {
		return err
	}
	first, last, gapless, ok := set.DaySpan()
	if ok {
		fmt.Fprintf(m.Stdout, "%s: %d days, %s to %s", file, len(set.Days), first.Format(gen.DateLayout), last.Format(gen.DateLayout))
		if !gapless {
			fmt.Fprint(m.Stdout, " (with gaps)")
		}
		fmt.Fprintln(m.Stdout)
	} else {
		fmt.Fprintf(m.Stdout, "%s: no days\n", file)
	}
	perFilter := map[string]int{}
	for _, r := range set.Stock {
		perFilter[r.Filter]++
	}
	fmt.Fprintf(m.Stdout, "%d practice puzzles:", len(set.Stock))
	for _, f := range puzzles.StockedFilters() {
		fmt.Fprintf(m.Stdout, " %s %d", puzzles.FilterKey(f), perFilter[puzzles.FilterKey(f)])
	}
	fmt.Fprintln(m.Stdout)
	if until == "" {
		return nil
	}
	day, err := gen.ParseDate(until)
	if err != nil {
		return fmt.Errorf("%w: --until: %v", errUsage, err)
	}
	switch {
	case !ok:
		return fmt.Errorf("%s holds no daily puzzles, want them until %s", file, until)
	case !gapless:
		return fmt.Errorf("%s: its daily puzzles have gaps between %s and %s", file, first.Format(gen.DateLayout), last.Format(gen.DateLayout))
	case last.Before(day):
		return fmt.Errorf("%s: its daily puzzles end on %s, want them until %s: make the file again with more days (docs/puzzles.md, \"Shipped with the binary\")",
			file, last.Format(gen.DateLayout), until)
	}
	fmt.Fprintf(m.Stdout, "daily puzzles until %s: yes (%d days to spare)\n", until, int(last.Sub(day)/(24*time.Hour)))
	return nil
}

// checkAhead is `ayoayo puzzles ahead --check FILE`: every puzzle of the
// file made again by the generator and compared, but the daily puzzles of
// skip's days (compared by another check: CI's year tests).
func checkAhead(ctx context.Context, m *Main, file string, skip daySpan, workers int) error {
	set, err := readAhead(file)
	if err != nil {
		return err
	}
	if _, err := puzzles.NewAhead(set); err != nil {
		return err
	}
	start := time.Now()
	var tb *tablebase.Table
	checks := make([]func() error, 0, len(set.Days)+len(set.Stock))
	days := 0
	needTable := len(set.Stock) > 0 // version 1 days are made without it
	for _, p := range set.Days {
		if skip.holds(gen.Day(p.Date)) {
			continue
		}
		days++
		needTable = needTable || p.Version >= 2
		checks = append(checks, func() error { return puzzles.CheckAheadDay(ctx, tb, p) })
	}
	for _, r := range set.Stock {
		checks = append(checks, func() error { return puzzles.CheckAheadRow(ctx, tb, r) })
	}
	if needTable {
		if tb, err = puzzles.NewGenerator(workers).EndgameTable(ctx); err != nil {
			return err
		}
	}
	errs := make([]error, len(checks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				errs[i] = checks[i]()
			}
		})
	}
	for i := range checks {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	left := ""
	if n := len(set.Days) - days; n > 0 {
		left = fmt.Sprintf(" (%d days left out, those of --except-days %s:%s)", n, skip.first.Format(gen.DateLayout), skip.last.Format(gen.DateLayout))
	}
	fmt.Fprintf(m.Stdout, "%s: %d days and %d practice puzzles are what the generator makes%s (%s)\n",
		file, days, len(set.Stock), left, time.Since(start).Round(time.Second))
	return nil
}
