#!/bin/sh
# tests/bench/list.sh — how long `probetop list -p PID` takes on a process
# that maps about 50 shared libraries (libruby and libstdc++ among them),
# against `bpftrace -l 'usdt:*' -p PID` and `tplist-bpfcc -p PID`, cold
# (page cache dropped before each run) and warm, in one run, as ratios.
# Goal (issue 2): at least 5x faster than the faster of the two, and under
# 100 ms cold. Run as root from the project root: tests/bench/list.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
out=$(mktemp -d /tmp/probetop-bench-XXXXXX)

libs="/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1
/usr/lib/x86_64-linux-gnu/libstdc++.so.6
$(ls /usr/lib/x86_64-linux-gnu/lib*.so.[0-9]* | grep -v -e ruby -e stdc++ | sort)"
# shellcheck disable=SC2086
mkfifo "$out/in"
build/tests/bench/manylibs 50 $libs <"$out/in" >"$out/ready" &
exec 3>"$out/in"
pid=$!
trap 'exec 3>&-; kill $pid 2>/dev/null; rm -rf "$out"' EXIT
while ! grep -q ready "$out/ready"; do sleep 0.1; done
nobj=$(awk '$6 ~ /^\// && $2 ~ /x/ {print $6}' "/proc/$pid/maps" | sort -u | wc -l)
nprobes=$(build/ui/probetop list -p "$pid" | wc -l)
echo "target: pid $pid maps $nobj executable objects, $nprobes probes"

drop="sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'"
for mode in cold warm; do
	prep=true
	[ "$mode" = cold ] && prep=$drop
	hyperfine -N --warmup 2 --runs 15 --prepare "$prep" \
		--export-json "$out/$mode.json" \
		-n probetop "build/ui/probetop list -p $pid" \
		-n bpftrace "bpftrace -l usdt:* -p $pid" \
		-n tplist "tplist-bpfcc -p $pid" >/dev/null
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
for mode in ("cold", "warm"):
    r = {x["command"]: x for x in json.load(open("%s/%s.json" % (d, mode)))["results"]}
    p = r["probetop"]["median"] * 1000
    b = r["bpftrace"]["median"] * 1000
    t = r["tplist"]["median"] * 1000
    best = min(b, t)
    print("%s: probetop %.1f ms, bpftrace %.1f ms, tplist %.1f ms "
          "(medians); probetop is %.1fx faster than bpftrace, %.1fx than "
          "tplist, %.1fx than the faster of the two"
          % (mode, p, b, t, b / p, t / p, best / p))
    if mode == "cold":
        print("goal: cold < 100 ms: %s; >= 5x the faster: %s"
              % ("yes" if p < 100 else "NO", "yes" if best / p >= 5 else "NO"))
PY
