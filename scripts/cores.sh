#!/bin/sh
# cores.sh prints how a headless offline run scales with cores: the same
# binary on the same 50,000 tiny samples (those of scale.sh) at each
# GOMAXPROCS given, each run REPEAT times (the median is printed), with
# its evaluation time (the run's own elapsed time, from its last progress
# line), samples per second and the speed-up over the first GOMAXPROCS.
#
#   scripts/cores.sh                      # GOMAXPROCS 1, 2, 4, ... up to nproc
#   scripts/cores.sh 1 2 4 8 16           # the values given
#   N=200000 REPEAT=3 scripts/cores.sh 1 2
#   RAGSCOPE=/path/to/ragscope scripts/cores.sh 1 2   # that binary (before/after)
#
# It needs Go (unless RAGSCOPE is given), awk and sort.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-cores.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${RAGSCOPE:-}" ]; then
	cp "$RAGSCOPE" "$tmp/ragscope"
else
	go build -o "$tmp/ragscope" ./cmd/ragscope
fi
n=${N:-50000}
repeat=${REPEAT:-1}
if [ $# -gt 0 ]; then
	procs=$*
else
	procs=""
	p=1
	max=$(nproc)
	while [ "$p" -lt "$max" ]; do
		procs="$procs $p"
		p=$((p * 2))
	done
	procs="$procs $max"
fi

awk -v n="$n" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "{\"id\":\"s%d\",\"question\":\"What is the fee of plan %d?\",\"answer\":\"Plan %d costs %d yuan a month.\",\"contexts\":[\"Plan %d costs %d yuan a month.\",\"Plans renew on the first day.\"],\"reference\":\"Plan %d costs %d yuan.\"}\n", i, i, i, i % 97, i, i % 97, i, i % 97
}' >"$tmp/data.jsonl"

# seconds converts Go's 1m2.5s, 2.5s or 250ms to seconds.
seconds() {
	echo "$1" | awk '{ s = 0; d = $0
		if (match(d, /[0-9.]+ms$/)) { print substr(d, RSTART, RLENGTH - 2) / 1000; exit }
		if (match(d, /[0-9.]+m/)) { s += substr(d, RSTART, RLENGTH - 1) * 60; d = substr(d, RSTART + RLENGTH) }
		if (match(d, /[0-9.]+s$/)) { s += substr(d, RSTART, RLENGTH - 1) }
		print s }'
}

printf '%-10s %12s %12s %9s  %s\n' GOMAXPROCS evaluation samples/s speed-up "each run (s)"
first=""
for p in $procs; do
	: >"$tmp/times"
	i=0
	while [ "$i" -lt "$repeat" ]; do
		rm -f "$tmp/db" "$tmp/report.json"
		code=0
		GOMAXPROCS=$p "$tmp/ragscope" run --headless --offline --db "$tmp/db" --out "$tmp/report.json" "$tmp/data.jsonl" >/dev/null 2>"$tmp/err" || code=$?
		if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
			echo "cores.sh: GOMAXPROCS=$p exited $code:" >&2
			tail -n 5 "$tmp/err" >&2
			exit 2
		fi
		el=$(awk '/ elapsed / { for (i = 1; i < NF; i++) if ($i == "elapsed") e = $(i + 1) } END { print e }' "$tmp/err")
		seconds "$el" >>"$tmp/times"
		i=$((i + 1))
	done
	med=$(sort -n "$tmp/times" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	[ -n "$first" ] || first=$med
	printf '%-10s %11.2fs %12.0f %8.2fx  %s\n' "$p" "$med" "$(awk -v n="$n" -v t="$med" 'BEGIN { print n / t }')" \
		"$(awk -v a="$first" -v b="$med" 'BEGIN { print a / b }')" "$(tr '\n' ' ' <"$tmp/times")"
done
