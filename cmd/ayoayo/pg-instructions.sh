#!/bin/bash
# pg-instructions.sh: the instructions PostgreSQL executes per play of the
# committer's batches, counted by valgrind's callgrind rather than timed, so
# that two builds or two schemas compare to a fraction of a per cent
# whatever else the machine is doing (a timed benchmark here moves by
# some 15 % from one run to the next). Documented in docs/performance.md
# ("One instance on PostgreSQL against SQLite").
#
#   cmd/ayoayo/pg-instructions.sh [SIZE]
#
# It starts a PostgreSQL server of its own under callgrind (a throwaway
# cluster in a temporary directory, on PORT, default 5499; autovacuum off,
# so that no worker whose timing is not the benchmark's is counted), runs
# BenchmarkPlayBatch/plays=SIZE (default 8) twice, FEW and MANY batches
# (default 20 and 220), and prints the difference of the two runs'
# instructions (the backends', counted when they exit) per play: the
# schema's migrations, the connections' start and the games' creation are
# alike in both runs and cancel out. The kernel's work (the WAL flush, the
# socket) is not counted. The figure grows with MANY (the tables grow, and
# with no vacuum their dead rows stay), so compare two builds at the same
# FEW and MANY. Under a minute here.
#
# Needs valgrind and PostgreSQL's server programs (PG_BINDIR, default the
# newest /usr/lib/postgresql/*/bin); PG_INITDB_LOCALE, when set, is the
# cluster's locale (initdb's default otherwise). Run as root, it runs the
# server as the user postgres.
set -euo pipefail
size=${1:-8}
few=${FEW:-20}
many=${MANY:-220}
port=${PORT:-5499}
bindir=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ -z "$bindir" ] || [ ! -x "$bindir/postgres" ]; then
	echo "no PostgreSQL server programs found: set PG_BINDIR" >&2
	exit 2
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
chmod 755 "$work"
as_server() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}
[ "$(id -u)" = 0 ] && chown postgres "$work"
as_server mkdir "$work/cg"
stop() {
	as_server "$bindir/pg_ctl" -D "$work/data" stop -m fast >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap stop EXIT
as_server "$bindir/initdb" -D "$work/data" -A trust -U postgres ${PG_INITDB_LOCALE:+--locale=$PG_INITDB_LOCALE} >"$work/initdb.log" 2>&1
as_server valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/cg/cg.%p" \
	"$bindir/postgres" -D "$work/data" -p "$port" -k "$work" -c listen_addresses=127.0.0.1 -c autovacuum=off \
	>"$work/server.log" 2>&1 &
for _ in $(seq 1 120); do
	"$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" && break
	sleep 0.5
done
"$bindir/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c 'CREATE DATABASE test'
dsn="postgres://postgres@127.0.0.1:$port/test?sslmode=disable"

# instructions N: runs N batches and prints the instructions of the
# backends that exited meanwhile.
instructions() {
	local before after f total=0 t
	before=$(ls "$work/cg" | sort)
	(cd "$root" && AYOAYO_TEST_POSTGRES=$dsn go test ./store/postgres -run '^$' \
		-bench "PlayBatch/plays=$size\$" -benchtime "${1}x" -count 1 >"$work/bench.log" 2>&1) || { cat "$work/bench.log" >&2; exit 1; }
	sleep 2 # the backends write their counts as they exit
	after=$(ls "$work/cg" | sort)
	for f in $(comm -13 <(echo "$before") <(echo "$after")); do
		t=$(awk '/^(summary|totals):/ {print $2; exit}' "$work/cg/$f")
		total=$((total + ${t:-0}))
	done
	echo "$total"
}
a=$(instructions "$few")
b=$(instructions "$many")
awk -v a="$a" -v b="$b" -v n=$((many - few)) -v s="$size" 'BEGIN {
	printf "plays=%d: %.1f thousand instructions of PostgreSQL a play (%d batches: %d; %d batches: %d)\n", s, (b - a) / (n * s) / 1000, n + '"$few"', b, '"$few"', a }'
