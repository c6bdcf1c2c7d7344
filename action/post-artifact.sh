#!/usr/bin/env bash
# The perfbot action's post step for a fork's pull request, run by
# action.yml on a workflow_run event in the base repository: it posts the
# answer a pull_request run left as an artifact (meta.json, answer.json),
# after perfbot post-artifact has checked it against the event. Nothing
# from the fork is run: the artifact is read as data, and perfbot is built
# from the action's own checkout.
#
# Environment: GITHUB_EVENT_PATH (the workflow_run payload),
# GITHUB_ACTION_PATH, GITHUB_API_URL, GITHUB_TOKEN (pull-requests: write,
# checks: write), RUNNER_TEMP, PERFBOT_INPUT_ARTIFACT_DIR.
set -euo pipefail

die() { echo "perfbot action: $*" >&2; exit 2; }

: "${GITHUB_EVENT_PATH:?GITHUB_EVENT_PATH is not set: run on a workflow_run event}"
: "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
command -v go >/dev/null || die "go is needed to build perfbot"
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
dir=${PERFBOT_INPUT_ARTIFACT_DIR:-$tmp/perfbot-answer}
[[ -d $dir ]] || die "no artifact directory $dir: download the perfbot-answer artifact there first"

perfbot=${PERFBOT_BIN:-$tmp/perfbot-action/perfbot}
if [[ ! -x $perfbot ]]; then
	mkdir -p "$(dirname "$perfbot")"
	(cd "$GITHUB_ACTION_PATH" && go build -o "$perfbot" ./cmd/perfbot) || die "building perfbot from $GITHUB_ACTION_PATH failed"
fi

export PERFBOT_GITHUB_URL=${PERFBOT_GITHUB_URL:-${GITHUB_API_URL:-https://api.github.com}}
export PERFBOT_GITHUB_LOGIN=${PERFBOT_GITHUB_LOGIN:-github-actions[bot]}
answer=${PERFBOT_INPUT_ANSWER:-comment,check,summary}
if [[ ,$answer, == *,check,* ]]; then
	export PERFBOT_GITHUB_CHECKS=true
fi
args=(post-artifact --dir "$dir" --event "$GITHUB_EVENT_PATH")
[[ -n ${PERFBOT_INPUT_CONFIG:-} ]] && args+=(--config "$PERFBOT_INPUT_CONFIG")
exec "$perfbot" "${args[@]}"
