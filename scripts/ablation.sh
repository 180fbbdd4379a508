#!/bin/sh
# ablation.sh measures what each check of the offline judge's support test
# earns: it builds ragscope and the calibration tests with the `ablation`
# tag (eval/offline/ablation.go), then, for the judge as it is and for each
# check turned off in turn (RAGSCOPE_OFFLINE_OFF), runs `ragscope calibrate`
# and the enterprise diagnosis measure, and prints one row each: HaluEval
# given, framed (held out) and declarative (read), the lowest RGB and
# WikiEval row, FaithBench balanced accuracy, the held-out enterprise rows'
# mean and how many rose or fell, and the diagnoses of the held-out sets
# that agree with a reviewer's. A check stays only if turning it off lowers
# a held-out figure. About a minute a row on two cores.
#
#   scripts/ablation.sh                        # every check
#   CHECKS="roles shares" scripts/ablation.sh  # some
#   DATASETS=/path/to/datasets scripts/ablation.sh
set -eu
cd "$(dirname "$0")/.."
datasets=${DATASETS:-../shared/datasets}
checks=${CHECKS:-"comparison same lists bounds other-rows roles han-roles shares bare-name restatement bridged coordinated nested"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ragscope-ablation.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -tags ablation -o "$tmp/ragscope" ./cmd/ragscope
go test -tags ablation -c -o "$tmp/calibrate.test" ./tools/calibrate
dir=$PWD/tools/calibrate

# figures NAME: one line of the figures with the checks in RAGSCOPE_OFFLINE_OFF off.
figures() {
	"$tmp/ragscope" calibrate --datasets "$datasets" >"$tmp/$1.cal" 2>&1 &
	(cd "$dir" && "$tmp/calibrate.test" -test.run 'TestEnterpriseDiagnosisAgreement$' -test.v >"$tmp/$1.diag" 2>&1 || true)
	wait
	awk -F'|' -v name="$1" '
		FNR == 1 { file++ }
		file == 1 && /^\| offline \(lexical\) \| / {
			set = $3; gsub(/ /, "", set); cons = $4; gsub(/ /, "", cons); role = $5; gsub(/^ +| +$/, "", role)
			if (set == "faithbench") { fb = $7 + 0; next }
			acc = $7 + 0
			if (set == "halueval/qa_one-turn") halu[cons] = acc
			else if (set ~ /^rgb|^wikieval/) { if (low == "" || acc < low) low = acc }
			else if (role == "held out") { n++; sum += acc; row[set] = acc }
		}
		file == 2 && /held out\): the diagnosis agrees/ { match($0, /on [0-9]+ of/); diag += substr($0, RSTART + 3, RLENGTH - 6) }
		END {
			printf "%s %.3f %.3f %.3f %.3f %.3f %.4f %d", name, halu["given"], halu["framed"], halu["declarative"], low, fb, sum / n, diag
			for (s in row) printf " %s=%s", s, row[s]
			printf "\n"
		}' "$tmp/$1.cal" "$tmp/$1.diag"
}

RAGSCOPE_OFFLINE_OFF= figures all-on >"$tmp/base"
for c in $checks; do
	RAGSCOPE_OFFLINE_OFF=$c figures "$c" >>"$tmp/rows"
done
printf '| off | HaluEval given | framed | declarative | RGB/WikiEval lowest | FaithBench | held-out rows: mean | up | down | held-out diagnosis |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
awk '
	function row(f, up, down) { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], up, down, f[8] }
	NR == FNR { split($0, b, " "); for (i = 9; i <= NF; i++) { split($i, kv, "="); base[kv[1]] = kv[2] } row(b, "-", "-"); next }
	{
		split($0, f, " "); up = 0; down = 0
		for (i = 9; i <= NF; i++) { split($i, kv, "="); if (kv[2] > base[kv[1]]) up++; else if (kv[2] < base[kv[1]]) down++ }
		row(f, up, down)
	}' "$tmp/base" "$tmp/rows"
