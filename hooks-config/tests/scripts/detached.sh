#!/usr/bin/env bash
# Starts a grandchild that escapes the hook's process group and session:
# `setsid`, then a double fork (sh starts `sleep` in the background and
# exits). The sleep's pid goes to "$1", this script's parent's to "$1.parent";
# then the hook exits ("$2" = exit) or hangs past its timeout ("$2" = hang).
echo $PPID > "$1.parent"
setsid sh -c 'sleep 987654 & echo $! > "$1.tmp"; mv "$1.tmp" "$1"' sh "$1" \
    < /dev/null > /dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.01; done
if [ "$2" = hang ]; then exec sleep 987654; fi
