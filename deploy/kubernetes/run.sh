#!/usr/bin/env bash
# Runs a plan on a Kubernetes cluster as N shards and merges them: the shards Job of job.yaml,
# then the merge Job of merge-job.yaml, each created anew (a second run runs), with N set once
# for completions, parallelism and SHARDS. Prints the merged Markdown summary and exits with
# merge's code: 0 passed, 1 a threshold failed or a shard is missing, 2 bad input, 130 a shard
# was cut short. Needs kubectl, pointed at the cluster and namespace to use.
#
# The cluster needs the image first. Build it, then load it into the nodes or push it:
#   docker build -f deploy/Dockerfile -t survey-bot:0.1.0 .
#   kind load docker-image survey-bot:0.1.0            # kind
#   minikube image load survey-bot:0.1.0               # minikube
#   docker tag survey-bot:0.1.0 registry.example.com/survey-bot:0.1.0 \
#     && docker push registry.example.com/survey-bot:0.1.0   # any other: --image registry.example.com/…
# and say where to send the load (and, if the plan uses ${SURVEY_TOKEN}, the token):
#   kubectl create configmap survey-bot-target --from-literal=TARGET=https://survey.staging.example
#   kubectl create secret generic survey-bot --from-literal=token=…
#
#   deploy/kubernetes/run.sh [--shards N] [--image IMAGE] [--plan /plans/NAME.plan]
set -euo pipefail
here=$(dirname "$0")

shards=4
image=survey-bot:0.1.0
plan=/plans/stress.plan
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) shards=$2; shift 2 ;;
        --image) image=$2; shift 2 ;;
        --plan) plan=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case "$plan$image" in *[\"\\]*) echo "run.sh: no quotes or backslashes in --plan or --image" >&2; exit 2 ;; esac
case "$shards" in '' | *[!0-9]* | 0) echo "run.sh: --shards takes a number from 1, not '$shards'" >&2; exit 2 ;; esac

# Without the ConfigMap no pod would start, and the Job would wait out its deadline.
kubectl get configmap survey-bot-target >/dev/null ||
    { echo "run.sh: create the survey-bot-target ConfigMap first (see --help)" >&2; exit 2; }
kubectl apply -f "$here/reports-pvc.yaml" >/dev/null

# Waits until the Job has ended, Complete or Failed, and prints which. A pod that cannot start
# (its image cannot be pulled, a ConfigMap key is missing) ends the wait at once, with the reason:
# it would otherwise wait out the Job's deadline.
wait_for() {
    local job=$1 state reasons
    while :; do
        state=$(kubectl get "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
        case " $state" in *" Complete "*) echo Complete; return ;; *" Failed "*) echo Failed; return ;; esac
        reasons=$(kubectl get pods -l "batch.kubernetes.io/job-name=${job#*/}" \
            -o jsonpath='{range .items[*]}{.status.containerStatuses[*].state.waiting.reason}{" "}{end}')
        case "$reasons" in
            *ErrImagePull* | *ImagePullBackOff* | *ErrImageNeverPull* | *InvalidImageName* | *CreateContainerConfigError*)
                echo "run.sh: $job cannot start its pods ($reasons): is $image loaded into the nodes or pushed (see --help)?" >&2
                kubectl delete "$job" --wait=false >/dev/null
                return 1 ;;
        esac
        sleep 5
    done
}

echo "run.sh: $plan as $shards shards, image $image"
# One JSON patch per Job (kubectl set env/image --local print nothing when nothing changes). The
# "test" operations stop it, loudly, if the manifest's containers or env were reordered.
c=/spec/template/spec/containers/0
shards_job=$(kubectl patch --local -f "$here/job.yaml" --type=json -o yaml -p "[
        {\"op\": \"replace\", \"path\": \"/spec/completions\", \"value\": $shards},
        {\"op\": \"replace\", \"path\": \"/spec/parallelism\", \"value\": $shards},
        {\"op\": \"test\", \"path\": \"$c/env/0/name\", \"value\": \"SHARDS\"},
        {\"op\": \"replace\", \"path\": \"$c/env/0/value\", \"value\": \"$shards\"},
        {\"op\": \"test\", \"path\": \"$c/env/1/name\", \"value\": \"PLAN\"},
        {\"op\": \"replace\", \"path\": \"$c/env/1/value\", \"value\": \"$plan\"},
        {\"op\": \"replace\", \"path\": \"$c/image\", \"value\": \"$image\"}]" |
    kubectl create -f - -o name)
run_id=$(kubectl get "$shards_job" -o jsonpath='{.metadata.uid}')
echo "run.sh: $shards_job, run id $run_id"
ended=$(wait_for "$shards_job") || exit 2
if [ "$ended" = Failed ]; then
    # A failed shard is named by the merge as missing (or interrupted, at the deadline); the
    # shards that finished are still merged.
    echo "run.sh: $shards_job failed: $(kubectl get "$shards_job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}') (failed indexes: $(kubectl get "$shards_job" -o jsonpath='{.status.failedIndexes}'))" >&2
fi

merge_job=$(kubectl patch --local -f "$here/merge-job.yaml" --type=json -o yaml -p "[
        {\"op\": \"test\", \"path\": \"$c/env/0/name\", \"value\": \"RUN_ID\"},
        {\"op\": \"replace\", \"path\": \"$c/env/0/value\", \"value\": \"$run_id\"},
        {\"op\": \"replace\", \"path\": \"$c/image\", \"value\": \"$image\"}]" |
    kubectl create -f - -o name)
echo "run.sh: $merge_job"
wait_for "$merge_job" >/dev/null || exit 2
kubectl logs "$merge_job"
status=$(kubectl get pods -l "batch.kubernetes.io/job-name=${merge_job#*/}" \
    -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}')
echo "run.sh: merge exited ${status:-?}; reports in the survey-bot-reports volume, runs/$run_id/"
exit "${status:-2}"
