#!/usr/bin/env bash
# commands.sh - the commands whose output depends on the machine (timings,
# devices) and the ways of starting cuk: each case runs cuk and checks its
# exit status and the lines its output must hold.
. "$(dirname "$0")/lib.sh"

gpu=0
"$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable && gpu=1

check start_e 0 '^x = 3$' -- "$cuk" -e 'x = 1 + 2'
check start_pipe 0 '^y = 4$' -- sh -c "echo 'y = 2 * 2' | '$cuk'"
printf 'z = 5\n' >z.cuk
check start_file 0 '^z = 5$' -- "$cuk" z.cuk
check start_redirect 0 '^z = 5$' -- sh -c "'$cuk' < z.cuk"
printf '#!/usr/bin/env cuk\nw = 6\n' >w.cuk
chmod +x w.cuk
check start_shebang 0 '^w = 6$' -- env PATH="$(dirname "$cuk"):$PATH" ./w.cuk
check start_help_flag 0 '^usage: cuk' -- "$cuk" --help
check start_version 0 '^cuk [0-9]' -- "$cuk" --version
check start_bad_flag 2 'unexpected argument' -- "$cuk" --frobnicate
check start_missing_file 1 "cannot open 'nope.cuk'" -- "$cuk" nope.cuk
check pipe_error_status 1 '^<stdin>:2:5: error: .x. is not defined' -- sh -c "printf 'a = 1\nb = x\nc = 3\n' | '$cuk'"

check modes 0 '^[ *] cpu +host +textbook' '^[ *] blas +host' '^[ *] naive +GPU' '^[ *] tiled +GPU' \
    '^[ *] fast +GPU' '^[ *] cublas +GPU' '^[ *] multi +GPU +(every GPU: row slabs|unavailable: [a-z])' -- \
    "$cuk" -e 'modes'
# A build without CUDA says why wherever it explains a GPU mode it lacks:
# left out on purpose (WITH_CUDA=0), or nvcc not found; never the other.
if "$cuk" --version | grep -q 'CUDA left out'; then
    check no_cuda_left_out 0 'naive +GPU +unavailable: cuk was built without CUDA \(left out of the build: WITH_CUDA=0\)$' \
        '^device: +none \(cuk was built without CUDA \(left out' 'naive +unavailable: cuk was built without CUDA \(left' \
        '!nvcc not found' -- "$cuk" -e 'modes; info; bench cpu naive: 1 + 1'
    check no_cuda_left_out_mode 1 'mode naive is unavailable: cuk was built without CUDA \(left out of the build' -- \
        "$cuk" -e 'mode naive'
elif "$cuk" --version | grep -q 'no CUDA'; then
    check no_cuda_not_found 0 'unavailable: cuk was built without CUDA \(nvcc not found at build time\)' '!left out' -- \
        "$cuk" -e 'modes; info'
else
    echo "SKIP no_cuda_left_out: this build has CUDA (a build without it checks this: make BUILD=build-cpu WITH_CUDA=0 test)"
fi
check help_modes_multi 0 '^  multi +GPU +every GPU: row slabs on each' -- "$cuk" -e 'help modes'
check mode_show 0 '^mode cpu: ' -- "$cuk" -e 'mode cpu; mode'
check mode_select 0 '^mode blas: ' -- "$cuk" -e 'mode blas; mode'
if [ $gpu = 0 ]; then
    check mode_gpu_unavailable 1 'mode naive is unavailable: ' -- "$cuk" -e 'mode naive'
    check mode_multi_unavailable 1 'mode multi is unavailable: [a-z]' -- "$cuk" -e 'mode multi'
    check default_mode_cpu 0 '^mode cpu' -- "$cuk" -e 'mode'
else
    check default_mode_tiled 0 '^mode tiled' -- "$cuk" -e 'mode'
fi
check who 0 'name +shape +size +where' '^  A +3x4 +48 B +host$' '^  total: 2 matrices' -- \
    "$cuk" -e 'mode cpu; A = ones(3, 4); b = 2; who'
check who_empty 0 '^no variables$' -- "$cuk" -e 'who'
check clear_some 0 '^  b ' -- sh -c "'$cuk' -e 'A = 1; b = 2; clear A; who' | grep -v ' A '"
check clear_all 0 '^no variables$' -- "$cuk" -e 'A = 1; b = 2; clear; who'
check seed 0 '^same = 0$' -- "$cuk" -e 'mode cpu; seed 5; a = rand(3); seed 5; b = rand(3); same = max(abs(a - b))'
check bench 0 'mode +runs +kernel +± +end-to-end +± +e2e vs cpu' '^  cpu +[0-9]+ .* 1\.00x' \
    '^  blas +[0-9]+ .*[0-9.]+x' 'rate +% peak +vs cpu +vs blas +step' '^  mode .*error$' -- \
    "$cuk" -e 'A = rand(64, 64); B = rand(64, 64); bench A @ B'
check timeit_n 0 '^10 runs: median .* per run, range .*–.*; kernels .* \(range .*\)' -- \
    "$cuk" -e 'mode blas; A = rand(64); timeit 10 C = A @ A'
check timeit_auto 0 '^([3-9]|[1-9][0-9]+) runs: median ' -- "$cuk" -e 'mode blas; A = rand(64); timeit C = A @ A'
check time_on 0 '^  blas +matmul +64x64 @ 64x64 .*FLOP/s' '^  blas: kernels .*, wall ' -- \
    "$cuk" -e 'mode blas; A = rand(64); time on; C = A @ A;'
# One run against one run is no speedup: `time on` shows none (bench does).
check time_no_speedup 0 '^  blas: kernels' -- sh -c "'$cuk' -e 'A = rand(64); mode cpu; time on; C = A @ A; mode blas; C = A @ A;' | grep -v 'the cpu'"
check info 0 '^host: .*cores \([0-9]+ logical\)' '^host FP32: .* x 2 x ' '^host memory: [0-9.]+ GB/s' \
    '^(device:|FP32:)' -- "$cuk" -e 'info'
if [ $gpu = 1 ]; then # every GPU; with two or more, their links, measured
    check info_gpus 0 '^GPUs: +([0-9]+ visible \(|1 visible: mode multi runs on it alone$|[0-9]+ visible; mode multi is unavailable: )' -- \
        "$cuk" -e 'info'
fi
check kernels_host 0 'runs on the host' -- "$cuk" -e 'mode cpu; kernels'
# User kernels (kernel "file.cu"): the lab's exercises beside the binary;
# a file that does not compile stops a script at the `kernel` line, after
# the compiler's message at the file's line and column.
check help_lab 0 '^  1-naive$' '^      Exercise 1: the naive product' '^  5-transpose$' 'cuk FOLDER/check.cuk' -- \
    "$cuk" -e 'help lab'
printf 'extern "C" __global__ void cuk_sum(float *out, const float *in, int n)\n{\n    *out = in[0] +;\n}\n' >oops.cu
printf 'x = 1\nkernel "oops.cu"\ny = 2\n' >oops.cuk
check kernel_error_script 1 '^oops.cu:3:19: error: expected an expression$' '^      \*out = in\[0\] \+;$' \
    '^                    \^$' '^oops.cuk:2:8: error: kernel: oops.cu did not compile \(1 error\)$' '!^y = 2' -- \
    "$cuk" oops.cuk
check panel_script 1 'panel: needs an interactive terminal' -- "$cuk" -e 'panel on'
check format 0 '^p = 3.1415927$' '^q = 3.1416$' -- "$cuk" -e 'format long; p = 3.14159265, format short; q = p'
for t in language functions commands modes files keys; do
    check "help_$t" 0 '.' -- "$cuk" -e "help $t"
done
check help_functions_lists 0 '^  rand\(n\), rand\(m, n\)' '^  load\("file"\)' -- "$cuk" -e 'help functions'
check help_commands_lists 0 '^  mode \[name\] ' '^  timeit \[N\] STMT ' -- "$cuk" -e 'help commands'
check exit_command 0 '^a = 1$' -- "$cuk" -e 'a = 1, exit; b = 2'
