#!/bin/sh
# scale.sh measures ragscope at scale with the offline judge: for each
# sample count it generates a dataset of tiny samples, runs it headless and
# writes its report as JSON and CSV, and prints the wall time and the peak
# resident set size (GNU time's "Maximum resident set size") of each, with
# the database bytes per sample. The row "evaluation" is the run's own
# elapsed time, from its last progress line (the samples evaluated and
# stored, before the report is written), with the run's wall time over it:
# what writing the report after the run adds. Nothing is left running; the
# data goes to a temporary directory that is removed at the end.
#
#   scripts/scale.sh                  # 10k, 100k and 1M samples (about 10 minutes on 2 cores)
#   scripts/scale.sh 50000            # the counts given
#   SCALE_MAX_RSS_MIB=150 scripts/scale.sh 50000   # exit 1 when a peak is above the bound
#   RAGSCOPE=/path/to/ragscope scripts/scale.sh 200000   # that binary (before/after)
#
# It needs Go, awk and GNU time at /usr/bin/time.
set -eu
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "scale.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${RAGSCOPE:-}" ]; then
	cp "$RAGSCOPE" "$tmp/ragscope"
else
	go build -o "$tmp/ragscope" ./cmd/ragscope
fi
counts=${*:-10000 100000 1000000}
bound=${SCALE_MAX_RSS_MIB:-}
status=0

# gen N writes N tiny samples (four metrics each, two chunks, a reference).
gen() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "{\"id\":\"s%d\",\"question\":\"What is the fee of plan %d?\",\"answer\":\"Plan %d costs %d yuan a month.\",\"contexts\":[\"Plan %d costs %d yuan a month.\",\"Plans renew on the first day.\"],\"reference\":\"Plan %d costs %d yuan.\"}\n", i, i, i, i % 97, i, i % 97, i, i % 97
	}'
}

# measure LABEL CMD... runs CMD under GNU time and prints one row.
measure() {
	label=$1
	shift
	code=0
	/usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || code=$?
	if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
		echo "scale.sh: $label exited $code:" >&2
		tail -n 5 "$tmp/err" >&2
		status=2
		return
	fi
	rss=$(awk -F: '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp/time")
	wall=$(awk '/Elapsed \(wall clock\)/ { print $NF }' "$tmp/time")
	verdict=""
	if [ -n "$bound" ]; then
		if [ "$rss" -gt "$bound" ]; then verdict="OVER $bound MiB"; status=1; else verdict="ok (bound $bound MiB)"; fi
	fi
	printf '%-9s %-16s %10s %8s MiB  %s\n' "$n" "$label" "$wall" "$rss" "$verdict"
}

# seconds D converts GNU time's [h:]m:ss.ss or Go's 1m2.5s, 2.5s, 250ms to seconds.
seconds() {
	echo "$1" | awk '
		/:/ { n = split($0, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s; exit }
		{ s = 0; d = $0
		  if (match(d, /[0-9.]+h/)) { s += substr(d, RSTART, RLENGTH - 1) * 3600; d = substr(d, RSTART + RLENGTH) }
		  if (match(d, /[0-9.]+ms$/)) { s += substr(d, RSTART, RLENGTH - 2) / 1000; d = "" }
		  if (match(d, /[0-9.]+m/)) { s += substr(d, RSTART, RLENGTH - 1) * 60; d = substr(d, RSTART + RLENGTH) }
		  if (match(d, /[0-9.]+s$/)) { s += substr(d, RSTART, RLENGTH - 1) }
		  print s }'
}

# evaluation prints the run's elapsed time from its last progress line,
# and the run's wall time (of the row before) over it.
evaluation() {
	[ -n "${wall:-}" ] || return 0
	el=$(awk '/ elapsed / { for (i = 1; i < NF; i++) if ($i == "elapsed") e = $(i + 1) } END { print e }' "$tmp/err")
	[ -n "$el" ] || return 0
	ev=$(seconds "$el")
	total=$(seconds "$wall")
	printf '%-9s %-16s %10s %12s  wall/evaluation %s\n' "$n" "evaluation" "${ev}s" "-" "$(awk -v t="$total" -v e="$ev" 'BEGIN { printf "%.2f", t / e }')"
}

printf '%-9s %-16s %10s %12s\n' samples work wall "peak RSS"
for n in $counts; do
	gen "$n" >"$tmp/data.jsonl"
	rm -f "$tmp/db"
	wall=""
	measure "run --headless" "$tmp/ragscope" run --headless --offline --db "$tmp/db" --out "$tmp/report.json" "$tmp/data.jsonl"
	evaluation
	measure "report json" "$tmp/ragscope" report latest --db "$tmp/db" --format json --out "$tmp/report2.json"
	measure "report csv" "$tmp/ragscope" report latest --db "$tmp/db" --format csv --out "$tmp/report.csv"
	dbb=$(wc -c <"$tmp/db")
	printf '%-9s %-16s %10s %8s B/sample (database %s MB)\n' "$n" "db size" "-" "$((dbb / n))" "$((dbb / 1000000))"
	rm -f "$tmp/report.json" "$tmp/report2.json" "$tmp/report.csv"
done
exit $status
