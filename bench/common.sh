# Shared by the benchmark scripts: peers installed from Debian, nginx serving the survey API on
# loopback, and the release binaries built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/out"
mkdir -p "$out"

# CAP=F (see pin_if_asked) is checked here, before anything is installed, built or started.
if [ -n "${CAP:-}" ]; then
    if ! awk -v f="$CAP" 'BEGIN { exit !(f + 0 == f && f > 0 && f < 1) }'; then
        echo "CAP=$CAP: give a fraction of one core between 0 and 1, like CAP=0.5" >&2
        exit 2
    fi
    [ "$(id -u)" -eq 0 ] || { echo "CAP=$CAP needs root: it makes a cgroup for the client" >&2; exit 2; }
fi

# need COMMAND=PACKAGE…: installs from Debian each PACKAGE whose COMMAND (a name on the PATH,
# or a path) is missing, the package lists updated first (a new machine has none), with sudo
# when not root.
need() {
    local missing=() pair sudo=""
    for pair in "$@"; do
        command -v "${pair%%=*}" >/dev/null || missing+=("${pair#*=}")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "installing ${missing[*]} from Debian" >&2
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# need_packages: the peers and the server most scripts measure against.
need_packages() {
    need wrk=wrk hey=hey ab=apache2-utils /usr/sbin/nginx=nginx-light
}

# build_release: the release binaries of this tree, in $bot and $bench; with SURVEY_BOT=PATH in
# the environment, $bot is that binary instead (another build's, to measure it the same way).
build_release() {
    (cd "$root" && swift build -c release --product survey-bot >&2 && swift build -c release --product survey-bench >&2)
    bot="${SURVEY_BOT:-$root/.build/release/survey-bot}"
    bench="$root/.build/release/survey-bench"
}

# start_nginx PORT [CERT KEY]: nginx with the survey API on 127.0.0.1:PORT until the script
# exits; over TLS with that certificate and key when they are given. With nginx_http2=1 in the
# environment it speaks HTTP/2 too: picked by ALPN over TLS, with prior knowledge (h2c) in
# cleartext. With nginx_workers=N it runs N worker processes (default: one per core); with
# nginx_cpu=N, on that CPU alone. Each call starts another nginx, in a directory of its own.
start_nginx() {
    local port=$1 dir="$out/nginx"
    # nginx listens with reuseport: on a port another nginx holds (another script's, another
    # clone's), the two would share the connections silently, each with its own certificate.
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "something already listens on 127.0.0.1:$port (another benchmark running?): stop it first" >&2
        exit 1
    fi
    [ "$port" = 18080 ] || dir="$out/nginx-$port"
    mkdir -p "$dir"
    printf '[%s]\n' "$(for i in $(seq 1 10); do printf '{"id":%d,"question":"Question number %d?"}' "$i" "$i"; [ "$i" -lt 10 ] && printf ','; done)" >"$dir/questions.json"
    local listen="$port" tls=""
    if [ $# -ge 3 ]; then
        listen="$port ssl"
        tls="ssl_certificate $2; ssl_certificate_key $3; ssl_protocols TLSv1.2 TLSv1.3;"
    fi
    [ "${nginx_http2:-0}" = 1 ] && listen="$listen http2"
    sed -e "s|@DIR@|$dir|g" -e "s|@WORKERS@|${nginx_workers:-auto}|g" -e "s|@PORT@|$listen|g" -e "s|@TLS@|$tls|g" "$root/bench/nginx.conf.in" >"$dir/nginx.conf"
    local nginx=nginx
    command -v nginx >/dev/null || nginx=/usr/sbin/nginx
    # With nginx_cpu=N, nginx and its workers run on that CPU alone (taskset).
    local pin=()
    [ -n "${nginx_cpu:-}" ] && pin=(taskset -c "$nginx_cpu")
    "${pin[@]}" "$nginx" -c "$dir/nginx.conf" -p "$dir" &
    nginx_pid=$!
    nginx_pids="${nginx_pids:-} $nginx_pid"
    trap on_exit EXIT
    wait_for_port "$port"
}

# run_plan NAME BINARY PLAN TARGET: one run of PLAN by BINARY with one thread at $concurrency for
# $duration seconds against TARGET, its report in $out/NAME and GNU time's figures in
# $out/NAME.time; prints "attempts cpu_s rss_mb answers completed failed": its attempts, its own CPU
# seconds (user + system), its peak resident set, the answers it submitted, the respondents that
# completed, and the attempts that failed.
run_plan() {
    local name=$1 binary=$2 plan=$3 target=$4
    rm -rf "${out:?}/$name"
    /usr/bin/time -f "%U %S %M" -o "$out/$name.time" "$binary" run "$plan" --threads 1 --concurrency "$concurrency" \
        --respondents 1000000 --duration "${duration}s" --target "$target" --out "$out/$name" --format json --quiet || true
    python3 - "$out/$name" "$out/$name.time" <<'PY'
import glob, json, sys
report = json.load(open(glob.glob(sys.argv[1] + "/*-latest.json")[0]))
user, system, rss_kb = open(sys.argv[2]).read().split()[-3:]
attempts = sum(e["attempts"] for e in report["endpoints"].values())
failed = sum(sum(e.get("errors", {}).values()) for e in report["endpoints"].values())
print(attempts, float(user) + float(system), int(rss_kb) / 1024, report["answers"]["submitted"], report["respondents"]["completed"], failed)
PY
}

# make_certificates DIR: a throwaway CA (DIR/ca.crt) and a certificate it signed for localhost
# and 127.0.0.1 (DIR/server.crt, DIR/server.key), RSA 2048, valid for a day.
make_certificates() {
    local tls=$1
    rm -rf "$tls" && mkdir -p "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=survey-bot bench CA" \
        -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tls/san.cnf"
    openssl x509 -req -days 1 -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
        -extfile "$tls/san.cnf" -out "$tls/server.crt" 2>/dev/null
}

wait_for_port() {
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "nothing listens on 127.0.0.1:$1" >&2
    exit 1
}

# Throughput parsers: print requests per second as a plain number.
wrk_rps() { awk '/^Requests\/sec:/ { printf "%.0f\n", $2 }'; }
hey_rps() { awk '/Requests\/sec:/ { printf "%.0f\n", $2 }'; }
bench_rps() { awk '{ for (i = 1; i < NF; i++) if ($i == "rps") print $(i + 1) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# write_submit_lua: $out/submit.lua, a wrk script that POSTs one answer like a respondent.
write_submit_lua() {
    cat >"$out/submit.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"id":3,"answer":"fine"}'
wrk.headers["Content-Type"] = "application/json"
LUA
}

# pin_if_asked: with PIN=1 in the environment, nginx started from now on runs on CPU 1 and the
# script's clients run under `client` (taskset -c 0): each side a core of its own. Without it,
# `client` is empty and the scheduler places them.
#
# With CAP=F (a fraction of one core, 0 < F < 1; it implies PIN=1), the clients also run under a
# CPU quota of F of a core: the CFS bandwidth limit of a cgroup, which is what `docker run
# --cpus` and a Kubernetes pod's CPU limit set. nginx keeps a core of its own, so it has room to
# spare (its busy column stays well under 100) and the client's cost sets the rate: how much
# load one client can drive from a container given that much CPU. Needs root, to make the cgroup.
pin_if_asked() {
    client=()
    [ -z "${CAP:-}" ] || PIN=1
    if [ "${PIN:-0}" = 1 ]; then
        [ "$(nproc)" -ge 2 ] || { echo "PIN=1 needs two CPUs" >&2; exit 2; }
        export nginx_cpu=1
        client=(taskset -c 0)
    fi
    if [ -n "${CAP:-}" ]; then
        cap_clients "$CAP"
        client=("$out/capped-client-$$" taskset -c 0)
    fi
}

# cap_clients F: makes the cgroup of CAP=F (cgroup v2's cpu.max, or v1's cpu controller) with a
# quota of F of each 100 ms period (the period Docker and Kubernetes use), removed when the
# script exits, and $out/capped-client-PID, which runs a command in it.
cap_clients() {
    local fraction=$1 period=100000 quota group
    quota=$(awk -v f="$fraction" -v p="$period" 'BEGIN { printf "%d", f * p }')
    if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
        group=/sys/fs/cgroup/survey-bench-$$
        grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
        mkdir "$group"
        echo "$quota $period" >"$group/cpu.max"
    elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        group=/sys/fs/cgroup/cpu/survey-bench-$$
        mkdir "$group"
        echo "$period" >"$group/cpu.cfs_period_us"
        echo "$quota" >"$group/cpu.cfs_quota_us"
    else
        echo "CAP=$fraction: this machine has no cgroup cpu controller (v2 cpu.max or v1 cpu)" >&2
        exit 2
    fi
    capped_group=$group
    trap on_exit EXIT
    printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "$@"\n' "$group" >"$out/capped-client-$$"
    chmod +x "$out/capped-client-$$"
}

# on_exit: stops the nginx instances and the `survey-bot serve` the script started, and removes
# CAP's cgroup and its command.
on_exit() {
    kill ${nginx_pids:-} ${serve_pid:-} 2>/dev/null || true
    if [ -n "${capped_group:-}" ]; then
        rmdir "$capped_group" 2>/dev/null || true
        rm -f "$out/capped-client-$$"
    fi
}

# The User-Agent plans/stress.plan declares: the peers send it too, so that nginx gets the same
# fields from each client.
stress_agent=$(awk '$1 == "User-Agent:" { print $2; exit }' "$root/plans/stress.plan")

# write_mix_lua FILE: a wrk script that runs the respondent flow's mix itself, 10 POSTs of an
# answer to each GET of the questions, with the plan's User-Agent ($stress_agent).
write_mix_lua() {
    printf 'local agent = "%s"\n' "$stress_agent" >"$1"
    cat >>"$1" <<'LUA'
local n = 0
request = function()
    n = n + 1
    if n % 11 == 0 then return wrk.format("GET", "/questions", { ["User-Agent"] = agent }) end
    return wrk.format("POST", "/question/submit", { ["Content-Type"] = "application/json", ["User-Agent"] = agent }, '{"id":3,"answer":"fine"}')
end
LUA
}

# bot_figures NAME BINARY URL ARGS…: one run of plans/stress.plan by BINARY with one thread at
# $concurrency for $duration seconds against URL (under the script's `client` command, taskset
# when it pins), its report in $out/NAME; prints its attempts per second and per CPU-second of
# its own (user + system, GNU time), "rate,per_cpu", and says on stderr when attempts failed.
bot_figures() {
    local name=$1 binary=$2 url=$3
    shift 3
    rm -rf "${out:?}/$name"
    /usr/bin/time -f "%U %S" -o "$out/$name.time" ${client[@]+"${client[@]}"} "$binary" run "$root/plans/stress.plan" --threads 1 \
        --concurrency "$concurrency" --respondents 1000000 --duration "${duration}s" --target "$url" --out "$out/$name" \
        --format json --quiet "$@" || true
    python3 - "$out/$name/stress-latest.json" "$out/$name.time" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
user, system = open(sys.argv[2]).read().split()[-2:]
attempts = sum(e["attempts"] for e in r["endpoints"].values())
failed = sum(e["failed_attempts"] for e in r["endpoints"].values())
if failed:
    print(f"survey-bot: {failed} failed attempts", file=sys.stderr)
print(f'{round(r["throughput"]["attempts_per_s"])},{round(attempts / (float(user) + float(system)))}')
PY
}

# wrk_p50: the 50% line of `wrk --latency`, in µs.
wrk_p50() {
    awk '$1 == "50%" {
        v = $2; unit = v; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v)
        f = (unit == "us") ? 1 : (unit == "ms") ? 1000 : (unit == "s") ? 1000000 : 0
        printf "%.1f\n", v * f }'
}

# report_p50 FILE: the p50 of questions and of submit in a JSON report, in µs.
report_p50() {
    python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["endpoints"]
print(round(e["questions"]["latency_ms"]["p50"] * 1000, 1), round(e["submit"]["latency_ms"]["p50"] * 1000, 1))' "$1"
}

# report_rate FILE: attempts per second of a JSON report.
report_rate() {
    python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["throughput"]["attempts_per_s"]))' "$1"
}

# mix_rate POST GET: wrk's rate for the respondent flow's mix, 10 POST to 1 GET.
mix_rate() { awk -v p="$1" -v g="$2" 'BEGIN { printf "%.0f", 11 / (10 / p + 1 / g) }'; }

# server_seconds PID: the CPU seconds (user + system) nginx's master PID and its workers have
# used so far.
server_seconds() {
    local ticks=0 pid
    for pid in "$1" $(pgrep -P "$1"); do
        ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
    done
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}

# with_server_busy PID SECONDS COMMAND…: runs COMMAND, which prints "rate,per_cpu" and sends
# load for SECONDS in all, and prints that with ",busy" added: the share of one core, in percent,
# that nginx (PID) used over those seconds (a client's start-up and report, when nginx has
# nothing to do, left out). Near 100, the server is what limits the rate, whichever the client:
# the ratio of two clients' rates then says how much work each asks of the server, not what
# each can send.
with_server_busy() {
    local pid=$1 seconds=$2 before figures
    shift 2
    before=$(server_seconds "$pid")
    figures=$("$@")
    echo "$figures,$(awk -v c="$(server_seconds "$pid")" -v b="$before" -v s="$seconds" 'BEGIN { printf "%.0f", (c - b) * 100 / s }')"
}

# sample_until_exit PID FILE: every 10 s while PID lives, its resident set size and open file
# descriptors, printed and appended to FILE as "<seconds> s  RSS <MB> MB  fds <n>".
sample_until_exit() {
    local pid=$1 samples=$2 elapsed=0 rss fds
    : >"$samples"
    while kill -0 "$pid" 2>/dev/null; do
        sleep 10
        elapsed=$((elapsed + 10))
        rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        fds=$( (ls "/proc/$pid/fd" 2>/dev/null || true) | wc -l)
        if [ -n "$rss" ]; then
            printf '%5d s  RSS %7.1f MB  fds %d\n' "$elapsed" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$fds" | tee -a "$samples"
        fi
    done
}

# flatness FILE: RSS at minute 1 against the last sample, and the open descriptors, from the
# samples of sample_until_exit.
flatness() {
    python3 - "$1" <<'PY'
import re, sys
rows = [re.findall(r"[\d.]+", line) for line in open(sys.argv[1])]
rows = [(int(r[0]), float(r[1]), int(r[2])) for r in rows if len(r) >= 3]
minute1 = next((r for r in rows if r[0] >= 60), rows[0])
last = rows[-1]
print(f'RSS at {minute1[0]} s: {minute1[1]:.1f} MB; at {last[0]} s: {last[1]:.1f} MB; change {100 * (last[1] - minute1[1]) / minute1[1]:+.1f}%')
print(f'open fds: at {minute1[0]} s {minute1[2]}, at {last[0]} s {last[2]}, min {min(r[2] for r in rows)}, max {max(r[2] for r in rows)}')
PY
}

# overhead_table WRK_GET BOT_GET WRK_POST BOT_POST: the medians at one connection, in µs, and
# survey-bot's overhead over wrk.
overhead_table() {
    printf '%-22s %12s %14s %12s\n' "p50, one connection" "wrk" "survey-bot" "overhead"
    printf '%-22s %9s µs %11s µs %9s µs\n' \
        "GET /questions" "$1" "$2" "$(awk -v a="$2" -v b="$1" 'BEGIN { printf "%.1f", a - b }')" \
        "POST /question/submit" "$3" "$4" "$(awk -v a="$4" -v b="$3" 'BEGIN { printf "%.1f", a - b }')"
}

# serve_against_nginx URL NGINX_RPS [SERVE OPTIONS…]: `survey-bot serve` on URL's port with the
# options, wrk against it at $concurrency for $duration, and its rate beside nginx's.
serve_against_nginx() {
    local url=$1 nginx_rps=$2 port
    shift 2
    port=${url##*:}
    port=${port%%/*}
    "$bot" serve --port "$port" "$@" >"$out/serve-$port.log" 2>&1 &
    serve_pid=$!
    trap on_exit EXIT
    wait_for_port "$port"
    local serve_rps
    serve_rps=$(wrk -t2 -c"$concurrency" -d"${duration}s" "$url/questions" | tee "$out/wrk-serve-$port.txt" | wrk_rps)
    printf '%-28s %10s req/s\n' "nginx" "$nginx_rps" "survey-bot serve" "$serve_rps"
    printf 'survey-bot serve / nginx: %s\n' "$(ratio "$serve_rps" "$nginx_rps")"
}
