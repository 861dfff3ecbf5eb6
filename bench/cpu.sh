#!/usr/bin/env bash
# cpu.sh - the host modes side by side on the seeded 1037x1055x1031
# product: the textbook loop (cpu) against the system BLAS (blas), with the
# speedup and the relative difference of their results.
set -u
cd "$(dirname "$0")/.." || exit 1
"${CUK:-./cuk}" -e 'seed 1; A = rand(1037, 1055); B = rand(1055, 1031); info; bench A @ B'
