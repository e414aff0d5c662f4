#!/bin/sh
# Starts a judge worker (node judge/src/main.ts) in a container. The sandbox needs root and a privileged
# container: it creates cgroups, mounts the boxes' tmpfs and switches to the slots' uids.
set -eu

# cgroup v2 with a private cgroup namespace (Docker's default, and Kubernetes on cgroup v2): the container's
# own cgroup is the root of /sys/fs/cgroup. The judge enables the memory, pids and cpu controllers for its
# run cgroups there, which cgroup v2 allows only in a cgroup holding no processes of its own, so this
# container's processes move to a leaf first. Skipped on cgroup v1 and when the namespace is the host's.
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ "$(cat /proc/self/cgroup)" = "0::/" ]; then
  mkdir -p /sys/fs/cgroup/otog-init
  for pid in $(cat /sys/fs/cgroup/cgroup.procs); do
    echo "$pid" > /sys/fs/cgroup/otog-init/cgroup.procs 2>/dev/null || true
  done
fi

# Kubernetes: each worker is named after its pod, and its token is the file of that name in the mounted
# Secret (k8s/judge.yaml). Compose sets OTOG_JUDGE_TOKEN directly.
tokens=/var/run/secrets/otog-judge
if [ -z "${OTOG_JUDGE_TOKEN:-}" ] && [ -n "${OTOG_JUDGE_WORKER:-}" ] && [ -f "$tokens/$OTOG_JUDGE_WORKER" ]; then
  OTOG_JUDGE_TOKEN=$(cat "$tokens/$OTOG_JUDGE_WORKER")
  export OTOG_JUDGE_TOKEN
fi

exec node judge/src/main.ts
