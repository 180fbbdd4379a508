#!/bin/sh
# capture.sh renders the demo run in a real terminal (tmux, 100x30) and
# saves the screens the README shows: the run table and the detail page of
# the taxpayer sample, plus the run table drawn with --ascii.
#
#   scripts/capture.sh            writes docs/capture-run.txt,
#                                 docs/capture-detail.txt, docs/capture-run-ascii.txt
#
# It uses the offline judge (OPENAI_* are unset) and a throwaway cache, so
# the captures are the same on every machine and cost nothing.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v tmux >/dev/null 2>&1 || { echo "capture.sh: tmux is not installed" >&2; exit 1; }

work=$(mktemp -d)
sock="ragscope-capture-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM

go build -o "$work/ragscope" ./cmd/ragscope

# wait_for TEXT: poll the screen until TEXT appears (20 s at most).
wait_for() {
	i=0
	while ! tm capture-pane -p -t capture | grep -qF -- "$1"; do
		i=$((i + 1))
		if [ "$i" -gt 400 ]; then
			echo "capture.sh: waited 20 s for \"$1\"; the screen is:" >&2
			tm capture-pane -p -t capture >&2
			exit 1
		fi
		sleep 0.05
	done
}

# start ARGS...: run ragscope ARGS in a fresh 100x30 session.
start() {
	tm kill-server 2>/dev/null || true
	env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u OPENAI_MODEL -u TMUX \
		XDG_CACHE_HOME="$work/cache" HOME="$work" \
		tmux -L "$sock" -f /dev/null new-session -d -s capture -x 100 -y 30 -c "$root" "$work/ragscope" "$@"
}

# Each capture holds the whole screen, trailing blank lines included, so
# the README shows the layout exactly as a 100x30 terminal does.
start testdata/demo.jsonl
wait_for "finished in"
tm capture-pane -p -t capture >docs/capture-run.txt
# Row 0 is the taxpayer sample: the table opens sorted by sample index.
tm send-keys -t capture Enter
wait_for "id zh-taxpayer-id"
tm capture-pane -p -t capture >docs/capture-detail.txt
tm send-keys -t capture q

start --ascii testdata/demo.jsonl
wait_for "finished in"
tm capture-pane -p -t capture >docs/capture-run-ascii.txt
tm send-keys -t capture q

echo "wrote docs/capture-run.txt docs/capture-detail.txt docs/capture-run-ascii.txt"
