#!/usr/bin/env bash
# Starts a grandchild and outlives any sane timeout; both must be killed.
sleep 300 &
echo $! > "$1"
sleep 300
