package review_test

import (
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/review"
)

func TestClassOf(t *testing.T) {
	tests := []struct {
		name string
		loss int
		mark review.Mark
		want review.Class
	}{
		{"no loss", 0, review.NoMark, review.Best},
		{"one seed", 1, review.NoMark, review.Good},
		{"two seeds", 2, review.NoMark, review.Inaccuracy},
		{"three seeds", 3, review.NoMark, review.Inaccuracy},
		{"four seeds", 4, review.NoMark, review.Mistake},
		{"six seeds", 6, review.NoMark, review.Mistake},
		{"seven seeds", 7, review.NoMark, review.Blunder},
		{"a missed win of one seed", 1, review.MissedWin, review.Mistake},
		{"a missed win of ten seeds", 10, review.MissedWin, review.Blunder},
		{"a lost win", 2, review.LostWin, review.Blunder},
		{"a missed draw", 1, review.MissedDraw, review.Blunder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := review.ClassOf(tt.loss, tt.mark); got != tt.want {
				t.Errorf("ClassOf(%d, %v) = %v, want %v", tt.loss, tt.mark, got, tt.want)
			}
		})
	}
}

func TestAccuracy(t *testing.T) {
	ply := func(side engine.Side, loss int, forced bool) review.Ply {
		return review.Ply{Side: side, Loss: loss, Forced: forced}
	}
	tests := []struct {
		name  string
		plies []review.Ply
		side  engine.Side
		want  int
	}{
		{"no moves", nil, engine.South, 10000},
		{"all best", []review.Ply{ply(engine.South, 0, false), ply(engine.North, 9, false), ply(engine.South, 0, false)}, engine.South, 10000},
		{"one seed lost of two moves", []review.Ply{ply(engine.South, 0, false), ply(engine.South, 1, false)}, engine.South, 9000},
		{"forced moves left out", []review.Ply{ply(engine.North, 4, false), ply(engine.North, 20, true)}, engine.North, 5000},
		{"sixteen seeds", []review.Ply{ply(engine.North, 16, false)}, engine.North, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := review.Accuracy(tt.plies, tt.side); got != tt.want {
				t.Errorf("accuracy %d, want %d", got, tt.want)
			}
		})
	}
}
