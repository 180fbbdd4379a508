#!/bin/sh
# hugereply.sh measures the peak resident memory of the real binary while a
# judge endpoint answers every chat call with a generated 1 GiB body (no
# Content-Length), the fault of issue "reply bodies are bounded". It needs
# Go, python3 and GNU time (/usr/bin/time). It prints the exit status and
# the maximum resident set size; nothing is left running.
#
#   scripts/hugereply.sh            # 1 GiB per reply, 2 concurrent calls
set -eu
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "hugereply.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-huge.XXXXXX")
trap 'kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/ragscope" ./cmd/ragscope
cat >"$tmp/server.py" <<'PY'
import http.server, socketserver, sys
CHUNK = b"x" * (1 << 20)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self.wfile.write(b"2\r\n{\"\r\n")
            for _ in range(1024):  # 1 GiB
                self.wfile.write(b"%x\r\n" % len(CHUNK) + CHUNK + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$tmp/server.py" >"$tmp/port" &
srv=$!
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
port=$(cat "$tmp/port")
set +e
/usr/bin/time -v "$tmp/ragscope" run --headless --db "$tmp/r.db" --base-url "http://127.0.0.1:$port/v1" --api-key sk-huge-reply-test \
	--metrics faithfulness --concurrency 2 --max-retries 0 testdata/demo.jsonl >"$tmp/report.json" 2>"$tmp/err"
code=$?
set -e
rss=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$tmp/err")
echo "exit status $code; peak RSS $rss KiB ($(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB) with every reply a 1 GiB body"
grep -m1 -o 'reply[^;]*--max-reply-bytes[^)]*' "$tmp/err" || grep -m3 'ragscope:' "$tmp/err"
