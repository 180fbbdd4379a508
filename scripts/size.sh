#!/usr/bin/env bash
# The restructuring's figures: non-test Go lines in all and per package,
# the domain package's exported names, packages outside the allowed roots,
# go mod tidy -diff and the README's length. Run from anywhere in the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
count() { cat "$@" 2>/dev/null | wc -l; }
total=0; product=0
printf '%-28s %8s %8s\n' package non-test test
for dir in $(go list -f '{{.Dir}}' ./...); do
  rel=${dir#"$PWD"/}
  n=$(count $(ls "$dir"/*.go 2>/dev/null | grep -v '_test\.go$' || true))
  t=$(count $(ls "$dir"/*_test.go 2>/dev/null || true))
  total=$((total + n))
  case $rel in tools/*|scripts/*) ;; *) product=$((product + n)) ;; esac
  printf '%-28s %8d %8d\n' "$rel" "$n" "$t"
done | sort -k2 -rn
for dir in $(go list -f '{{.Dir}}' ./...); do
  rel=${dir#"$PWD"/}
  n=$(count $(ls "$dir"/*.go 2>/dev/null | grep -v '_test\.go$' || true))
  total=$((total + n))
  case $rel in tools/*|scripts/*) ;; *) product=$((product + n)) ;; esac
done
echo "non-test Go lines: $total (without tools/ and scripts/: $product)"
# Of the product's lines, those that are neither comments nor blank.
code=$(go list -f '{{.Dir}}' ./... | grep -Ev "/(tools|scripts)(/|$)" | while read -r d; do
  ls "$d"/*.go 2>/dev/null | grep -v '_test\.go$' || true
done | xargs cat | grep -cvE '^[[:space:]]*(//|$)')
echo "of which code (no comment or blank lines): $code"
# The offline judge: eval/offline and its packages (the before-stop hook
# counts eval/offline alone).
judge=$(ls eval/offline/*.go eval/offline/*/*.go | grep -v '_test\.go$' | xargs cat | wc -l)
echo "offline judge (eval/offline and its packages): $judge non-test lines, eval/offline $(ls eval/offline/*.go | grep -v '_test\.go$' | xargs cat | wc -l)"
echo "exported names of eval: $(go doc -short ./eval 2>/dev/null | grep -c . || true)"
outside=$(go list ./... | sed 's|^github.com/ragscope/ragscope/||' | grep -Ev '^(cmd|tui|eval|cache|prompts|internal|tools|scripts)(/|$)' || true)
echo "packages outside cmd tui eval cache prompts internal tools scripts: ${outside:-none}"
if go mod tidy -diff >/dev/null 2>&1; then echo "go mod tidy -diff: empty"; else echo "go mod tidy -diff: NOT empty"; fi
echo "README lines: $(wc -l < README.md)"
