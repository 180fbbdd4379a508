#!/bin/sh
# manyruns.sh times the commands that read a large run store: it fills a
# temporary database with RUNS finished runs of SAMPLES results each
# (scripts/manyruns writes them straight through the run store), then times
# `runs`, `report` (JSON and CSV) of the newest and of the oldest run,
# `diff` of two runs, and how long `ragscope open` takes to show the table
# in tmux. It prints the wall time and peak RSS of each. Then it times the
# first command after a writer died before recording the file sound (it walks
# every page once) and the one after it, and damages a page in place to show
# that a command refuses the file with a clear error. The database is removed
# at the end and nothing is left running.
#
#   scripts/manyruns.sh                         # 1,000 runs x 10,000 results (10M; ~16 GB of disk)
#   RUNS=150 SAMPLES=10000 scripts/manyruns.sh  # a 2 GB store
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
measure "report latest | head" sh -c "'$tmp/ragscope' report latest --db '$tmp/db' --format json | head -c 200"
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
tmux -L "$sock" kill-server

rm -f "$tmp/.db.verified"
measure "runs, file not recorded" "$tmp/ragscope" runs --db "$tmp/db"
measure "runs, after it" "$tmp/ragscope" runs --db "$tmp/db"

pages=$(($(wc -c <"$tmp/db") / 4096))
dd if=/dev/urandom of="$tmp/db" bs=4096 seek=$((pages / 2)) count=1 conv=notrunc 2>/dev/null
if "$tmp/ragscope" report latest --db "$tmp/db" >/dev/null 2>"$tmp/err"; then
	echo "manyruns.sh: report of a store with a damaged page succeeded" >&2
	exit 1
fi
grep -q 'is damaged' "$tmp/err" || { echo "manyruns.sh: no damage error:" >&2; cat "$tmp/err" >&2; exit 1; }
printf '%-28s %s\n' "page $((pages / 2)) damaged" "$(cut -c1-110 "$tmp/err" | head -1)"
