#!/usr/bin/env bash
# print_numpy.sh - runs tests/print_numpy.py (cuk's printed notation and
# digits against NumPy's) with a python3 that has numpy; skips without one.
set -u
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy' >/dev/null 2>&1; then
        exec "$py" "$(dirname "$0")/print_numpy.py"
    fi
done
echo "SKIP print_numpy: python3 with numpy not found"
