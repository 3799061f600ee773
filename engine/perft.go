package engine

// Perft counts the move sequences of length depth from p under r. A finished
// game (won by majority, or with no legal move for the side to move) counts as
// one leaf where it ends. Repetition is not applied: it belongs to game sessions.
func Perft(p Position, r Rules, depth int) uint64 {
	if depth <= 0 || p.MajorityResult().Over() {
		return 1
	}
	var n uint64
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		if depth == 1 {
			if _, why := sow(&p, pit, r, nil, nil); why == Legal {
				n++
			}
			continue
		}
		var next Position
		if _, why := sow(&p, pit, r, nil, &next); why == Legal {
			n += Perft(next, r, depth-1)
		}
	}
	if n == 0 {
		return 1 // no legal move: the game ends here
	}
	return n
}

// Children returns the positions reached by each legal move of p, with the pit
// played, for callers that split a perft or a search across goroutines.
func (p Position) Children(r Rules) (pits []int, next []Position) {
	if p.MajorityResult().Over() {
		return nil, nil
	}
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		var c Position
		if _, why := sow(&p, pit, r, nil, &c); why == Legal {
			pits = append(pits, pit)
			next = append(next, c)
		}
	}
	return pits, next
}
