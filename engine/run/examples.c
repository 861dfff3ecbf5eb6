/* examples.c - an example for every function and command, which `help NAME`
 * shows under the usage line (see examples.h). Each is a line or two one
 * could type as it stands: tests/unit/test_help.c parses every one and runs
 * those that can run on a machine without a GPU. */
#include "engine/run/examples.h"

#include <string.h>

static const struct {
    const char *name, *text;
} examples[] = {
    /* functions */
    {"abs", "d = abs(rand(3) - rand(3))      # how far apart, element by element"},
    {"arange", "a = arange(5)                   # 0 1 2 3 4\n"
               "b = 2 * arange(33 * 1024)       # the classic b[i] = 2i"},
    {"dot", "x = rand(1, 1000); y = ones(1, 1000);\n"
            "d = dot(x, y)                   # the same as sum(x)"},
    {"exp", "E = exp(zeros(2))               # all ones"},
    {"eye", "I = eye(3)\n"
            "J = eye(2, 4)                   # ones on the diagonal of a 2x4"},
    {"fill", "F = fill(2, 3, 7.5)"},
    {"load", "A = rand(3); save A \"a.npy\";\n"
             "B = load(\"a.npy\")               # also .csv; NumPy's float32 or float64"},
    {"log", "L = log(exp(ones(2)))           # all ones again"},
    {"max", "m = max(rand(1000))             # the largest element\n"
            "P = max(randn(3), 0)            # elementwise: negatives become 0"},
    {"mean", "m = mean(rand(1000))            # close to 0.5"},
    {"min", "m = min(rand(1000))             # the smallest element\n"
            "Q = min(rand(3), 0.5)           # elementwise: nothing above 0.5"},
    {"norm", "A = rand(3); B = rand(3);\n"
             "r = norm(A @ B - B @ A) / norm(A @ B)   # how far from commuting"},
    {"ones", "O = ones(2, 3)"},
    {"pow", "S = pow(arange(4), 2)           # 0 1 4 9"},
    {"rand", "A = rand(3)                     # 3x3, uniform in [0, 1)\n"
             "seed 1; B = rand(1037, 1055);   # reproducible: the same B in every mode"},
    {"randn", "Z = randn(2, 4)                 # mean 0, standard deviation 1"},
    {"size", "s = size(rand(1037, 1055))      # [1037 1055]"},
    {"sqrt", "r = sqrt(pow(3, 2) + pow(4, 2)) # 5"},
    {"sum", "s = sum(ones(1037, 1055))       # 1094035"},
    {"transpose", "T = transpose(rand(2, 3))       # 3x2, the same as rand(2, 3)'"},
    {"zeros", "Z = zeros(2, 3)"},
    /* commands */
    {"bench", "A = rand(300); B = rand(300);\n"
              "bench A @ B                     # every mode: time, rate, speedup over cpu"},
    {"clear", "A = 1; B = 2; clear A B         # delete A and B\n"
              "clear                           # delete everything, give the device its memory back"},
    {"count", "mode naive; A = rand(1024); B = rand(1024);\n"
              "count C = A @ B;                # DRAM bytes, sectors per request, occupancy: per kernel"},
    {"format", "format long; pi = 3.14159265\n"
               "format short"},
    {"help", "help rand\n"
             "help scripts                    # headings, --step and --rehearse for a lecture"},
    {"info", "info                            # SMs, peak FP32, bandwidth, memory; every GPU, links; the host"},
    {"kernel", "kernel \"my_matmul.cu\"           # mode my_matmul: its cuk_matmul, the rest from tiled\n"
               "kernel \"my_matmul.cu\" for sm_90  # only compile it, for that GPU (none needed here)"},
    {"kernels", "mode tiled; C = rand(1000) @ rand(1000);\n"
                "kernels                         # grid, block, registers, shared memory, blocks per SM"},
    {"ladder", "ladder A @ B for n in 100 300 1000 3000   # every mode at each n; * marks estimates"},
    {"mode", "mode cpu                        # the textbook loop on one core\n"
             "mode tiled                      # shared-memory tiles on the GPU"},
    {"modes", "modes                           # * marks the current one"},
    {"panel", "panel off                       # a plain prompt; panel on brings it back"},
    {"present", "bench cpu tiled cublas: A @ B\n"
                "present on                      # the comparison in large type; panel off ends it"},
    {"quit", "quit"},
    {"record", "record \"lecture.log\"            # from here on, what is typed and shown\n"
               "record off"},
    {"roofline", "roofline                        # the modes run so far against the chip's ceilings"},
    {"run", "run \"scripts/lecture.cuk\"\n"
            "run \"2-tiles.cuk\" step          # each statement waits for Enter"},
    {"save", "A = rand(3); save A \"a.npy\"      # or \"a.csv\""},
    {"seed", "seed 42; A = rand(3)            # the same A in every mode, every time"},
    {"set", "set                             # the kernel variant switches and their values\n"
            "set tile 32                     # tiled's product with 32x32 tiles"},
    {"time", "time on; C = rand(500) @ rand(500);   # kernel time, rate, wall time, bytes copied\n"
             "time off"},
    {"timeit", "A = rand(500);\n"
               "timeit C = A @ A;               # as many runs as fit its time: the median"},
    {"who", "A = rand(3); who                # name, shape, size, where it lives (mode multi: rows per GPU)"},
    {"why", "C = rand(300) @ rand(300); why  # FLOPs, bytes, the ceiling that bounds it"},
};

const char *example_of(const char *name)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
        if (!strcmp(examples[i].name, name))
            return examples[i].text;
    return NULL;
}
