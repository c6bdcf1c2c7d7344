#!/usr/bin/env bash
# The perfbot action's compare step, run by action.yml on a pull_request
# event (and runnable off GitHub with the same environment): it builds
# perfbot from the action's own checkout, measures the pull request's merge
# base against its head in one job, writes the answer to the job summary and
# the step's outputs, and posts it (one comment edited in place, a check
# run) when the token can write, or leaves it as an artifact directory for
# the companion workflow when the pull request comes from a fork.
#
# Environment: GITHUB_EVENT_PATH, GITHUB_WORKSPACE, GITHUB_ACTION_PATH,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_API_URL, GITHUB_TOKEN,
# RUNNER_TEMP, and the action's inputs as PERFBOT_INPUT_*.
set -euo pipefail

die() { echo "perfbot action: $*" >&2; exit 2; }

: "${GITHUB_EVENT_PATH:?GITHUB_EVENT_PATH is not set: run on a pull_request event}"
: "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
command -v jq >/dev/null || die "jq is needed to read the event"
command -v go >/dev/null || die "go is needed to build perfbot (set the go-version input, or actions/setup-go before this step)"

workspace=${PERFBOT_INPUT_REPO:-${GITHUB_WORKSPACE:-.}}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
answer_dir=${PERFBOT_INPUT_ARTIFACT_DIR:-$tmp/perfbot-answer}
instrument=${PERFBOT_INPUT_INSTRUMENT:-auto}
answer=${PERFBOT_INPUT_ANSWER:-comment,check,summary}

event_name=${GITHUB_EVENT_NAME:-pull_request}
case $event_name in
pull_request | pull_request_target) ;;
*) die "event $event_name: this step answers pull_request events (see docs/ci.md for pushes: perfbot track)" ;;
esac

jqr() { jq -er "$1" "$GITHUB_EVENT_PATH" || die "$GITHUB_EVENT_PATH: no $1 (is this a pull_request event's payload?)"; }
pr=$(jqr '.pull_request.number')
base_sha=$(jqr '.pull_request.base.sha')
head_sha=$(jqr '.pull_request.head.sha')
base_repo=$(jqr '.pull_request.base.repo.full_name')
head_repo=$(jq -r '.pull_request.head.repo.full_name // ""' "$GITHUB_EVENT_PATH")
[[ $pr =~ ^[0-9]+$ ]] || die "pull_request.number $pr: want a number"
[[ $base_sha =~ ^[0-9a-f]{40}$ && $head_sha =~ ^[0-9a-f]{40}$ ]] || die "pull_request.base.sha / head.sha: want 40 hex digits"
[[ $base_repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || die "pull_request.base.repo.full_name $base_repo: want OWNER/REPO"

# A fork's pull request (or one whose head repository was deleted) runs
# with a read-only token: post nothing, leave the answer as an artifact.
fork=false
if [[ $head_repo != "$base_repo" ]]; then
	fork=true
fi
# pull_request_target gives the job a write token and the base repository's
# secrets; measuring a fork's head there would build and run the fork's code
# beside them. Refuse before anything is built.
if [[ $fork == true && $event_name == pull_request_target ]]; then
	die "pull request #$pr comes from ${head_repo:-a deleted fork}: pull_request_target would run its code with a write token; run the action on pull_request and post with the workflow_run companion (docs/ci.md)"
fi

key=gha-$pr
if [[ -n ${PERFBOT_INPUT_KEY:-} ]]; then
	[[ $PERFBOT_INPUT_KEY =~ ^[A-Za-z0-9._-]{1,64}$ ]] || die "key $PERFBOT_INPUT_KEY: want letters, digits, . _ -"
	key=$key-$PERFBOT_INPUT_KEY
fi

# Both commits must be in the checkout (actions/checkout with
# fetch-depth: 0 has them; a shallow one is deepened here).
for sha in "$base_sha" "$head_sha"; do
	if ! git -C "$workspace" cat-file -e "$sha^{commit}" 2>/dev/null; then
		git -C "$workspace" fetch -q --no-tags origin "$sha" || die "commit $sha is not in $workspace and could not be fetched: check out with fetch-depth: 0"
	fi
done
merge_base=$(git -C "$workspace" merge-base "$base_sha" "$head_sha") ||
	die "no merge base of $base_sha and $head_sha in $workspace: check out with fetch-depth: 0"

# perfbot from the action's own checkout, built once per job.
perfbot=${PERFBOT_BIN:-$tmp/perfbot-action/perfbot}
if [[ ! -x $perfbot ]]; then
	mkdir -p "$(dirname "$perfbot")"
	(cd "$GITHUB_ACTION_PATH" && go build -o "$perfbot" ./cmd/perfbot) || die "building perfbot from $GITHUB_ACTION_PATH failed"
fi

# The head is named pr-N in the answer: a branch of the job's checkout.
git -C "$workspace" update-ref "refs/heads/pr-$pr" "$head_sha"
args=(compare --repo "$workspace" --base "$merge_base" --head "pr-$pr"
	--instrument "$instrument" --format markdown --key "$key" --answer-out "$answer_dir" -q)
[[ -n ${PERFBOT_INPUT_CONFIG:-} ]] && args+=(--config "$PERFBOT_INPUT_CONFIG")
suites=${PERFBOT_INPUT_SUITES:-}
for s in ${suites//,/ }; do
	args+=(--suite "$s")
done
if [[ -n ${PERFBOT_INPUT_DB:-} ]]; then
	args+=(--db "$PERFBOT_INPUT_DB")
fi
if [[ -n ${PERFBOT_INPUT_ARGS:-} ]]; then
	read -r -a extra <<<"$PERFBOT_INPUT_ARGS"
	args+=("${extra[@]}")
fi

post=false
if [[ $fork == false && ( ,$answer, == *,comment,* || ,$answer, == *,check,* ) ]]; then
	post=true
	args+=(--post "github:$base_repo#$pr")
	export PERFBOT_GITHUB_URL=${PERFBOT_GITHUB_URL:-${GITHUB_API_URL:-https://api.github.com}}
	# A workflow's GITHUB_TOKEN cannot ask GET /user who it is.
	export PERFBOT_GITHUB_LOGIN=${PERFBOT_GITHUB_LOGIN:-github-actions[bot]}
	if [[ ,$answer, == *,check,* ]]; then
		export PERFBOT_GITHUB_CHECKS=true
	fi
fi

echo "perfbot action: pull request #$pr, merge base ${merge_base:0:12} against head ${head_sha:0:12}, instrument $instrument$([[ $fork == true ]] && echo ', from a fork: nothing is posted here')" >&2
rm -rf "$answer_dir"
status=0
"$perfbot" "${args[@]}" >"$tmp/perfbot-report.md" || status=$?

# The summary and outputs are written whatever happened.
if [[ -f $answer_dir/answer.md ]]; then
	if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
		cat "$answer_dir/answer.md" >>"$GITHUB_STEP_SUMMARY"
	fi
	if [[ -n ${GITHUB_OUTPUT:-} ]]; then
		{
			echo "verdict=$(jq -r .state "$answer_dir/result.json")"
			echo "summary=$(jq -r '.summary | gsub("[\r\n]"; " ")' "$answer_dir/result.json")"
			for c in better worse same noisy added removed; do
				echo "$c=$(jq -r ".$c" "$answer_dir/result.json")"
			done
			echo "answer-dir=$answer_dir"
			echo "fork=$fork"
			echo "posted=$post"
		} >>"$GITHUB_OUTPUT"
	fi
elif [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	echo "perfbot: no answer (exit status $status); see the step's log." >>"$GITHUB_STEP_SUMMARY"
fi

if [[ $fork == true && -f $answer_dir/answer.json ]]; then
	# What the companion workflow checks before it posts.
	jq -n --argjson pr "$pr" --arg sha "$head_sha" --arg key "$key" \
		'{pr: $pr, head_sha: $sha, key: $key}' >"$answer_dir/meta.json"
	echo "perfbot action: the answer for the fork's pull request is in $answer_dir (upload it as the artifact perfbot-answer)" >&2
fi
exit "$status"
