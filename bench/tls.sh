#!/usr/bin/env bash
# The TLS layer's figures for docs/tls.md: handshakes per second over a socketpair and memory
# per connection (the release test suite TLSMeasurements, both ends on one thread), then the C
# shim under valgrind with a driver that makes and frees every kind of object it owns.
#
#   bench/tls.sh
source "$(dirname "$0")/common.sh"
command -v valgrind >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq valgrind >/dev/null; }
cd "$root"
SURVEY_BOT_TLS_MEASURE=1 swift test -c release -Xswiftc -enable-testing --filter TLSMeasurements 2>&1 | grep -E "TLS 1.3|RSS|passed|failed"
cc -g -O1 -Wall -Wextra -I Sources/CTLS/include Sources/CTLS/CTLS.c bench/tls-leakcheck.c -o "$out/tls-leakcheck" -ldl -lpthread
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 "$out/tls-leakcheck" 2>&1 \
    | grep -E "^ok|LEAK SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|ERROR SUMMARY"
