# Makefile - builds cuk, its tests, and runs them.
#
#   make            build $(BUILD)/cuk (and ./cuk, a link to it, for BUILD=build)
#   make run        build and start the REPL
#   make test       build and run every test (GPU tests skip without a GPU)
#   make bench      on a GPU machine: every ratio of kernels/PERF.md, in one run
#   make asan       CPU-only build under AddressSanitizer/UBSan, and every test
#   make fuzz SECONDS=60   libFuzzer over sessions, .npy/.csv loading, and saves
#                   and loads among links, pipes and devices (clang)
#   make valgrind   memcheck over the golden scripts and the fuzz regressions
#   make install PREFIX=/usr/local
#   make deb        a Debian package: $(BUILD)/cuk_VERSION_ARCH.deb
#   make clean      remove $(BUILD) (and ./cuk for BUILD=build)
#
# Each BUILD= folder holds its own objects, tests and binary, so builds with
# different options (e.g. BUILD=build-cpu WITH_CUDA=0) do not overwrite
# each other.
#
# Optional parts are probed and can be forced: WITH_CUDA=0|1,
# WITH_READLINE=0|1, WITH_NCURSES=0|1, WITH_BLAS=0|1. Everything below with
# ?= can be overridden on the command line or in the environment.

# The files build in parallel, a job a core, unless a -j was given (which
# wins) or this is a sub-make (which shares its parent's jobs).
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

CC        ?= cc
CFLAGS    ?= -O2 -g
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
NVCCFLAGS ?= -O3 -g -lineinfo
PREFIX    ?= /usr/local
BUILD     ?= build
BIN       := $(BUILD)/cuk

# probe_c: 1 if a program including header $(1) links with flags $(2).
H := \#
, := ,
probe_c = $(shell printf '$(H)include <stdio.h>\n$(H)include <$(1)>\nint main(void){return 0;}\n' | \
            $(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo 1 || echo 0)

# Whether WITH_CUDA was given (CUDA left out on purpose) or is probed (nvcc
# not found): a build without CUDA says which (kernels/gpu_none.c).
CUDA_ORIGIN   := $(origin WITH_CUDA)
WITH_CUDA     ?= $(shell test -x $(NVCC) && echo 1 || echo 0)
# The GPU architectures to build SASS for, plus PTX for the newest, which
# newer GPUs JIT. By default the GPUs present, as nvidia-smi reports their
# compute capability; with none, sm_90 alone: the Hopper GPUs cuk is
# measured on (kernels/PERF.md) run its SASS, and a newer GPU its PTX.
# `make CUDA_ARCH=all` builds every architecture CUDA 13 has, Turing on
# (75 80 86 89 90); CUDA_ARCH=90 or CUDA_ARCH="80 90" builds those.
CUDA_ARCH_ALL := 75 80 86 89 90
ifeq ($(origin CUDA_ARCH),undefined)
CUDA_ARCH := $(if $(filter 1,$(WITH_CUDA)),$(or $(shell nvidia-smi --query-gpu=compute_cap \
                --format=csv,noheader 2>/dev/null | tr -d . | grep -xE '[0-9]+' | sort -un),90))
endif
ifeq ($(CUDA_ARCH),all)
override CUDA_ARCH := $(CUDA_ARCH_ALL)
endif
# Mode multi moves data between GPUs with NCCL, opened with dlopen like
# cuBLAS; only its header is needed to build (the toolkit ships it).
WITH_NCCL     ?= $(shell test -f $(CUDA_HOME)/include/nccl.h && echo 1 || echo 0)
WITH_READLINE ?= $(call probe_c,readline/readline.h,-lreadline)
WITH_NCURSES  ?= $(call probe_c,ncurses.h,-lncursesw)
# Mode blas opens the system's BLAS with dlopen when first wanted
# (kernels/blas.c: OpenBLAS, else libblas.so.3, or the file CUK_BLAS names),
# so nothing BLAS is needed to build, and nothing is linked.
WITH_BLAS ?= 1
# The reference BLAS (Debian's libblas3), where installed: test_blas is also
# built as test_blas_reference, which has mode blas load this file, so that
# mode blas is checked with both it and the default (OpenBLAS in CI).
REF_BLAS_DIR  ?= /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)/blas
REF_BLAS_FILE := $(wildcard $(REF_BLAS_DIR)/libblas.so.3)
# Run each probe once, not at every use.
WITH_CUDA := $(WITH_CUDA)
CUDA_ARCH := $(CUDA_ARCH)
WITH_NCCL := $(WITH_NCCL)
WITH_READLINE := $(WITH_READLINE)
WITH_NCURSES := $(WITH_NCURSES)
WITH_BLAS := $(WITH_BLAS)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
# No fused multiply-add contraction: the host's random numbers must match
# the device's bit for bit (kernels/philox.h).
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. $(WARN) \
             -ffp-contract=off -MMD -MP $(CFLAGS) $(FEATURES)
LDLIBS   = -lm
FEATURES =

BASE_SRC   := $(wildcard base/*.c)
ENGINE_SRC := $(wildcard engine/*/*.c)
# Every kernels/*.c but the no-GPU stubs, which only a build without CUDA takes.
KERNEL_SRC := $(filter-out kernels/gpu_none.c,$(wildcard kernels/*.c kernels/fast/*.c))
REPL_SRC   := $(wildcard repl/*.c)
CU_SRC     :=

ifeq ($(WITH_BLAS),1)
FEATURES += -DCUK_HAVE_BLAS=1
endif
# `kernel "file.cu"` opens NVRTC with dlopen (kernels/nvrtc.c): where the
# run path does not lead to it (a build without CUDA), the toolkit's lib64.
FEATURES += -DCUK_CUDA_LIB='"$(CUDA_HOME)/lib64"'

ifeq ($(WITH_CUDA),1)
CU_SRC    := $(wildcard kernels/*.cu kernels/fast/*.cu)
FEATURES  += -DCUK_HAVE_CUDA=1 -I$(CUDA_HOME)/include
ifeq ($(WITH_NCCL),1)
FEATURES  += -DCUK_HAVE_NCCL=1
else
CU_SRC    := $(filter-out kernels/gpu_multi.cu,$(CU_SRC))
endif
# cuBLAS is not linked: kernels/gpu_cublas.cu opens it with dlopen when mode
# cublas is first wanted, so that cuk starts in milliseconds and runs where
# the toolkit is absent; the run path is where that dlopen looks. The CUDA
# runtime is static: it opens the driver (libcuda.so.1) itself on first use.
LDLIBS    += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
             -lcudart_static -lstdc++ -lrt -lpthread
GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode=arch=compute_$(a),code=sm_$(a)) \
             -gencode=arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
else
KERNEL_SRC += kernels/gpu_none.c
ifneq ($(CUDA_ORIGIN),undefined)
FEATURES  += -DCUK_CUDA_LEFT_OUT=1
endif
endif

# dlopen, dlsym, dladdr (the BLAS, cuBLAS), and mode blas's thread pool
# (kernels/host_threads.c); in libc itself since glibc 2.34.
LDLIBS += -ldl -lpthread

ifeq ($(WITH_READLINE),1)
FEATURES += -DCUK_HAVE_READLINE=1
REPL_LIBS += -lreadline
endif
ifeq ($(WITH_NCURSES),1)
FEATURES += -DCUK_HAVE_NCURSES=1
REPL_LIBS += -lncursesw
endif

# The CUDA files first, the fast wing's (the longest) leading: a parallel
# build starts them at once, and the short C files fill in around them.
CORE_OBJ := $(patsubst %.cu,$(BUILD)/%.o,$(filter kernels/fast/%,$(CU_SRC)) $(filter-out kernels/fast/%,$(CU_SRC))) \
            $(patsubst %.c,$(BUILD)/%.o,$(BASE_SRC) $(ENGINE_SRC) $(KERNEL_SRC))
REPL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(REPL_SRC))

UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
ifeq ($(WITH_BLAS)$(if $(REF_BLAS_FILE),1,0),11)
UNIT_BIN  += $(BUILD)/tests/test_blas_reference
endif
GPU_TEST  := $(BUILD)/tests/gpu_test

# The fuzz targets (fuzz/), and for `make test` a replay of each one's
# regressions and starting corpus through the same target built with $(CC).
FUZZ_TARGETS   := session npy csv files
FUZZ_SRC_session := fuzz/fuzz_session.c
FUZZ_SRC_files := fuzz/fuzz_files.c
FUZZ_SRC_npy   := fuzz/fuzz_file.c
FUZZ_SRC_csv   := fuzz/fuzz_file.c
FUZZ_DEF_npy   := -DFUZZ_EXT='".npy"'
FUZZ_DEF_csv   := -DFUZZ_EXT='".csv"'
# The sandbox and budget of fuzz/harness.c: the engine's calls to these go
# to __wrap_NAME there, in one object made from the core objects.
FUZZ_WRAP      := --wrap=fopen --wrap=mkstemp --wrap=rename --wrap=unlink --wrap=stat \
                  --wrap=mat_new --wrap=mat_new_host --wrap=cuk_check_interrupt
FUZZ_ENGINE    := $(BUILD)/fuzz/engine_sandboxed.o
FUZZ_DEPS      := fuzz/harness.c fuzz/harness.h fuzz/fuzz_session.c fuzz/fuzz_file.c fuzz/fuzz_files.c $(FUZZ_ENGINE)
FUZZ_REPLAY    := $(patsubst %,$(BUILD)/tests/test_fuzz_replay_%,$(FUZZ_TARGETS))
FUZZ_BIN       := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
UNIT_BIN       += $(FUZZ_REPLAY)

.PHONY: all run test bench asan fuzz fuzz-targets valgrind install deb clean config
all: cuk

$(BIN): $(CORE_OBJ) $(REPL_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(REPL_LIBS) $(LDLIBS)

# `make cuk` builds this BUILD's binary; for the default folder, ./cuk is
# also a link to build/cuk, so that ./cuk and the README's commands work.
ifeq ($(abspath $(BUILD)),$(abspath build))
cuk: $(BIN)
	ln -sfn $(BIN) $@
else
.PHONY: cuk
cuk: $(BIN)
endif

run: $(BIN)
	$(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# Mode blas's loops (sums in lanes, elementwise blocks) are written for the
# vectoriser, which GCC runs only from -O3.
$(BUILD)/kernels/blas_host.o: ALL_CFLAGS += -O3

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -I. -std=c++17 -Xcompiler -Wall \
	    $(NVCC_EXTRA) -MMD -MP -c $< -o $@

# The Hopper kernel of mode tf32x3 (wgmma) needs the
# arch-specific sm_90a target; its sm_90 code is replaced by it (the driver
# then loads the kernel on cc 9.0), and the other targets build its stub.
ifneq ($(filter 90,$(CUDA_ARCH)),)
$(BUILD)/kernels/gpu_tf32x3_sm90.o: GENCODE := $(filter-out -gencode=arch=compute_90$(,)code=sm_90,$(GENCODE)) \
    -gencode=arch=compute_90a,code=sm_90a
endif

# No fused multiply-add in the random-number kernels: the host's and the
# device's random numbers must be bit-identical, and the host side is built
# with -ffp-contract=off (kernels/philox.h).
$(BUILD)/kernels/gpu_random.o: NVCC_EXTRA = -fmad=false

$(BUILD)/tests/%: tests/unit/%.c tests/check.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

# test_blas again, with mode blas on the reference BLAS.
$(BUILD)/tests/test_blas_reference: tests/unit/test_blas.c tests/check.h tests/ops_check.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DCUK_TEST_BLAS_FILE='"$(REF_BLAS_FILE)"' $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

$(FUZZ_ENGINE): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $@ $(CORE_OBJ) $(FUZZ_WRAP)

$(FUZZ_REPLAY): $(BUILD)/tests/test_fuzz_replay_%: tests/fuzz/replay.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_DEF_$*) -DFUZZ_TARGET='"$*"' \
	    -DREPLAY_DIRS='"tests/fuzz/regressions/$*:fuzz/corpus/$*"' $(LDFLAGS) -o $@ \
	    tests/fuzz/replay.c $(FUZZ_SRC_$*) fuzz/harness.c $(FUZZ_ENGINE) $(LDLIBS)

$(FUZZ_BIN): $(BUILD)/fuzz/fuzz_%: $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_DEF_$*) -fsanitize=fuzzer $(LDFLAGS) -o $@ \
	    $(FUZZ_SRC_$*) fuzz/harness.c $(FUZZ_ENGINE) $(LDLIBS)

fuzz-targets: $(FUZZ_BIN)

# gpu_test is tests/gpu/gpu_test.c, which includes the other files of
# tests/gpu/: one translation unit.
$(GPU_TEST): tests/gpu/gpu_test.c $(wildcard tests/gpu/*.c) tests/check.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

# The benchmark programs (bench/perf_*.c): each measures cuk's kernels and
# the reference they are compared with (cuBLAS, cublasSdot, the device copy,
# NumPy's BLAS) in one process, turn about; bench/perf.sh runs them all and
# PyTorch beside them, and ends with the table of ratios.
PERF_SRC := $(wildcard bench/perf_*.c)
PERF_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(PERF_SRC))
$(BUILD)/bench/%: bench/%.c bench/perf.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

bench: cuk $(PERF_BIN)
	@CUK=$(BIN) BUILD=$(BUILD) bench/perf.sh

test: cuk $(UNIT_BIN) $(GPU_TEST)
	@CUK=$(BIN) BUILD=$(BUILD) tests/run.sh

# AddressSanitizer, LeakSanitizer and UBSan over the whole test suite, on a
# CPU-only build of its own (compute-sanitizer checks the GPU side: see
# bench/gpu-check.sh). Every report aborts the program that made it. ASan
# and LSan also write theirs to files under build-asan/reports/, and
# tests/run.sh counts each as a failure, even one from a program whose
# output no test reads (the terminal tests' cuk); UBSan, a runtime of its
# own with gcc, ignores log_path and reports on stderr. Leaks that readline
# or ncurses keep until exit may be suppressed in tests/lsan.supp, nothing
# of cuk's own.
ASAN_BUILD := build-asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g
ASAN_LOG   := $(abspath $(ASAN_BUILD))/reports
asan:
	rm -rf $(ASAN_LOG) && mkdir -p $(ASAN_LOG)
	SAN_LOG=$(ASAN_LOG) \
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:log_path=$(ASAN_LOG)/asan \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	    $(MAKE) BUILD=$(ASAN_BUILD) WITH_CUDA=0 CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" test

# libFuzzer over whole sessions, over .npy/.csv loading, and over saves and
# loads among hostile file types (fuzz/fuzz_files.c), with clang's
# AddressSanitizer and UBSan, SECONDS per target (fuzz/run.sh: a corpus
# from the tests, dictionaries, what it found). A CPU-only build of its own, in
# build-fuzz/; an input that crashed goes to tests/fuzz/regressions/TARGET/,
# which `make test` replays.
FUZZ_BUILD := build-fuzz
FUZZ_CC    ?= clang
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
              -fno-sanitize-recover=undefined
SECONDS    ?= 60
fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) WITH_CUDA=0 WITH_READLINE=0 WITH_NCURSES=0 \
	    CFLAGS="$(FUZZ_FLAGS)" LDFLAGS="$(FUZZ_FLAGS)" fuzz-targets
	fuzz/run.sh $(FUZZ_BUILD) $(SECONDS) $(FUZZ_TARGETS)

# Valgrind memcheck over the golden scripts and the unit tests' sessions,
# on the CPU build of $(BUILD) (tests/valgrind.sh prints each ERROR SUMMARY).
valgrind: cuk $(UNIT_BIN)
	CUK=$(BIN) BUILD=$(BUILD) tests/valgrind.sh

config:
	@echo "CUDA=$(WITH_CUDA) NCCL=$(WITH_NCCL) readline=$(WITH_READLINE) ncurses=$(WITH_NCURSES) \
	BLAS=$(WITH_BLAS) (loaded at run time) arch=$(CUDA_ARCH)"

# What is installed besides the binary: the whole scripts/ tree (lessons,
# lecture.cuk, the lab, recorded transcripts) as git tracks it (as found,
# outside a checkout), to share/cuk/scripts, where the binary looks for
# its lessons; the manual page; the README and the docs/ pages.
SCRIPT_FILES := $(shell git ls-files scripts 2>/dev/null)
ifeq ($(strip $(SCRIPT_FILES)),)
SCRIPT_FILES := $(shell find scripts -type f 2>/dev/null)
endif
DOC_DIR := $(DESTDIR)$(PREFIX)/share/doc/cuk

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DOC_DIR)/docs
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/cuk
	for f in $(SCRIPT_FILES); do \
	    install -D -m $$(test -x "$$f" && echo 755 || echo 644) "$$f" "$(DESTDIR)$(PREFIX)/share/cuk/$$f" || exit 1; \
	done
	gzip -9n <docs/cuk.1 >$(DESTDIR)$(PREFIX)/share/man/man1/cuk.1.gz
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/cuk.1.gz
	install -m 644 README.md $(DOC_DIR)/
	install -m 644 $(wildcard docs/*.md) $(DOC_DIR)/docs/

# The package's version: the program's (repl/main.c), then, in a git
# checkout, the count of commits and the commit, so that a package of a
# later commit upgrades an earlier one. DEB_MAINTAINER defaults to the
# author of the last commit.
VERSION        := $(shell sed -n 's/^$(H)define CUK_VERSION "\(.*\)"/\1/p' repl/main.c)
DEB_VERSION    ?= $(VERSION)$(shell git rev-list --count HEAD 2>/dev/null | sed 's/^/+git/')$(shell git rev-parse --short HEAD 2>/dev/null | sed 's/^/./')
DEB_MAINTAINER ?= $(shell git log -1 --format='%an <%ae>' 2>/dev/null || echo 'cuk <root@localhost>')
DEB_ARCH       := $(shell dpkg --print-architecture 2>/dev/null)
DEB            := $(BUILD)/cuk_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_STAGE      := $(BUILD)/deb

deb: $(BIN)
	@command -v dpkg-deb >/dev/null || { echo "make deb: needs dpkg-deb (Debian or Ubuntu)"; exit 1; }
	rm -rf $(DEB_STAGE) $(BUILD)/cuk_*.deb
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_STAGE)) PREFIX=/usr
	packaging/deb.sh $(DEB_STAGE) '$(DEB_VERSION)' '$(DEB_MAINTAINER)' $(DEB)

# ./cuk belongs to the default build; other folders leave it alone.
clean:
	rm -rf $(BUILD)
ifeq ($(abspath $(BUILD)),$(abspath build))
	rm -f cuk
endif

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
