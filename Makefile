# Makefile - builds cuk, its tests, and runs them.
#
#   make            build $(BUILD)/cuk (and ./cuk, a link to it, for BUILD=build)
#   make run        build and start the REPL
#   make test       build and run every test (GPU tests skip without a GPU)
#   make asan       CPU-only build under AddressSanitizer/UBSan, and every test
#   make install PREFIX=/usr/local
#   make clean      remove $(BUILD) (and ./cuk for BUILD=build)
#
# Each BUILD= folder holds its own objects, tests and binary, so builds with
# different options (e.g. BUILD=build-cpu WITH_CUDA=0) do not overwrite
# each other.
#
# Optional parts are probed and can be forced: WITH_CUDA=0|1,
# WITH_READLINE=0|1, WITH_NCURSES=0|1, WITH_BLAS=0|1. Everything below with
# ?= can be overridden on the command line or in the environment.

CC        ?= cc
CFLAGS    ?= -O2 -g
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
# SASS for these architectures plus PTX for the newest, so that newer GPUs
# JIT it. CUDA 13 builds for sm_75 (Turing) and later.
CUDA_ARCH ?= 75 80 86 89 90
NVCCFLAGS ?= -O3 -g -lineinfo
PREFIX    ?= /usr/local
BUILD     ?= build
BIN       := $(BUILD)/cuk

# probe_c: 1 if a program including header $(1) links with flags $(2).
H := \#
probe_c = $(shell printf '$(H)include <stdio.h>\n$(H)include <$(1)>\nint main(void){return 0;}\n' | \
            $(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo 1 || echo 0)

WITH_CUDA     ?= $(shell test -x $(NVCC) && echo 1 || echo 0)
WITH_READLINE ?= $(call probe_c,readline/readline.h,-lreadline)
WITH_NCURSES  ?= $(call probe_c,ncurses.h,-lncursesw)
# OpenBLAS when pkg-config knows it, else the system's (reference) BLAS.
HAVE_OPENBLAS := $(shell pkg-config --exists openblas 2>/dev/null && echo 1 || echo 0)
ifeq ($(HAVE_OPENBLAS),1)
BLAS_CFLAGS ?= $(shell pkg-config --cflags openblas) -DCUK_OPENBLAS=1
BLAS_LIBS   ?= $(shell pkg-config --libs openblas)
else
BLAS_CFLAGS ?=
BLAS_LIBS   ?= -lblas
endif
WITH_BLAS ?= $(call probe_c,cblas.h,$(BLAS_CFLAGS) $(BLAS_LIBS))
# Run each probe once, not at every use.
WITH_CUDA := $(WITH_CUDA)
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
ENGINE_SRC := $(wildcard engine/*.c)
# Every kernels/*.c but the no-GPU stubs, which only a build without CUDA takes.
KERNEL_SRC := $(filter-out kernels/gpu_none.c,$(wildcard kernels/*.c))
REPL_SRC   := $(wildcard repl/*.c)
CU_SRC     :=

ifeq ($(WITH_BLAS),1)
FEATURES += -DCUK_HAVE_BLAS=1 $(BLAS_CFLAGS)
LDLIBS   += $(BLAS_LIBS)
endif

ifeq ($(WITH_CUDA),1)
CU_SRC    := $(wildcard kernels/*.cu)
FEATURES  += -DCUK_HAVE_CUDA=1 -I$(CUDA_HOME)/include
LDLIBS    += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
             -lcublas -lcublasLt -lcudart_static -lstdc++ -ldl -lrt -lpthread
GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode=arch=compute_$(a),code=sm_$(a)) \
             -gencode=arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
else
KERNEL_SRC += kernels/gpu_none.c
endif

ifeq ($(WITH_READLINE),1)
FEATURES += -DCUK_HAVE_READLINE=1
REPL_LIBS += -lreadline
endif
ifeq ($(WITH_NCURSES),1)
FEATURES += -DCUK_HAVE_NCURSES=1
REPL_LIBS += -lncursesw
endif

CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(BASE_SRC) $(ENGINE_SRC) $(KERNEL_SRC)) \
            $(patsubst %.cu,$(BUILD)/%.o,$(CU_SRC))
REPL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(REPL_SRC))

UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
GPU_TEST  := $(BUILD)/tests/gpu_test

.PHONY: all run test asan install clean config
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

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -I. -std=c++17 -Xcompiler -Wall \
	    $(NVCC_EXTRA) -MMD -MP -c $< -o $@

# No fused multiply-add in the random-number kernels: the host's and the
# device's random numbers must be bit-identical, and the host side is built
# with -ffp-contract=off (kernels/philox.h).
$(BUILD)/kernels/gpu_random.o: NVCC_EXTRA = -fmad=false

$(BUILD)/tests/%: tests/unit/%.c tests/check.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

$(GPU_TEST): tests/gpu/gpu_test.c tests/check.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LDLIBS)

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

config:
	@echo "CUDA=$(WITH_CUDA) readline=$(WITH_READLINE) ncurses=$(WITH_NCURSES) \
	BLAS=$(WITH_BLAS) openblas=$(HAVE_OPENBLAS) arch=$(CUDA_ARCH)"

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/cuk/scripts
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/cuk
	install -m 644 scripts/*.cuk $(DESTDIR)$(PREFIX)/share/cuk/scripts/

# ./cuk belongs to the default build; other folders leave it alone.
clean:
	rm -rf $(BUILD)
ifeq ($(abspath $(BUILD)),$(abspath build))
	rm -f cuk
endif

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
