#!/bin/sh
# bench.sh runs the benchmarks that carry ragscope's acceptance figures and
# prints each figure next to its bar. It needs only Go and a POSIX shell.
#
#   scripts/bench.sh            # all of them (about three minutes on 2 cores)
#   scripts/bench.sh offline    # only the rows whose key matches (grep -E)
#
# Keys: concurrency, offline, offline-store, rerun, tui, dataset, holder,
# headless, cores.
# Set BENCH_KEEP=DIR to keep each benchmark's raw `go test` output in DIR.
# Exit status: 0 when every figure is within its bar, 1 when one is not,
# 2 when a benchmark failed to build or run.
#
# The figures are wall-clock times on a shared machine: the 1-minute load
# average when each benchmark started is printed with it. Never run these
# under -race; they time the product, not the race detector.
set -u

cd "$(dirname "$0")/.." || exit 2
command -v go >/dev/null 2>&1 || { echo "bench.sh: go is not on PATH" >&2; exit 2; }

only=${1:-.}
if [ -n "${BENCH_KEEP:-}" ]; then
	logdir=$BENCH_KEEP
	mkdir -p "$logdir" || exit 2
else
	logdir=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-bench.XXXXXX") || exit 2
	trap 'rm -rf "$logdir"' EXIT
fi

status=0
rows=""

# load1 prints the 1-minute load average (Linux and BSD/macOS uptime formats).
load1() {
	uptime | sed 's/.*load average[s]*: *//' | awk '{ sub(/,$/, "", $1); print $1 }'
}

# bench KEY PKG REGEX BENCHTIME [FLAG...] runs one benchmark into $logdir/KEY.out.
# It returns non-zero (and records a FAILED row) when go test fails.
bench() {
	key=$1 pkg=$2 re=$3 bt=$4
	shift 4
	load=$(load1)
	printf 'running %-14s (%s, load %s)...\n' "$key" "$pkg" "$load" >&2
	if ! go test -run '^$' -bench "$re" -benchtime "$bt" -timeout 20m "$@" "$pkg" >"$logdir/$key.out" 2>&1; then
		echo "bench.sh: $key: go test failed; its last lines:" >&2
		tail -n 15 "$logdir/$key.out" >&2
		row "$key" "FAILED" "-" "-" "-" "$load" "see the output above"
		status=2
		return 1
	fi
	return 0
}

# metric KEY UNIT [SUB] prints the value reported with UNIT by the first
# result line of KEY's output whose name contains SUB; "max"/"min" as SUB
# take the largest or smallest over all result lines.
metric() {
	awk -v unit="$2" -v sub_="${3:-}" '
		/^Benchmark/ {
			for (i = 3; i <= NF; i++) if ($i == unit) {
				v = $(i - 1) + 0
				if (sub_ == "max") { if (!n++ || v > best) best = v; next }
				if (sub_ == "min") { if (!n++ || v < best) best = v; next }
				if ((sub_ == "" || index($1, sub_)) && !n++) best = v
			}
		}
		END { if (n) printf "%.6g\n", best }' "$logdir/$1.out"
}

# row KEY FIGURE BAR RATIO VERDICT LOAD NOTE appends a line to the table.
row() {
	rows="$rows$(printf '%-14s|%-12s|%-8s|%-12s|%-4s|%-5s|%s' "$1" "$2" "$3" "$4" "$5" "$6" "$7")
"
}

# judge KEY VALUE BAR UNIT LOAD NOTE: a figure that must stay at or below BAR.
judge() {
	key=$1 v=$2 bar=$3 unit=$4 load=$5 note=$6
	if [ -z "$v" ]; then
		row "$key" "no figure" "$bar $unit" "-" "-" "$load" "the benchmark printed no $unit figure; see $logdir/$key.out"
		status=2
		return
	fi
	ratio=$(awk -v v="$v" -v b="$bar" 'BEGIN { printf "%.2f", v / b }')
	verdict=$(awk -v v="$v" -v b="$bar" 'BEGIN { print (v <= b ? "ok" : "OVER") }')
	[ "$verdict" = ok ] || { [ "$status" -eq 0 ] && status=1; }
	fig=$(awk -v v="$v" 'BEGIN { printf (v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.3g"), v }')
	row "$key" "$fig $unit" "$bar $unit" "$ratio of bar" "$verdict" "$load" "$note"
}

want() { echo "$1" | grep -Eq -- "$only"; }

# The runner keeps every request slot of the endpoint busy: a run against a
# fake judge with a fixed delay takes at most 1.10 x calls x delay / C.
if want concurrency; then
	l=$(load1)
	if bench concurrency ./eval/llm '^BenchmarkRunnerConcurrency$' 1x; then
		judge concurrency "$(metric concurrency x-ideal max)" 1.10 x-ideal "$l" \
			"worst of C=4,16 x 20,50 ms delay; $(metric concurrency calls/sample) calls/sample"
	fi
fi

# The offline judge: 10,000 demo-sized samples, all four metrics, < 10 s.
if want offline || want offline-store; then
	l=$(load1)
	if bench offline ./eval/offline '^BenchmarkOfflineRun10k$' 1x; then
		judge offline "$(metric offline s/10k /memory)" 10 s "$l" \
			"$(metric offline samples/s /memory) samples/s, the CLI's workers, results in memory"
		judge offline-store "$(metric offline s/10k /store)" 10 s "$l" \
			"$(metric offline samples/s /store) samples/s, every result stored in the run store (as the CLI does)"
	fi
fi

# A fully cached re-run of 10,000 samples with all four metrics, < 5 s.
if want rerun; then
	l=$(load1)
	if bench rerun ./cache '^BenchmarkCachedRerun10kRunner$' 1x; then
		judge rerun "$(metric rerun s/10k)" 5 s "$l" \
			"$(metric rerun samples/s) samples/s, LLM judge + cache + run store, 32 workers, 0 requests sent"
	fi
fi

# The TUI with 100,000 rows: median key press to rendered frame < 16 ms.
if want tui; then
	l=$(load1)
	if bench tui ./tui '^BenchmarkKeyToFrame100k$' 300x; then
		med=$(metric tui median-ns/key-frame)
		judge tui "$(awk -v v="$med" 'BEGIN { if (v != "") printf "%.3g", v / 1e6 }')" 16 ms "$l" \
			"median of 300 keys (j, G, s); p95 $(awk -v v="$(metric tui p95-ns/key-frame)" 'BEGIN { printf "%.3g", v / 1e6 }') ms; heap $(metric tui heap-MiB) MiB"
	fi
fi

# Dataset loading has no numeric bar ("a 50 MB file loads in a few
# seconds"); the row gives the time a 50 MB file would take at this rate.
if want dataset; then
	l=$(load1)
	if bench dataset ./eval/dataset '^BenchmarkLoadJSONL$' 5x; then
		mbs=$(metric dataset MB/s)
		s50=$(awk -v v="$mbs" 'BEGIN { if (v > 0) printf "%.2f", 50 / v }')
		row dataset "$s50 s/50MB" "none" "-" "-" "$l" \
			"$(metric dataset samples/s) samples/s, $mbs MB/s (JSONL, ~1 KB samples)"
	fi
fi

# Twenty clients watching a run live cost it at most a few percent: a run
# through the holder's socket, with 0 and with 20 watcher processes (best of
# three each), against a 200 ms judge; the 20 ms row is a stress test of
# about 120 results a second, each sent on to every watcher (no bar).
if want holder; then
	l=$(load1)
	if bench holder ./internal/app '^BenchmarkSharedRunWithReaders$' 1x; then
		for d in 200ms 20ms; do
			ratio=$(metric holder ratio "judge=$d")
			harm=$(awk -v r="$ratio" 'BEGIN { if (r != "") printf "%.1f", 100 * (1 - r) }')
			note="$(metric holder samples/s-0-readers "judge=$d") samples/s alone, $(metric holder samples/s-20-readers "judge=$d") with 20 watchers (ratio $ratio); judge $d"
			if [ "$d" = 200ms ]; then
				judge holder "$harm" 5 % "$l" "$note"
			else
				row holder-stress "$harm %" "none" "-" "-" "$l" "$note"
			fi
		done
	fi
fi

# A headless run's report is written as its results are stored: the run's
# wall time is its evaluation plus a constant (bar 1.10 of it at 200,000
# samples; here 20,000 tiny samples, where the constant weighs more), at
# GOMAXPROCS 1 and 2; the cores row is the speed-up from 1 to 2 (no bar;
# scripts/cores.sh prints the table for more cores).
if want headless || want cores; then
	l=$(load1)
	export BENCH_SAMPLES=20000
	if bench headless ./internal/app '^BenchmarkHeadlessOffline$' 1x -cpu 1,2; then
		judge headless "$(metric headless wall/eval max)" 1.10 x-eval "$l" \
			"worst of GOMAXPROCS 1, 2; 20,000 tiny samples, offline judge, JSON report to a file"
		one=$(awk '/^BenchmarkHeadlessOffline / { for (i = 3; i <= NF; i++) if ($i == "eval-s/run") print $(i - 1) }' "$logdir/headless.out")
		two=$(awk '/^BenchmarkHeadlessOffline-2 / { for (i = 3; i <= NF; i++) if ($i == "eval-s/run") print $(i - 1) }' "$logdir/headless.out")
		row cores "$(awk -v a="$one" -v b="$two" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b }')" "none" "-" "-" "$l" \
			"evaluation $one s at GOMAXPROCS 1, $two s at 2 (20,000 tiny samples)"
	fi
fi

echo
echo "ragscope benchmarks: $(go version | awk '{ print $3, $4 }'), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC')"
{
	echo "benchmark|figure|bar|ratio|ok?|load|notes"
	printf '%s' "$rows"
} | awk -F'|' '
	{ for (i = 1; i <= NF; i++) { gsub(/^ +| +$/, "", $i); cell[NR, i] = $i; if (length($i) > w[i] && i < NF) w[i] = length($i) } n = NF; r = NR }
	END {
		for (k = 1; k <= r; k++) {
			line = ""
			for (i = 1; i <= n; i++) line = line sprintf(i < n ? "%-" w[i] "s  " : "%s", cell[k, i])
			print line
		}
	}'
if [ -n "${BENCH_KEEP:-}" ]; then
	echo "raw output: $logdir"
fi
exit "$status"
