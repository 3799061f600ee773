#!/bin/bash
# compare-stores.sh: moves/s, p99 and CPU per 1,000 moves of `ayoayo serve`
# on SQLite, on PostgreSQL with one instance and on PostgreSQL with two
# instances, measured side by side: ROUNDS rounds (default 1), each running
# the three in turn, alternating, so that a machine's changing load touches
# them alike. Documented in docs/performance.md ("One instance on
# PostgreSQL against SQLite"). About 90 s per round (the servers' start-up
# work is waited out).
#
#   cmd/ayoayo/compare-stores.sh [ROUNDS]
#
# Environment:
#   AYOAYO_COMPARE_PG  a PostgreSQL DSN whose database the script may empty
#                      (default postgres://postgres@127.0.0.1:5432/ayoayo_compare?sslmode=disable;
#                      the database is dropped and made again with psql when it is that default)
#   AYOAYO_COMPARE_BIN an ayoayo binary (default: built from this checkout)
#   DURATION, GAMES, CONCURRENCY  the load (default 12s, 200, 16)
#
# CPU is read from /proc: the servers' own, and that of the postgres
# processes serving the measured database (and the server's own: WAL
# writer, checkpointer; found with psql in pg_stat_activity), from the start of the load to its end; a server first
# waits until its start-up work (the puzzles' endgame table, built in the
# background whatever --tablebase-build says) is done, so that only the
# moves are counted. The load test's own CPU is printed too ("client",
# from bash's time), apart: the goal does not count it.
set -euo pipefail
rounds=${1:-1}
duration=${DURATION:-12s}
games=${GAMES:-200}
concurrency=${CONCURRENCY:-16}
default_pg='postgres://postgres@127.0.0.1:5432/ayoayo_compare?sslmode=disable'
pg=${AYOAYO_COMPARE_PG:-$default_pg}
pgdb=$(echo "$pg" | sed -n 's|^postgres[a-z]*://[^/]*/\([^?]*\).*|\1|p')
pghost=$(echo "$pg" | sed -n 's|^postgres[a-z]*://\([^@/]*@\)\{0,1\}\([^:/]*\).*|\2|p')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${AYOAYO_COMPARE_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/ayoayo
	(cd "$(dirname "$0")/../.." && go build -o "$bin" ./cmd/ayoayo)
fi
serve_flags=(--tablebase-build 0 --practice-stock 0 --log-level warn --game-create-rate 0 --join-rate 0 --move-rate 0)
tick=$(getconf CLK_TCK)

# cpu PID...: user+system CPU of the processes, in clock ticks.
cpu() {
	local t=0 p
	for p in "$@"; do
		# A process that ended meanwhile counts nothing.
		t=$((t + $(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null || echo 0)))
	done
	echo $t
}
# pgsnap FILE: "pid ticks" of the postgres processes that work for the
# measured database: its backends and the server's own (WAL writer,
# checkpointer, ...), not other databases' backends, which come and go.
pgsnap() {
	local p
	for p in $(psql -qAt -h "$pghost" -U postgres -d postgres -c \
		"SELECT pid FROM pg_stat_activity WHERE datname = '$pgdb' OR backend_type <> 'client backend'"); do
		echo "$p $(cpu "$p")"
	done >"$1"
}
# pgwatch: snapshots every half second until $work/stop exists, so that
# the CPU of a backend that ends during the run (a pool closes the
# connection of a cancelled query) is counted up to its last snapshot.
pgwatch() {
	local i=0
	while [ ! -e "$work/stop" ]; do
		pgsnap "$work/pgw.$i"
		i=$((i + 1))
		sleep 0.5
	done
}
# pgcpu FIRST LATER...: the ticks the processes spent from the first
# snapshot to the last one each appears in (a backend that started in
# between, all of its own).
pgcpu() {
	awk 'NR == FNR {before[$1] = $2; next} {last[$1] = $2} END {for (p in last) s += last[p] - before[p]; print s + 0}' "$@"
}

# serve NAME DB PORT: starts a server, waits until it is ready and idle,
# prints its pid.
serve() {
	"$bin" serve --addr 127.0.0.1:"$3" --admin-addr 127.0.0.1:$(($3 + 100)) --db "$2" "${serve_flags[@]}" >"$work/serve-$1-$3.log" 2>&1 &
	local pid=$! i
	for i in $(seq 1 200); do curl -sf http://127.0.0.1:"$3"/readyz >/dev/null && break; sleep 0.1; done
	# Idle: under 5% of a core for a second, at most 60 s.
	local before after
	for i in $(seq 1 60); do
		before=$(cpu $pid)
		sleep 1
		after=$(cpu $pid)
		[ $((after - before)) -le $((tick / 20)) ] && break
	done
	echo $pid
}

resetpg() {
	if [ "$pg" = "$default_pg" ]; then
		psql -q -h 127.0.0.1 -U postgres -d postgres -c 'DROP DATABASE IF EXISTS ayoayo_compare' -c 'CREATE DATABASE ayoayo_compare' >/dev/null
	fi
}

# run NAME DB INSTANCES
run() {
	local pids=() addrs=() port=18700 i
	[ "$2" = "$pg" ] && resetpg
	[ "$2" != "$pg" ] && rm -f "$2" "$2"-wal "$2"-shm
	for i in $(seq 1 "$3"); do
		pids+=("$(serve "$1" "$2" $((port + i)))")
		addrs+=("http://127.0.0.1:$((port + i))")
	done
	local load c0 c1 out moves client
	load=$(cut -d' ' -f1 /proc/loadavg)
	c0=$(cpu "${pids[@]}")
	pgsnap "$work/pg0"
	rm -f "$work/stop" "$work"/pgw.*
	pgwatch &
	local watch=$!
	# The client's own CPU (bash's time, user and system seconds), which
	# the goal does not count: it spends a little more on a move that is
	# answered later (CHANGELOG.md, 2026-12-04: the load test's own CPU).
	local TIMEFORMAT='%U %S'
	{ time "$bin" loadtest --addr "$(IFS=,; echo "${addrs[*]}")" --games "$games" --duration "$duration" --concurrency "$concurrency" >"$work/load.out" 2>&1; } 2>"$work/load.time"
	out=$(tail -4 "$work/load.out")
	client=$(awk '{print $1 + $2}' "$work/load.time")
	c1=$(cpu "${pids[@]}")
	touch "$work/stop"
	wait $watch
	pgsnap "$work/pg1"
	# Plays per PostgreSQL commit (group commit), over every instance.
	local batches=0 batched=0 m
	for i in $(seq 1 "$3"); do
		m=$(curl -s http://127.0.0.1:$((port + i + 100))/metrics)
		batches=$((batches + $(echo "$m" | awk '/^ayoayo_store_commit_batches_total/ {v = $2} END {printf "%d", v + 0}')))
		batched=$((batched + $(echo "$m" | awk '/^ayoayo_store_commit_batched_moves_total/ {v = $2} END {printf "%d", v + 0}')))
	done
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	moves=$(echo "$out" | sed -n 's/^moves \([0-9]*\) (\([0-9]*\) moves\/s).*/\1/p')
	rate=$(echo "$out" | sed -n 's/^moves [0-9]* (\([0-9]*\) moves\/s).*/\1/p')
	p50=$(echo "$out" | sed -n 's/.*p50 \([^ ]*\) .*/\1/p')
	p99=$(echo "$out" | sed -n 's/.*p99 \([^ ]*\) .*/\1/p')
	local pgticks=0
	[ "$2" = "$pg" ] && pgticks=$(pgcpu "$work/pg0" $(ls -v "$work"/pgw.*) "$work/pg1")
	awk -v n="$1" -v m="$moves" -v r="$rate" -v a="$p50" -v b="$p99" -v s=$((c1 - c0)) -v q="$pgticks" -v k="$tick" -v l="$load" -v bs="$batches" -v bm="$batched" -v lc="$client" \
		'BEGIN {printf "%-12s %6s moves/s  p50 %-9s p99 %-9s  server %5.1f s  postgres %5.1f s  %.2f CPU-s per 1,000 moves  client %4.1f s  load %s%s\n",
			n, r, a, b, s / k, q / k, (m > 0 ? (s + q) / k / m * 1000 : 0), lc, l, (bs > 0 ? sprintf("  %.1f plays per commit", bm / bs) : "")}'
	# The run's figures, for the round's ratios: moves/s, p99 in ms, and
	# CPU-seconds per 1,000 moves.
	last_rate=$rate
	last_p99=$(echo "$p99" | awk '/ms$/ {print $0 + 0; next} /µs$/ {print ($0 + 0) / 1000; next} /s$/ {print ($0 + 0) * 1000; next} {print 0}')
	last_cpu=$(awk -v m="$moves" -v s=$((c1 - c0)) -v q="$pgticks" -v k="$tick" 'BEGIN {print (m > 0 ? (s + q) / k / m * 1000 : 0)}')
}

# ratios NAME: the last run's figures against SQLite's of the same round,
# as the goal of issue 35 counts them (docs/performance.md): how many
# times fewer moves per second, the p99 and the CPU per move as multiples
# of SQLite's.
ratios() {
	awk -v n="$1" -v r="$last_rate" -v p="$last_p99" -v c="$last_cpu" -v sr="$sqlite_rate" -v sp="$sqlite_p99" -v sc="$sqlite_cpu" \
		'BEGIN {if (r > 0 && sp > 0 && sc > 0) printf "  %s against SQLite: %.2fx fewer moves/s, p99 %.2fx, CPU per move %.2fx\n", n, sr / r, p / sp, c / sc}'
}

echo "$games games, $concurrency in flight, $duration per run, $rounds rounds; $(nproc) cores"
for r in $(seq 1 "$rounds"); do
	run sqlite "$work/lt.db" 1
	sqlite_rate=$last_rate sqlite_p99=$last_p99 sqlite_cpu=$last_cpu
	run postgres-1 "$pg" 1
	ratios postgres-1
	run postgres-2 "$pg" 2
	ratios postgres-2
done
