package games

// Waiting reports how many requests wait for the play in flight at ply of
// game id (0 when none is in flight).
func (s *Service) Waiting(id string, ply int) int {
	s.flights.mu.Lock()
	defer s.flights.mu.Unlock()
	if f := s.flights.m[flightKey{id: id, ply: ply}]; f != nil {
		return f.joined
	}
	return 0
}

// AISlots reports the AI search slots lent and the moves waiting for one.
func (s *Service) AISlots() (lent, waiting int) { return s.aiSlots.counts() }
