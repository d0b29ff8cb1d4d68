#!/bin/bash
# Runs one command in an image's root filesystem as a container runtime would, for the build's
# RUN steps and the image tests (infra/image/rootfs-process.ts starts it under
# `unshare --mount --pid --fork`, so every mount below goes with the process): the root (an
# overlay of the layers for a RUN, whose upper directory is the new layer), /proc of its own pid
# namespace, a /dev with the usual character devices only, files bound where a pod would mount
# them, the root read-only when asked, then chroot, working directory, uid and gid. The network
# is the host's: loopback reaches the test control plane.
#
# usage: in-rootfs.sh ROOT WORKDIR UID GID ro|rw ENVFILE [--overlay LOWER UPPER WORK] [--bind SRC DST]... -- CMD [ARG]...
# ENVFILE: the process's whole environment, NUL-separated NAME=value entries.
set -euo pipefail
root=$1 wd=$2 uid=$3 gid=$4 mode=$5 envfile=$6
shift 6
mount --make-rprivate /
if [ "$1" = --overlay ]; then
  mount -t overlay overlay -o "lowerdir=$2,upperdir=$3,workdir=$4" "$root"
  shift 4
else
  mount --bind "$root" "$root"
fi
while [ "$1" = --bind ]; do
  # The mount point is made as a runtime makes it (an empty file or directory in the root).
  if [ -d "$2" ]; then mkdir -p "$root$3"; else mkdir -p "$(dirname "$root$3")" && touch "$root$3"; fi
  mount --bind "$2" "$root$3"
  mount -o remount,bind,ro "$root$3"
  shift 3
done
[ "$1" = -- ] && shift
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=755,nosuid dev "$root/dev"
for d in null zero full random urandom tty; do
  touch "$root/dev/$d"
  mount --bind "/dev/$d" "$root/dev/$d"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
if [ "$mode" = ro ]; then mount -o remount,bind,ro "$root"; fi
mapfile -d '' env < "$envfile"
# env -i: the command sees the image's environment and the pod's, nothing of this script's.
exec unshare --root="$root" --wd="$wd" --setgid="$gid" --setuid="$uid" -- /usr/bin/env -i "${env[@]}" "$@"
