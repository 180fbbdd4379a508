#!/bin/sh
# offlinecli.sh measures the offline judge's throughput through the CLI:
# it builds ragscope, writes N demo-sized samples (scripts/democopies: the
# demo set cycled, each copy's texts tagged so no cache serves it), and
# times `ragscope run --headless --offline` with the default metrics and a
# fresh run store, RUNS times. It prints each run's wall time and
# samples/s, and the best. The data and the store go to a temporary
# directory that is removed at the end.
#
#   scripts/offlinecli.sh              # 10,000 demo-sized samples, 3 runs
#   KIND=tiny scripts/offlinecli.sh    # scale.sh's one-line samples instead
#   N=50000 RUNS=1 scripts/offlinecli.sh
#   RAGSCOPE=/path/to/ragscope scripts/offlinecli.sh   # time that binary (before/after)
#
# It needs Go and a POSIX shell; the figures are wall-clock times on a
# shared machine, so the 1-minute load average is printed with them, and,
# where GNU time is at /usr/bin/time, the CPU seconds the run used (user +
# system), which a loaded machine disturbs less than the wall time.
set -eu
cd "$(dirname "$0")/.."
n=${N:-10000}
runs=${RUNS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-offlinecli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
kind=${KIND:-demo}
bin=${RAGSCOPE:-}
if [ -z "$bin" ]; then
	go build -o "$tmp/ragscope" ./cmd/ragscope
	bin=$tmp/ragscope
fi
case $kind in
demo) go run ./scripts/democopies -n "$n" >"$tmp/data.jsonl" ;;
tiny)
	# scale.sh's samples: a one-sentence answer, two chunks, a reference.
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "{\"id\":\"s%d\",\"question\":\"What is the fee of plan %d?\",\"answer\":\"Plan %d costs %d yuan a month.\",\"contexts\":[\"Plan %d costs %d yuan a month.\",\"Plans renew on the first day.\"],\"reference\":\"Plan %d costs %d yuan.\"}\n", i, i, i, i % 97, i, i % 97, i, i % 97
	}' >"$tmp/data.jsonl"
	;;
*) echo "offlinecli.sh: KIND is demo or tiny, not $kind" >&2; exit 2 ;;
esac
best=""
i=1
while [ "$i" -le "$runs" ]; do
	rm -f "$tmp/db"
	load=$(uptime | sed 's/.*load average[s]*: *//' | awk '{ sub(/,$/, "", $1); print $1 }')
	t0=$(date +%s.%N)
	code=0
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$bin" run --headless --offline --db "$tmp/db" --out "$tmp/report.json" "$tmp/data.jsonl" >/dev/null 2>"$tmp/err" || code=$?
	else
		"$bin" run --headless --offline --db "$tmp/db" --out "$tmp/report.json" "$tmp/data.jsonl" >/dev/null 2>"$tmp/err" || code=$?
	fi
	t1=$(date +%s.%N)
	# 3: the run finished with samples below a threshold or with statuses
	# that are properties of the data (no_statements); anything else failed.
	if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
		echo "offlinecli.sh: ragscope run exited $code:" >&2
		tail -n 5 "$tmp/err" >&2
		exit 2
	fi
	rate=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.0f", n / (b - a) }')
	cpu=""
	if [ -s "$tmp/cpu" ]; then
		cpu=$(awk '{ printf ", %.2f CPU s", $1 + $2 }' "$tmp/cpu")
	fi
	awk -v a="$t0" -v b="$t1" -v n="$n" -v r="$rate" -v i="$i" -v l="$load" -v c="$cpu" \
		'BEGIN { printf "run %d: %d samples in %.2f s: %d samples/s%s (load %s)\n", i, n, b - a, r, c, l }'
	if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
	i=$((i + 1))
done
echo "best: $best samples/s (offline judge, default metrics, $n $kind samples, through the CLI with its run store)"
