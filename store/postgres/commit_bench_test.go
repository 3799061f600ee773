package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/games"
)

// postgresTicks is the CPU, in clock ticks, that the processes named
// postgres on this machine have used so far, and false when there are none
// to read (a database elsewhere, or no /proc): the database's CPU, when it
// runs here and nothing else uses it meanwhile.
func postgresTicks() (int64, bool) {
	var total int64
	found := false
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, comm := range comms {
		name, err := os.ReadFile(comm)
		if err != nil || strings.TrimSpace(string(name)) != "postgres" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(comm), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis; utime and
		// stime are the 14th and 15th of the line.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 13 {
			continue
		}
		user, err1 := strconv.ParseInt(fields[11], 10, 64)
		system, err2 := strconv.ParseInt(fields[12], 10, 64)
		if err1 == nil && err2 == nil {
			total += user + system
			found = true
		}
	}
	return total, found
}

// clockTicks is the kernel's USER_HZ, which Linux fixes at 100.
const clockTicks = 100

// BenchmarkPlayBatch writes batches of plays, each of a different game, as
// the committer does (sendBatch), one batch after another, each play
// setting its game's deadline as the service does: ns/op is a
// batch's round trip and commit, and pg-cpu-µs/play what the postgres
// processes on this machine spent per play (reported when PostgreSQL runs
// here; the games made when others finish are not counted). Its figures
// are in docs/performance.md.
func BenchmarkPlayBatch(b *testing.B) {
	for _, size := range []int{1, 8, 32} {
		b.Run(fmt.Sprint("plays=", size), func(b *testing.B) {
			s := openOn(b, freshSchema(b), Options{})
			made := 0
			var unseen int64 // the postgres ticks spent making games
			fresh := func() games.Game {
				before, _ := postgresTicks()
				made++
				g := joinedGame(b, s, fmt.Sprintf("bench-%06d", made))
				after, _ := postgresTicks()
				unseen += after - before
				return g
			}
			in := make([]games.Game, 0, 4*size)
			for range 4 * size {
				in = append(in, fresh())
			}
			plays := 0
			start, local := postgresTicks()
			next := 0
			for b.Loop() {
				batch := make([]*pendingWrite, 0, size)
				at := make([]int, 0, size)
				for range size {
					i := next % len(in)
					next++
					g := in[i]
					legal := g.Position.LegalMoves(g.Rules)
					pit := legal.Next()
					p := playOn(b, g, pit, seatToken(g), g.UpdatedAt.Add(time.Second))
					// As the game service sets it for a game without a
					// clock: every move sets the deadline anew.
					p.Game.Deadline = p.At.Add(games.DefaultIdleExpiry)
					batch = append(batch, playWrite(&p))
					at = append(at, i)
				}
				// In game id order, as the committer sends them.
				order := make([]int, size)
				for i := range order {
					order[i] = i
				}
				slices.SortFunc(order, func(x, y int) int { return strings.Compare(batch[x].play.GameID, batch[y].play.GameID) })
				sorted := make([]*pendingWrite, size)
				for i, o := range order {
					sorted[i] = batch[o]
				}
				applied, err := s.sendBatch(sorted)
				if err != nil {
					b.Fatal(err)
				}
				for i, o := range order {
					if !applied[i] {
						b.Fatalf("play of %s not applied", sorted[i].play.GameID)
					}
					in[at[o]] = batch[o].play.Game
				}
				plays += size
				b.StopTimer()
				for i, g := range in {
					if g.Status != games.Active {
						in[i] = fresh()
					}
				}
				b.StartTimer()
			}
			if end, ok := postgresTicks(); local && ok && plays > 0 {
				b.ReportMetric(float64(end-start-unseen)/clockTicks*1e6/float64(plays), "pg-cpu-µs/play")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(plays), "ns/play")
		})
	}
}

// BenchmarkCreateAndJoin makes games and joins them, 16 at once as the
// load test's players do, each game's creation and join one after the
// other: pg-cpu-µs/game is what the postgres processes on this machine
// spent per game (reported when PostgreSQL runs here). The creations and
// joins under way share the committer's batches. Its figures are in
// docs/performance.md.
func BenchmarkCreateAndJoin(b *testing.B) {
	s := openOn(b, freshSchema(b), Options{})
	const inFlight = 16
	var made atomic.Int64
	start, local := postgresTicks()
	b.SetParallelism((inFlight + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			joinedGame(b, s, fmt.Sprintf("cj-%07d", made.Add(1)))
		}
	})
	if end, ok := postgresTicks(); local && ok && made.Load() > 0 {
		b.ReportMetric(float64(end-start)/clockTicks*1e6/float64(made.Load()), "pg-cpu-µs/game")
	}
}
