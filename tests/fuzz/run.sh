#!/bin/sh
# run.sh FUZZER SECONDS — seed a corpus from the fixtures and Debian's
# runtimes, then run one libFuzzer target for a bounded time. Exit 0 if
# it found nothing; libFuzzer's own status (and its crash file) otherwise.
set -eu
fuzzer=$(readlink -f "$1")
secs=$2
name=$(basename "$fuzzer")
corpus=$(mktemp -d "/tmp/probetop-$name-XXXXXX")
trap 'rm -rf "$corpus"' EXIT

objects="$FIXTURE_DIR/sdt_target $FIXTURE_DIR/libsdtfix.so /usr/bin/python3.11"
i=0
for obj in $objects; do
	[ -f "$obj" ] || continue
	i=$((i + 1))
	case "$name" in
	fuzz_note)
		# class byte (0: 64-bit) + the raw note section
		printf '\000' >"$corpus/seed$i"
		readelf -SW "$obj" | sed 's/^ *\[ *[0-9]*\]//' |
			awk '$1 == ".note.stapsdt" { print $4, $5 }' | {
			read -r off size
			tail -c +$((0x$off + 1)) "$obj" | head -c $((0x$size))
		} >>"$corpus/seed$i"
		;;
	fuzz_cfi)
		# kind byte (0: .eh_frame) + the raw section
		printf '\000' >"$corpus/seed$i"
		readelf -SW "$obj" | sed 's/^ *\[ *[0-9]*\]//' |
			awk '$1 == ".eh_frame" { print $4, $5 }' | {
			read -r off size
			tail -c +$((0x$off + 1)) "$obj" | head -c $((0x$size))
		} >>"$corpus/seed$i"
		;;
	fuzz_usdtarg)
		readelf -n "$obj" | sed -n 's/^ *Arguments: //p' |
			tr ' ' '\n' | sort -u | while read -r a; do
			[ -n "$a" ] && printf '%s' "$a" >"$corpus/$(printf '%s' "$a" | md5sum | cut -c1-12)"
		done
		;;
	esac
done
if [ "$name" = fuzz_spec ]; then
	# every spec the tests and docs use
	grep -ho -e "-e '[^']*'" -e '"[a-z]*:[^"]*"' "$SOURCE_ROOT"/tests/integration/*.py \
		"$SOURCE_ROOT"/docs/*.md "$SOURCE_ROOT"/README.md 2>/dev/null |
		sed -e "s/^-e '//" -e "s/'$//" -e 's/^"//' -e 's/"$//' | sort -u |
		while read -r s; do
			printf '%s' "$s" >"$corpus/$(printf '%s' "$s" | md5sum | cut -c1-12)"
		done
fi
# crash files land in the directory the test runs in (the build dir)
artifacts=$(pwd)/
if [ "$name" = fuzz_probeset ]; then
	cp "$SOURCE_ROOT"/probesets/*.ini "$corpus/"
fi
cd "$corpus"
"$fuzzer" -artifact_prefix="$artifacts" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 "$corpus"
