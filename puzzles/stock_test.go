
// TestStockDailyCheck: before the cutover, a stocked puzzle was compared
// with the upcoming daily puzzles when it was made; it is compared again
// (which may mean making a day's puzzle) only when the day its bucket now
// stands for lies beyond the days it was compared with.
func TestStockDailyCheck(t *testing.T) {
	tests := []struct {
		name      string
		made      time.Time
		wantDaily bool
	}{
		{"stocked today", poolToday, false},
		{"stocked a week ago", poolToday.AddDate(0, 0, -7), false},
		{"stocked two windows ago", poolToday.AddDate(0, 0, -2*puzzles.Window), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			st := &madeAt{Store: memory.New(), at: tt.made}
			dailies := 0
			feed := puzzles.NewFeed(st, puzzles.FeedOptions{
				Now: func() time.Time { return poolToday }, Cutover: poolToday.AddDate(5, 0, 0),
				Practice: failPractice(t), VerifyPractice: puzzletest.CheckMadeUp, Stock: st, StockSize: 4,
				Generate: func(ctx context.Context, d time.Time) (puzzles.Puzzle, error) {
					dailies++
					return puzzles.Puzzle{}, errors.New("no daily puzzle here")
				},
			})
			f := puzzles.PracticeFilter{Difficulty: 3}
			p, err := madeUpStock(ctx, puzzles.PracticeVersion, f, 5)
			if err != nil {
				t.Fatal(err)
			}
			p.ID = "x3-d3-gany-tany-5"
			if _, err := st.AddStock(ctx, puzzles.Stocked{Filter: "d3-gany-tany", Bucket: 5, Seq: 5, Puzzle: p}, tt.made); err != nil {
				t.Fatal(err)
			}
			sp, err := feed.Practice(ctx, f, "x3-d3-gany-tany-4")
			if tt.wantDaily {
				if dailies == 0 {
					t.Errorf("served %q (%v) without comparing it with the daily puzzle of its day", sp.Puzzle.ID, err)
				}
				return
			}
			if err != nil || sp.Puzzle.ID != p.ID || dailies != 0 {
				t.Errorf("%q, %v, %d daily generations; want %s from the stock, none", sp.Puzzle.ID, err, dailies, p.ID)
			}
		})
	}
}

// madeAt is a memory store; what a test adds to its stock is dated at.
type madeAt struct {
	*memory.Store
	at time.Time
}
