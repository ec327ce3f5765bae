#!/usr/bin/env bash
# A week of nightly runs, kept and judged: seven runs of one build stand in
# for seven nights (they run seconds apart here), then an eighth is made
# 20 % slower by a --rate cap. The result files are imported into a results
# store, listed, followed as a trend, gated (exit 99 expected), and the
# trend page is looked at in headless Chromium (every chart must draw).
# Every run is real: tairbench against its embedded server, not Tair.
#
#   store_week.sh BIN DIR     (DIR is emptied first)
set -euo pipefail
bin=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
say() { echo "\$ $*"; }
run="redis --embedded -p 2 -d 3 -q -command 'GET k-__RAND__'"
for night in 1 2 3 4 5 6 7 8; do
  rate=1000
  [ "$night" = 8 ] && rate=800
  "$bin" redis --embedded -p 2 -d 3 -q -command 'GET k-__RAND__' --rate "$rate" --json "$dir/night-$night.json" >/dev/null 2>&1
done
say "tairbench $run --rate 1000 --json night-N.json    # nights 1 to 7"
say "tairbench $run --rate 800 --json night-8.json     # night 8, capped 20 % lower"
say "tairbench store import night-*.json --store week.db --tag branch=main"
(cd "$dir" && "$bin" store import night-1.json night-2.json night-3.json night-4.json night-5.json night-6.json night-7.json night-8.json \
  --store week.db --tag branch=main 2>&1)
echo
say "tairbench history --store week.db --trend qps"
(cd "$dir" && "$bin" history --store week.db --trend qps)
echo
say "tairbench gate --store week.db --baseline 'last 7 where tag.branch=main' --markdown gate.md --junit gate.xml"
set +e
(cd "$dir" && "$bin" gate --store week.db --baseline 'last 7 where tag.branch=main' --markdown gate.md --junit gate.xml)
code=$?
set -e
echo "(exit $code)"
echo
say "tairbench report --store week.db --trend qps -o trend.html && chromium --headless --dump-dom trend.html"
(cd "$dir" && "$bin" report --store week.db --trend qps -o trend.html 2>/dev/null)
check=$(chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$(cd "$dir" && pwd)/trend.html" 2>/dev/null | grep -o 'id="check" class="meta">[^<]*' | sed 's/.*>//')
echo "$check"
if [ "$code" != 99 ]; then echo "store_week: the gate exited $code, not 99, on a run 20 % slower" >&2; exit 1; fi
case "$check" in
  "charts rendered: 1 of 1") ;;
  *) echo "store_week: the trend page's chart did not draw ($check)" >&2; exit 1 ;;
esac
