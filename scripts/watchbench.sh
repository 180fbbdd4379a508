#!/bin/sh
# watchbench.sh measures ragscope watch: the records a second it sustains
# (1) with the offline judge while N records are appended to its log in
# chunks, with its peak resident set size (GNU time) once all N are
# evaluated, and (2) with an LLM judge whose every call is in the cache
# (a loopback fake judge; a first watcher warms the cache, a second one on
# a copy of the log evaluates the same records again with 0 requests).
# Nothing is left running; the data goes to a temporary directory.
#
#   scripts/watchbench.sh                # N=1000000 appended, WARM=20000
#   N=100000 WARM=5000 scripts/watchbench.sh
#
# It needs Go, awk and GNU time at /usr/bin/time.
set -eu
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "watchbench.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
N=${N:-1000000}
WARM=${WARM:-20000}
CHUNK=${CHUNK:-100000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-watchbench.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/ragscope" ./cmd/ragscope
go build -o "$tmp/slowjudge" ./scripts/slowjudge

# gen FROM TO writes records FROM..TO-1 (reference-free: question, answer, two chunks).
gen() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		for (i = a; i < b; i++)
			printf "{\"question\":\"What is the fee of plan %d?\",\"answer\":\"Plan %d costs %d yuan a month.\",\"contexts\":[\"Plan %d costs %d yuan a month.\",\"Plans renew on the first day.\"]}\n", i, i, i % 97, i, i % 97
	}'
}

# evaluated FILE is the last "N evaluated" of a watcher's progress lines.
evaluated() {
	sed -n 's/.* \([0-9][0-9]*\) evaluated,.*/\1/p' "$1" | tail -n 1
}

# wait_for FILE N waits until the watcher says N evaluated.
wait_for() {
	while :; do
		e=$(evaluated "$1")
		[ "${e:-0}" -ge "$2" ] && return 0
		sleep 0.5
	done
}

echo "watchbench: offline judge, $N records appended in chunks of $CHUNK"
: >"$tmp/app.jsonl"
/usr/bin/time -v -o "$tmp/time" "$tmp/ragscope" watch --headless --offline --progress 1s --db "$tmp/off.db" "$tmp/app.jsonl" 2>"$tmp/off.err" &
wpid=$!
pids="$wpid"
start=$(date +%s.%N)
i=0
while [ "$i" -lt "$N" ]; do
	j=$((i + CHUNK))
	[ "$j" -gt "$N" ] && j=$N
	gen "$i" "$j" >>"$tmp/app.jsonl"
	i=$j
done
wait_for "$tmp/off.err" "$N"
end=$(date +%s.%N)
# GNU time runs the watcher as its child: stop the watcher, then time reports.
pkill -TERM -P "$wpid" 2>/dev/null || true
wait "$wpid" || true
pids=""
rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$tmp/time")
size=$(stat -c %s "$tmp/off.db")
awk -v n="$N" -v s="$start" -v e="$end" -v rss="$rss" -v size="$size" 'BEGIN {
	printf "offline      %d records in %.1f s: %.0f records/s; peak RSS %.1f MiB; database %.2f KB/record\n", n, e - s, n / (e - s), rss / 1024, size / n / 1000 }'
tail -n 1 "$tmp/off.err"

echo "watchbench: LLM judge with a warm cache, $WARM records"
"$tmp/slowjudge" -delay 0ms -url-file "$tmp/url" &
jpid=$!
pids="$jpid"
while [ ! -s "$tmp/url" ]; do sleep 0.1; done
url=$(cat "$tmp/url")
gen 0 "$WARM" >"$tmp/warm.jsonl"
OPENAI_API_KEY=bench "$tmp/ragscope" watch --headless --once --base-url "$url" --model m --concurrency 16 --db "$tmp/llm.db" "$tmp/warm.jsonl" 2>"$tmp/warm1.err"
cp "$tmp/warm.jsonl" "$tmp/again.jsonl" # another log: another watcher state, the same calls
/usr/bin/time -v -o "$tmp/time2" env OPENAI_API_KEY=bench "$tmp/ragscope" watch --headless --once --base-url "$url" --model m --concurrency 16 --db "$tmp/llm.db" "$tmp/again.jsonl" 2>"$tmp/warm2.err"
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s}' "$tmp/time2")
rss2=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$tmp/time2")
awk -v n="$WARM" -v w="$wall" -v rss="$rss2" 'BEGIN {
	printf "warm cache   %d records in %.1f s: %.0f records/s; peak RSS %.1f MiB\n", n, w, n / w, rss / 1024 }'
tail -n 1 "$tmp/warm2.err"
# The second run's own calls, from its record: chat and embeddings sent must be 0.
"$tmp/ragscope" report latest --db "$tmp/llm.db" --format json | head -c 4000 | tr -d '\n ' | sed -n 's/.*"calls":\({[^}]*}\).*/second run calls: \1/p' | head -n 1
