#!/bin/sh
# sshbytes.sh measures what a live run costs a slow link: the bytes per
# second ragscope writes to its terminal while a run streams in, in tmux at
# 120x40 (what an SSH session carries), against the bar of 15 KB/s.
#
#   scripts/sshbytes.sh            # 2000 samples, about 20 s
#   scripts/sshbytes.sh 500        # N samples
#   SSHBYTES_KEYS='s s' scripts/sshbytes.sh   # the same, sorted by answer
#                                  # relevancy as the run starts (tmux key names)
#
#   SSHBYTES_ARGS='--metrics all' scripts/sshbytes.sh   # more flags for ragscope run
#
# The judge is eval/fakejudge served on loopback by scripts/slowjudge with
# a delay per answer (SSHBYTES_DELAY, default 25ms; SSHBYTES_CONCURRENCY,
# default 16), so the run lasts as a real one does; the offline judge would
# finish in a second (SSHBYTES_OFFLINE=1 uses it all the same, to see
# the cost of a run that pours in as fast as it can). The terminal's output is captured with
# `tmux pipe-pane -o`; when strace is installed the write(2) calls to the
# terminal are counted too (writes/s is then the frame rate the link sees).
#
# Prints bytes/s, writes/s and the ratio to the bar; exits 1 over the bar,
# 2 when the run could not be measured. It leaves nothing running: its tmux
# server has its own -L socket and is killed on exit, as is the judge.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
n=${1:-2000}
delay=${SSHBYTES_DELAY:-25ms}
conc=${SSHBYTES_CONCURRENCY:-16}
bar=15000 # bytes per second, on average over the run
for tool in go tmux; do
	command -v "$tool" >/dev/null 2>&1 || { echo "sshbytes.sh: $tool is not on PATH" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-sshbytes.XXXXXX") || exit 2
sock="ragscope-sshbytes-$$"
judge_pid=""
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	if [ -n "$judge_pid" ]; then
		kill "$judge_pid" 2>/dev/null
		wait "$judge_pid" 2>/dev/null
	fi
	if [ -n "${SSHBYTES_KEEP:-}" ]; then cp "$work/out.bin" "$SSHBYTES_KEEP"; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

go build -o "$work/ragscope" ./cmd/ragscope || exit 2
go build -o "$work/slowjudge" ./scripts/slowjudge || exit 2
"$work/slowjudge" -dataset "$n" >"$work/samples.jsonl" || exit 2

"$work/slowjudge" -delay "$delay" -url-file "$work/url" &
judge_pid=$!
i=0
while [ ! -s "$work/url" ]; do
	i=$((i + 1))
	[ "$i" -gt 200 ] && { echo "sshbytes.sh: the judge did not start" >&2; exit 2; }
	sleep 0.05
done
url=$(cat "$work/url")

# strace, when present, counts the terminal writes. --seccomp-bpf stops
# the program only on the traced call, so tracing barely slows it.
trace=""
if command -v strace >/dev/null 2>&1 && strace --seccomp-bpf -f -qq -e trace=write -o /dev/null true 2>/dev/null; then
	trace="strace --seccomp-bpf -f -qq -e trace=write -e signal=none -o $work/strace.out"
fi

# The pane waits on a tmux channel before starting ragscope, so pipe-pane
# is attached before the first byte is drawn.
judge="--base-url $url"
[ -n "${SSHBYTES_OFFLINE:-}" ] && judge="--offline"
cmd="tmux -L $sock wait-for go; exec $trace $work/ragscope run $judge --no-cache \
--db $work/r.db --concurrency $conc ${SSHBYTES_ARGS:-} $work/samples.jsonl"
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u OPENAI_MODEL -u TMUX -u RAGSCOPE_CONFIG \
	OPENAI_API_KEY=sshbytes TERM=xterm-256color XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config" HOME="$work" \
	tmux -L "$sock" -f /dev/null new-session -d -s live -x 120 -y 40 -c "$root" "$cmd" || exit 2
tm pipe-pane -o -t live "cat >> $work/out.bin" || exit 2
: >"$work/out.bin"
start=$(date +%s.%N)
tm wait-for -S go
if [ -n "${SSHBYTES_KEYS:-}" ]; then
	i=0
	until tm capture-pane -p -t live 2>/dev/null | grep -q "samples"; do
		i=$((i + 1))
		[ "$i" -gt 400 ] && { echo "sshbytes.sh: the interface did not start" >&2; exit 2; }
		sleep 0.05
	done
	# shellcheck disable=SC2086 # one tmux key name per word
	tm send-keys -t live $SSHBYTES_KEYS
fi

# The run is over when the header says so (polled, at most 10 minutes).
i=0
while ! tm capture-pane -p -t live 2>/dev/null | grep -q "finished in"; do
	i=$((i + 1))
	if [ "$i" -gt 3000 ]; then
		echo "sshbytes.sh: the run did not finish in 10 minutes; the screen:" >&2
		tm capture-pane -p -t live >&2
		exit 2
	fi
	sleep 0.2
done
end=$(date +%s.%N)
bytes=$(wc -c <"$work/out.bin")
tm send-keys -t live q
# Let the program restore the terminal before the server goes.
i=0
while tm has-session -t live 2>/dev/null && [ "$i" -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done

writes="-"
if [ -n "$trace" ] && [ -s "$work/strace.out" ]; then
	# Bubble Tea writes frames to standard output; fd 1 is the pane.
	writes=$(grep -c 'write(1,' "$work/strace.out")
fi
awk -v b="$bytes" -v s="$start" -v e="$end" -v w="$writes" -v bar="$bar" -v n="$n" '
BEGIN {
	d = e - s
	rate = b / d
	printf "samples %d  duration %.1f s  bytes %d\n", n, d, b
	printf "bytes/s %.0f (%.1f KB/s)\n", rate, rate / 1000
	if (w != "-") printf "writes/s %.1f (%d writes)\n", w / d, w
	else print "writes/s - (strace not installed)"
	printf "ratio to the %.0f KB/s bar %.2f: %s\n", bar / 1000, rate / bar, rate <= bar ? "within" : "OVER"
	exit rate <= bar ? 0 : 1
}'
