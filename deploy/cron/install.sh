#!/bin/sh
# Installs the nightly run of survey-bot.cron: a system user survey-bot to run it, its reports
# directory /var/lib/survey-bot/reports, the plan as /etc/survey-bot/nightly.plan (kept if one
# is there already), and the crontab as /etc/cron.d/survey-bot. Run it as root, once survey-bot
# is in /usr/local/bin:
#
#   sudo deploy/cron/install.sh plans/smoke.plan
#
# A plan that reads files beside it (data:, tls.ca_file, builtin.questions_file) needs them
# beside /etc/survey-bot/nightly.plan too.
set -eu
plan=${1:?usage: install.sh PLAN}
[ -f "$plan" ] || { echo "install.sh: no plan at $plan" >&2; exit 2; }
command -v survey-bot >/dev/null || [ -x /usr/local/bin/survey-bot ] ||
    { echo "install.sh: put survey-bot in /usr/local/bin first" >&2; exit 2; }
/usr/local/bin/survey-bot validate "$plan"

id survey-bot >/dev/null 2>&1 ||
    useradd --system --user-group --home-dir /var/lib/survey-bot --shell /usr/sbin/nologin survey-bot
install -d -o survey-bot -g survey-bot -m 0755 /var/lib/survey-bot /var/lib/survey-bot/reports
install -d -m 0755 /etc/survey-bot
[ -f /etc/survey-bot/nightly.plan ] || install -m 0644 "$plan" /etc/survey-bot/nightly.plan
install -m 0644 "$(dirname "$0")/survey-bot.cron" /etc/cron.d/survey-bot
echo "installed: /etc/cron.d/survey-bot runs /etc/survey-bot/nightly.plan at 02:15 as survey-bot, reports in /var/lib/survey-bot/reports"
