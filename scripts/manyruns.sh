#!/bin/sh
# manyruns.sh times the commands that read a large run store: it fills a
# temporary database with RUNS finished runs of SAMPLES results each
# (scripts/manyruns writes them straight through the run store), then times
# `runs`, `report` (JSON and CSV) of the newest and of the oldest run,
# `diff` of two runs, and how long `ragscope open` takes to show the table
# in tmux. It prints the wall time and peak RSS of each; the database is
# removed at the end and nothing is left running.
#
#   scripts/manyruns.sh                         # 1,000 runs x 10,000 results (10M; ~16 GB of disk)
#   RUNS=100 SAMPLES=1000 scripts/manyruns.sh   # a quick check
#
# It needs Go, GNU time at /usr/bin/time and tmux.
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-1000}
samples=${SAMPLES:-10000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-manyruns.XXXXXX")
sock="ragscope-manyruns-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/ragscope" ./cmd/ragscope
go build -o "$tmp/manyruns" ./scripts/manyruns
t0=$(date +%s)
"$tmp/manyruns" -db "$tmp/db" -runs "$runs" -samples "$samples" 2>/dev/null
printf 'store: %d runs x %d results written in %d s, database %d MB\n' "$runs" "$samples" "$(($(date +%s) - t0))" "$(($(wc -c <"$tmp/db") / 1000000))"

oldest=$(printf '20260101-%06d-gen%04d' 0 0)
second=$(printf '20260101-%06d-gen%04d' 1 1)
measure() {
	label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { echo "manyruns.sh: $label failed:" >&2; tail -3 "$tmp/err" >&2; exit 1; }
	read -r wall rss <"$tmp/time"
	printf '%-28s %8s s %8d MiB\n' "$label" "$wall" "$((rss / 1024))"
}
measure "runs" "$tmp/ragscope" runs --db "$tmp/db"
measure "report latest (json)" "$tmp/ragscope" report latest --db "$tmp/db" --out "$tmp/r.json"
measure "report oldest (csv)" "$tmp/ragscope" report "$oldest" --db "$tmp/db" --format csv --out "$tmp/r.csv"
measure "diff oldest second" "$tmp/ragscope" diff "$oldest" "$second" --db "$tmp/db"

now() { date +%s%N; }
t0=$(now)
tmux -L "$sock" new-session -d -s m -x 120 -y 40 "exec '$tmp/ragscope' open latest --db '$tmp/db'"
until tmux -L "$sock" capture-pane -p -t m | grep -q ' 0 What is the monthly fee of plan 0'; do
	if [ $(($(now) - t0)) -gt 60000000000 ]; then echo "manyruns.sh: no table after 60 s" >&2; exit 1; fi
	sleep 0.01
done
printf '%-28s %8d ms\n' "open latest: table shown" "$(( ($(now) - t0) / 1000000 ))"
