#!/usr/bin/env bash
# The TLS layer's figures for docs/tls.md: handshakes per second over a socketpair and memory
# per connection (the release test suite TLSMeasurements, both ends on one thread), then the C
# shim under valgrind with a driver that makes and frees every kind of object it owns.
#
#   bench/tls.sh [DIR]
#
# With DIR, a directory holding an OpenSSL 1.1 as libssl.so.1.1 (and its libcrypto), the driver
# also runs against that library alone: the check that the shim works with 1.1 too.
source "$(dirname "$0")/common.sh"
need valgrind=valgrind
cd "$root"
SURVEY_BOT_TLS_MEASURE=1 swift test -c release -Xswiftc -enable-testing --filter TLSMeasurements >"$out/tls-measure.txt" 2>&1 \
    || { cat "$out/tls-measure.txt"; exit 1; }
grep -E "TLS 1.3|RSS" "$out/tls-measure.txt"

leakcheck() {  # leakcheck NAME [CFLAGS...]: build the driver, run it under valgrind
    local binary="$out/tls-leakcheck-$1"
    shift
    cc -g -O1 -Wall -Wextra "$@" -I Sources/CTLS/include Sources/CTLS/CTLS.c bench/tls-leakcheck.c -o "$binary" -ldl -lpthread
    valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 "$binary" 2>&1 \
        | grep -E "^OpenSSL|^  |^ok|definitely lost|indirectly lost|possibly lost|ERROR SUMMARY"
}
leakcheck system
if [ $# -ge 1 ]; then
    LD_LIBRARY_PATH="$1" leakcheck 1.1 -DCTLS_LIBRARY_NAMES='"libssl.so.1.1"'
fi
