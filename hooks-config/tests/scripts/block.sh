#!/usr/bin/env bash
# Blocks with exit 2; stderr is the reason.
cat > /dev/null
echo "blocked by policy: ask an operator" >&2
exit 2
