#!/usr/bin/env bash
# Open `warpsmith reproduce`'s report in headless Chromium (Debian's `chromium`, installed when
# missing, as root): count the console messages it logs while loading (none expected: the page
# has no script and fetches nothing), check every plot is in the DOM Chromium built, and take a
# screenshot of each seed's section.
#
#   scripts/report-check.sh REPORT.html SHOTS_DIR
#
# The check is checked first: a page that logs a console error must be caught, or the script
# fails (so "0 console messages" is never the output of a logging switch that did nothing).
set -euo pipefail
report=${1:?give the report (report.html)}
shots=${2:?give the folder for the screenshots}
say() { printf 'report-check: %s\n' "$*"; }
die() { printf 'report-check: error: %s\n' "$*" >&2; exit 1; }
[ -f "$report" ] || die "$report does not exist"
if ! command -v chromium >/dev/null; then
  [ "$(id -u)" = 0 ] || die "chromium is missing: install Debian's package (apt-get install chromium)"
  say "installing Debian's chromium"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$tmp/profile" "$@"; }
# Console messages a page logs while it loads (Chromium logs them as INFO:CONSOLE lines).
console() {
  chrome --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$tmp/dom.html" 2>"$tmp/log.txt" || true
  grep -c 'CONSOLE' "$tmp/log.txt" || true
}
printf '<!DOCTYPE html><html><body><script>console.error("wrong")</script></body></html>' \
  >"$tmp/wrong.html"
[ "$(console "$tmp/wrong.html")" -ge 1 ] || die "a page logging a console error was not caught"
abs=$(readlink -f "$report")
n=$(console "$abs")
grep 'CONSOLE' "$tmp/log.txt" >&2 || true
plots_src=$(grep -o '<svg id="' "$abs" | wc -l)
plots_dom=$(grep -o '<svg id="' "$tmp/dom.html" | wc -l)
say "$n console messages; $plots_dom of $plots_src plots in Chromium's DOM"
[ "$n" = 0 ] || die "the report logged $n console messages"
[ "$plots_src" -gt 0 ] && [ "$plots_dom" = "$plots_src" ] || die "plots missing from the DOM"
mkdir -p "$shots"
# One page per seed section (the page's head and that section), screenshot whole.
python3 - "$abs" "$tmp" <<'EOF'
import re, sys
page = open(sys.argv[1]).read()
head = page[: page.index("<body>")]
for m in re.finditer(r'<section id="(seed-\d+)">.*?</section>', page, re.S):
    with open(f"{sys.argv[2]}/{m.group(1)}.html", "w") as f:
        f.write(f"{head}<body>{m.group(0)}</body></html>")
EOF
for f in "$tmp"/seed-*.html; do
  name=$(basename "$f" .html)
  chrome --hide-scrollbars --window-size=1100,5000 --screenshot="$shots/$name.png" "file://$f" \
    >/dev/null 2>&1
  say "screenshot $shots/$name.png"
done
