#!/bin/sh
# bigrecord.sh measures the memory one big dataset record takes with the
# offline judge: it builds ragscope, writes a record of MIB MiB (15 by
# default, under the 16 MiB default of --max-record-bytes) with
# scripts/bigrecord in each shape (the bulk in one chunk, in 64 KiB chunks,
# in the answer), then a file of four such records (two of each of the
# first and last shape), and runs `ragscope run --headless --offline` on
# each with a fresh run store under GNU time (/usr/bin/time -v). It prints
# the peak resident set (max RSS) and its ratio to the file's size. The
# data and the stores go to a temporary directory removed at the end.
#
#   scripts/bigrecord.sh
#   MIB=4 scripts/bigrecord.sh
#   RAGSCOPE=/path/to/ragscope scripts/bigrecord.sh   # measure that binary (before/after)
#
# It needs Go, a POSIX shell and GNU time at /usr/bin/time. The max RSS
# counts the pages of the run store's file that the process mapped (the
# report read back at the end), as well as the Go heap.
set -eu
cd "$(dirname "$0")/.."
mib=${MIB:-15}
if [ ! -x /usr/bin/time ]; then
	echo "bigrecord.sh: needs GNU time at /usr/bin/time" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-bigrecord.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bin=${RAGSCOPE:-}
if [ -z "$bin" ]; then
	go build -o "$tmp/ragscope" ./cmd/ragscope
	bin=$tmp/ragscope
fi
go build -o "$tmp/bigrecord" ./scripts/bigrecord
for shape in context chunks answer; do
	"$tmp/bigrecord" -mib "$mib" -shape "$shape" >"$tmp/$shape.jsonl"
done
# Four records, each its own text (a doubled space), so that no cache
# serves one from another.
{
	cat "$tmp/context.jsonl"
	sed 's/"id":"big"/"id":"big2"/; s/ /  /' "$tmp/answer.jsonl"
	sed 's/"id":"big"/"id":"big3"/; s/ /   /' "$tmp/context.jsonl"
	sed 's/"id":"big"/"id":"big4"/; s/ /    /' "$tmp/answer.jsonl"
} >"$tmp/four.jsonl"
load=$(uptime | sed 's/.*load average[s]*: *//' | awk '{ sub(/,$/, "", $1); print $1 }')
echo "ragscope run --headless --offline, one record of about $mib MiB per shape (load $load)"
printf '%-8s %10s %10s %8s %8s\n' shape "file MiB" "maxRSS MiB" "x size" "wall s"
for shape in context chunks answer four; do
	rm -f "$tmp/db"
	code=0
	/usr/bin/time -v -o "$tmp/time" "$bin" run --headless --offline --max-record-bytes 16MiB --db "$tmp/db" --out /dev/null "$tmp/$shape.jsonl" >/dev/null 2>"$tmp/err" || code=$?
	# 3: a sample below a threshold or a status of the data; anything else failed.
	if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
		echo "bigrecord.sh: ragscope run exited $code on $shape:" >&2
		tail -n 5 "$tmp/err" >&2
		exit 2
	fi
	size=$(wc -c <"$tmp/$shape.jsonl")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tmp/time")
	awk -v s="$shape" -v size="$size" -v rss="$rss" -v wall="$wall" 'BEGIN {
		n = split(wall, p, ":"); secs = 0
		for (i = 1; i <= n; i++) secs = secs * 60 + p[i]
		printf "%-8s %10.1f %10.0f %8.0f %8.1f\n", s, size / 1048576, rss / 1024, rss * 1024 / size, secs
	}'
done
