# Shared by the benchmark scripts: peers installed from Debian, nginx serving the survey API on
# loopback, and the release binaries built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/out"
mkdir -p "$out"

need_packages() {
    local missing=()
    command -v wrk >/dev/null || missing+=(wrk)
    command -v hey >/dev/null || missing+=(hey)
    command -v ab >/dev/null || missing+=(apache2-utils)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing ${missing[*]} from Debian" >&2
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

build_release() {
    (cd "$root" && swift build -c release --product survey-bot >&2 && swift build -c release --product survey-bench >&2)
    bot="$root/.build/release/survey-bot"
    bench="$root/.build/release/survey-bench"
}

# start_nginx PORT: nginx with the survey API on 127.0.0.1:PORT until the script exits.
start_nginx() {
    local port=$1 dir="$out/nginx"
    mkdir -p "$dir"
    printf '[%s]\n' "$(for i in $(seq 1 10); do printf '{"id":%d,"question":"Question number %d?"}' "$i" "$i"; [ "$i" -lt 10 ] && printf ','; done)" >"$dir/questions.json"
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" "$root/bench/nginx.conf.in" >"$dir/nginx.conf"
    local nginx=nginx
    command -v nginx >/dev/null || nginx=/usr/sbin/nginx
    "$nginx" -c "$dir/nginx.conf" -p "$dir" &
    nginx_pid=$!
    trap 'kill $nginx_pid 2>/dev/null || true' EXIT
    wait_for_port "$port"
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
