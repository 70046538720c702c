#!/usr/bin/env bash
# Proves the package list of deploy/Dockerfile's runtime stage without Docker: builds survey-bot
# as the image does (--static-swift-stdlib), makes a minimal Debian bookworm root the way
# debian:bookworm-slim is made (debootstrap --variant=minbase, from the apt sources this machine
# uses), and runs the binary in it, in a chroot:
#
#   1. with nothing added: ldd names only what minbase has, and an http run passes, while an
#      https run fails saying that libssl is missing (so the packages are needed, not decoration);
#   2. with only the packages the Dockerfile's runtime stage installs (read from the Dockerfile,
#      not copied from it): plans/smoke.plan passes over http, over https against builtin.tls,
#      and over https against `survey-bot serve` with a certificate of a private CA that the run
#      trusts only through the system store (update-ca-certificates) — refused before it is there;
#   3. the Kubernetes Jobs' shell commands (deploy/kubernetes/*.yaml, read from the manifests) as
#      written, under the root's /bin/sh as PID 1 (unshare --pid): two shard pods, a pod stopped
#      by SIGTERM (it must still write its partial report), then the merge pod;
#   4. the cron job (deploy/cron/) as written: install.sh, then each crontab line as its user.
#
#   sudo deploy/runtime-root.sh    # ~2 min on 2 cores (debootstrap ~30 s to 1 min, the rest the
#                                  # runs), plus ~1.5 min the first time for the build
#
# Needs root (debootstrap, chroot, mounts), debootstrap, openssl and python3 with PyYAML. Not run
# by .ci/run: it takes minutes and downloads a Debian root. What it runs talks to loopback only
# (127.0.0.1 to 127.0.0.4); only debootstrap and apt reach out, to the Debian mirror.
# The root is made in a temporary directory and removed at the end (KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "runtime-root.sh needs root (debootstrap, chroot, mount)" >&2; exit 2; }
for tool in debootstrap openssl python3 swift; do
    command -v "$tool" >/dev/null || { echo "runtime-root.sh needs $tool" >&2; exit 2; }
done

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

# The runtime stage's packages, as the Dockerfile says them: the words after `apt-get install` in
# the last stage, options left out.
packages=$(python3 - deploy/Dockerfile <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
stage = re.split(r"(?m)^FROM ", text)[-1]
found = []
for m in re.finditer(r"apt-get install ([^&;\n]*)", stage):
    found += [w for w in m.group(1).split() if not w.startswith("-")]
if not found:
    sys.exit("no apt-get install in the Dockerfile's last stage")
print(" ".join(found))
PY
)
echo "the runtime stage installs: $packages"

step "build as the image does: swift build -c release --static-swift-stdlib"
swift build -c release --product survey-bot --static-swift-stdlib --scratch-path .build-static 2>&1 | tail -2
bin=.build-static/release/survey-bot

work=$(mktemp -d "${TMPDIR:-/tmp}/survey-bot-root.XXXXXX")
root="$work/root"
serve_pid=""
cleanup() {
    set +e # every step of it, whatever failed before (a wait on a killed serve returns 143)
    if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; fi
    for m in proc dev/pts dev; do
        if mountpoint -q "$root/$m"; then umount "$root/$m" || umount -l "$root/$m"; fi
    done
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $root"; else rm -rf "$work"; fi
}
trap cleanup EXIT

step "a minimal bookworm root: debootstrap --variant=minbase"
# The mirror this machine's apt already uses for bookworm.
# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
    awk '$2 == "bookworm" { print $1; exit }')
[ -n "$mirror" ] || fail "no bookworm source in this machine's apt sources"
start=$SECONDS
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
echo "debootstrap from $mirror: $((SECONDS - start)) s, $(chroot "$root" dpkg-query -W | wc -l) packages"
# The same suites as this machine (bookworm-security, -updates), as the image's apt-get update sees.
rm -f "$root/etc/apt/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
    if [ -f "$f" ] && grep -qF "${mirror%/}" "$f"; then cp "$f" "$root/etc/apt/sources.list.d/"; fi
done
if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$root/etc/apt/sources.list"; fi
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

install -D "$bin" "$root/usr/local/bin/survey-bot"
cp -r plans "$root/plans"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

step "1. nothing added: the libraries the binary links, and http"
in_root ldd /usr/local/bin/survey-bot | tee "$work/ldd.txt"
if grep -q 'not found' "$work/ldd.txt"; then fail "a linked library is missing from minbase"; fi
in_root survey-bot run /plans/smoke.plan --out /tmp/r0 --quiet || fail "http smoke run without packages"
echo "http: passed with nothing added"
set +e
in_root survey-bot run /plans/smoke.plan --out /tmp/r0 --quiet --set builtin.tls=true >"$work/tls0.log" 2>&1
status=$?
set -e
cat "$work/tls0.log"
[ "$status" -ne 0 ] || fail "https passed without libssl: the package list is not proved necessary"
grep -q 'libssl' "$work/tls0.log" || fail "the https failure does not name libssl"
echo "https without the packages: exit $status, naming libssl (as it should)"

step "2. only the runtime stage's packages: apt-get install -y --no-install-recommends $packages"
# shellcheck disable=SC2016 # dpkg-query's own ${FIELD} syntax
in_root dpkg-query -W -f '${Package}\n' | sort >"$work/before.txt"
# shellcheck disable=SC2086 # one word per package
in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null && rm -rf /var/lib/apt/lists/*"
# shellcheck disable=SC2016
in_root dpkg-query -W -f '${Package}\n' | sort >"$work/after.txt"
echo "packages added: $(comm -13 "$work/before.txt" "$work/after.txt" | tr '\n' ' ')"

in_root survey-bot run /plans/smoke.plan --out /tmp/r1 || fail "plans/smoke.plan over http"
in_root survey-bot run /plans/smoke.plan --out /tmp/r2 --set builtin.tls=true || fail "plans/smoke.plan over https (builtin.tls)"

# The system store, as a real https target is verified: a private CA trusted only by being in it.
ca="$work/ca"
mkdir -p "$ca"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=survey-bot test CA" \
    -keyout "$ca/ca.key" -out "$ca/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$ca/server.key" -out "$ca/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$ca/ext"
openssl x509 -req -in "$ca/server.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" -CAcreateserial -days 2 \
    -extfile "$ca/ext" -out "$ca/server.crt" 2>/dev/null
mkdir -p "$root/srv"
cp "$ca/server.crt" "$ca/server.key" "$root/srv/"
# chroot, not in_root: chroot and env exec, so that $! is survey-bot serve itself, to end by PID.
chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
    survey-bot serve --port 0 --tls-cert /srv/server.crt --tls-key /srv/server.key >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 50); do grep -q '^listening on' "$work/serve.out" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/serve.out")
[ -n "$url" ] || { cat "$work/serve.err"; fail "survey-bot serve did not start"; }
set +e
in_root survey-bot run /plans/smoke.plan --target "$url" --out /tmp/r3 >"$work/store0.log" 2>&1
status=$?
set -e
grep -q 'tls_certificate' "$work/store0.log" || { cat "$work/store0.log"; fail "a CA outside the store was not refused (exit $status)"; }
echo "$url with the CA outside the system store: refused (tls_certificate), exit $status"
cp "$ca/ca.crt" "$root/usr/local/share/ca-certificates/survey-bot-test-ca.crt"
in_root update-ca-certificates >/dev/null
in_root survey-bot run /plans/smoke.plan --target "$url" --out /tmp/r3 || fail "https against a CA in the system store"
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=""

step "3. the Kubernetes Jobs' commands as written, under the root's /bin/sh"
# Each container's command and args, read from the manifests; /reports is the shared volume.
python3 - deploy/kubernetes/job.yaml deploy/kubernetes/merge-job.yaml "$root/srv" <<'PY'
import sys, yaml
for path, name in zip(sys.argv[1:3], ["shard", "merge"]):
    for doc in yaml.safe_load_all(open(path)):
        if doc and doc.get("kind") == "Job":
            c = doc["spec"]["template"]["spec"]["containers"][0]
            assert c["command"] == ["/bin/sh", "-c"], c["command"]
            open(f"{sys.argv[3]}/{name}.sh", "w").write(c["args"][0] + "\n")
PY
mkdir -p "$root/reports"
pod() { # INDEX POD_IP PLAN RUN_ID: one shard pod of the Indexed Job, its shell PID 1 as in a container
    exec unshare --pid --fork chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        SHARDS=2 TARGET=builtin PLAN="$3" RUN_ID="$4" POD_IP="$2" JOB_COMPLETION_INDEX="$1" \
        /bin/sh -c "$(cat "$root/srv/shard.sh")"
}
run_id="0b6f3c5e-4f6d-4c1e-9d1a-$(date +%s)"
# Two pods at once, each on its own address as pods are (--metrics-listen binds $POD_IP:9464).
pod 0 127.0.0.2 /plans/smoke.plan "$run_id" >"$work/shard0.log" 2>&1 &
pid0=$!
pod 1 127.0.0.3 /plans/smoke.plan "$run_id" >"$work/shard1.log" 2>&1 &
pid1=$!
wait "$pid0" || { cat "$work/shard0.log"; fail "shard pod 0"; }
wait "$pid1" || { cat "$work/shard1.log"; fail "shard pod 1"; }
echo "two shard pods exited 0: $(cd "$root/reports/runs/$run_id" && echo *-latest.json)"
# A pod stopped by Kubernetes (the Job's deadline, an eviction): SIGTERM goes to PID 1, the shell,
# which the kernel keeps from any signal it has no handler for: it must hand it on, so that
# survey-bot writes its partial report.
printf 'name: long\ntarget: builtin\nrate: 20/s\nduration: 1m\n' >"$root/srv/long.plan"
pod 0 127.0.0.4 /srv/long.plan "cut-$run_id" >"$work/cut.log" 2>&1 &
pid=$!
sleep 2
kill -TERM "$(tr -d " " <"/proc/$pid/task/$pid/children")" # the namespace's PID 1: the pod's shell
set +e
wait "$pid"
status=$?
set -e
[ "$status" -eq 143 ] || { cat "$work/cut.log"; fail "a shard pod given SIGTERM exited $status, not 143"; }
python3 - "$root/reports/runs/cut-$run_id/long-shard-1-of-2-latest.json" <<'PY' || fail "the partial report of a stopped pod"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["interrupted"], "not marked interrupted"
print(f"a shard pod given SIGTERM: exit 143, a partial report of {report['respondents']['started']} respondents")
PY
set +e
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root RUN_ID="$run_id" KEEP_DAYS=30 \
    /bin/sh -c "$(cat "$root/srv/merge.sh")" >"$work/merge.log" 2>&1
status=$?
set -e
head -5 "$work/merge.log"
[ "$status" -eq 0 ] || { cat "$work/merge.log"; fail "the merge pod exited $status"; }
grep -q '^# survey-bot: smoke' "$work/merge.log" || fail "the merge pod printed no Markdown summary"
for f in merged.json merged.md; do [ -s "$root/reports/runs/$run_id/$f" ] || fail "the merge pod wrote no $f"; done
echo "the merge pod: exit 0, its summary printed and beside merged.json"

step "4. the cron job as written: deploy/cron/install.sh, then each crontab line as cron runs it"
cp -r deploy/cron "$root/srv/cron"
in_root /srv/cron/install.sh /plans/smoke.plan
# Each line's user and command, run as cron does: that user, /bin/sh, the crontab's PATH.
cron_line() { # N: the Nth command line of the crontab
    grep -E '^[0-9*]' deploy/cron/survey-bot.cron | sed -n "${1}p" |
        awk '{ user = $6; $1 = $2 = $3 = $4 = $5 = $6 = ""; sub(/^ +/, ""); print user "\t" $0 }'
}
cron_path=$(sed -n 's/^PATH=//p' deploy/cron/survey-bot.cron)
as_cron() { # LINE: runs it; what it prints is what cron would mail
    local user command
    IFS=$'\t' read -r user command <<<"$(cron_line "$1")"
    chroot --userspec="$user:$user" "$root" /usr/bin/env -i PATH="$cron_path" HOME=/var/lib/survey-bot \
        SHELL=/bin/sh /bin/sh -c "$command"
}
mail=$(as_cron 1) || fail "the run line exited non-zero"
[ -z "$mail" ] || fail "a passing night printed (cron would mail it): $mail"
reports="$root/var/lib/survey-bot/reports"
for f in nightly-latest.json nightly-latest.prom; do [ -s "$reports/$f" ] || fail "the nightly run wrote no $f"; done
[ "$(in_root stat -c %U /var/lib/survey-bot/reports/nightly-latest.json)" = survey-bot ] || fail "the reports are not the survey-bot user's"
echo "a passing night: nothing to mail; nightly-latest.json and .prom written by the survey-bot user"
printf 'name: failing\ntarget: builtin\nrespondents: 5\nconcurrency: 1\nbuiltin:\n  fail_rate: 100%%\nthresholds:\n  submit.success_rate: ">= 99%%"\n' \
    >"$root/etc/survey-bot/nightly.plan"
mail=$(as_cron 1)
echo "a failing night mails: $mail"
case "$mail" in "survey-bot nightly failed (exit 1)"*) ;; *) fail "a failing night mails nothing useful" ;; esac
old="$reports/nightly-20200101T021500Z.json"
# An old report, and a -latest file as old (a plan that stopped being run): only the first goes.
chroot --userspec=survey-bot:survey-bot "$root" touch -d '40 days ago' "${old#"$root"}" /var/lib/survey-bot/reports/nightly-latest.prom
as_cron 2 || fail "the prune line"
[ ! -e "$old" ] || fail "a report of 40 days ago was kept"
[ -e "$reports/nightly-latest.prom" ] || fail "the prune removed nightly-latest.prom"
echo "the prune line: a report of 40 days ago removed, the newer ones and every -latest file kept ($(find "$reports" -type f | wc -l) files)"

echo
echo "runtime root passed: survey-bot runs in bookworm minbase + $packages ($((SECONDS)) s)"
