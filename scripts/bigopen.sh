#!/bin/bash
# bigopen.sh measures `ragscope open` on a large stored run: it builds the
# binary, generates N tiny samples, evaluates them headless with the offline
# judge into a temporary database, then opens the run in tmux at 120x40 and
# prints the seconds until the table shows and until every row is in, the
# peak RSS of the TUI process (VmHWM), and the key -> changed screen latency
# over about 50 key presses (j, G, s, g in turn; median and p95), measured
# end to end through tmux by polling capture-pane.
#
#   scripts/bigopen.sh                 # 1,000,000 samples (the headless run takes ~5 minutes)
#   N=100000 scripts/bigopen.sh        # a quick check
#   KEYS=100 scripts/bigopen.sh        # more key presses
#   DB=/path/db N=100000 scripts/bigopen.sh   # open a database made before (N: its size),
#                                             # e.g. by scripts/manyruns -runs 1 -samples N
#
# Nothing is left running: the TUI runs on a tmux server of its own
# (-L socket), killed with the temporary directory on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "bigopen.sh: needs tmux" >&2; exit 2; }
n=${N:-1000000}
keys=${KEYS:-50}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-bigopen.XXXXXX")
sock="ragscope-bigopen-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/ragscope" ./cmd/ragscope

db=${DB:-}
if [ -z "$db" ]; then
db="$tmp/db"
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":\"s%d\",\"question\":\"What is the fee of plan %d?\",\"answer\":\"Plan %d costs %d yuan a month.\",\"contexts\":[\"Plan %d costs %d yuan a month.\",\"Plans renew on the first day.\"],\"reference\":\"Plan %d costs %d yuan.\"}\n", i, i, i, i % 97, i, i % 97, i, i % 97 }' >"$tmp/data.jsonl"
t0=$(date +%s.%N)
code=0
"$tmp/ragscope" run --headless --offline --db "$db" --out "$tmp/report.json" "$tmp/data.jsonl" >/dev/null 2>"$tmp/run.err" || code=$?
if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
	echo "bigopen.sh: the headless run exited $code:" >&2
	tail -n 5 "$tmp/run.err" >&2
	exit 2
fi
printf 'samples %d: headless run %.1f s, database %d MB\n' "$n" "$(echo "$(date +%s.%N) - $t0" | bc)" "$(($(wc -c <"$db") / 1000000))"
rm -f "$tmp/data.jsonl" "$tmp/report.json"
fi

cap() { tmux -L "$sock" capture-pane -p -t bigopen; }
now() { date +%s%N; }
t0=$(now)
tmux -L "$sock" new-session -d -s bigopen -x 120 -y 40 "exec '$tmp/ragscope' open latest --db '$db'"
pid=$(tmux -L "$sock" display -p -t bigopen '#{pane_pid}')
# The table shows when its column titles and the first row are drawn.
until cap | grep -q ' 0 What is the '; do
	if [ $(($(now) - t0)) -gt 60000000000 ]; then echo "bigopen.sh: no table after 60 s:" >&2; cap >&2; exit 1; fi
	sleep 0.01
done
t_table=$(( ($(now) - t0) / 1000000 ))
until ! cap | grep -q 'reading the run'; do
	if [ $(($(now) - t0)) -gt 300000000000 ]; then echo "bigopen.sh: still reading after 300 s" >&2; exit 1; fi
	sleep 0.05
done
t_full=$(( ($(now) - t0) / 1000000 ))
printf 'open: table on screen after %d ms, all %d rows in after %d ms\n' "$t_table" "$n" "$t_full"

# Key -> frame: send a key, poll until the screen differs from before it.
seq=(j G s g)
lat=()
timeouts=0
for ((i = 0; i < keys; i++)); do
	k=${seq[i % ${#seq[@]}]}
	before=$(cap)
	s=$(now)
	tmux -L "$sock" send-keys -t bigopen "$k"
	while :; do
		after=$(cap)
		[ "$after" != "$before" ] && break
		if [ $(($(now) - s)) -gt 2000000000 ]; then timeouts=$((timeouts + 1)); after=; break; fi
	done
	[ -n "$after" ] && lat+=($(( ($(now) - s) / 1000 )))
done
hwm=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
printf '%s\n' "${lat[@]}" | sort -n >"$tmp/lat"
cnt=$(wc -l <"$tmp/lat")
med=$(sed -n "$(( (cnt + 1) / 2 ))p" "$tmp/lat")
p95=$(sed -n "$(( (cnt * 95 + 99) / 100 ))p" "$tmp/lat")
printf 'keys: %d presses (%d without a change in 2 s), key -> frame median %.1f ms, p95 %.1f ms\n' "$cnt" "$timeouts" "$(echo "$med / 1000" | bc -l)" "$(echo "$p95 / 1000" | bc -l)"
printf 'memory: TUI peak RSS (VmHWM) %d MiB, RSS now %d MiB\n' "$hwm" "$rss"
tmux -L "$sock" send-keys -t bigopen q
