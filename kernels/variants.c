/* variants.c - the table of kernel variant switches (see variants.h). Each
 * value's line says what the kernel does and why it is faster or slower;
 * the kernels' comments say the same at length. */
#include "kernels/variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/suggest.h"

static const variant_switch table[VAR_COUNT] = {
    [VAR_COALESCE] =
        {"coalesce",
         "naive: matmul",
         "how the naive product gives the elements of c to a warp",
         VAR_COALESCE_ON,
         2,
         {[VAR_COALESCE_ON] = {"on",
                               "threadIdx.x walks the columns j: a warp reads b and writes c in consecutive floats"},
          [VAR_COALESCE_OFF] = {"off",
                                "threadIdx.x walks the rows i: a warp's reads of a and writes of c are a row apart"}}},
    [VAR_TILE] =
        {"tile",
         "tiled: matmul",
         "the edge T of the tiled product's tiles: T x T threads, T x T tiles of a and b",
         VAR_TILE_16,
         3,
         {[VAR_TILE_8] = {"8", "64 threads, 0.5 KiB of tiles a block: each element loaded is used 8 times"},
          [VAR_TILE_16] = {"16", "256 threads, 2 KiB: the Programming Guide's BLOCK_SIZE, each element used 16 times"},
          [VAR_TILE_32] = {"32",
                           "1024 threads (a block's limit), 8 KiB: used 32 times, but only 1 or 2 blocks fit an SM"}}},
    [VAR_ATILE] =
        {"atile",
         "tiled: matmul",
         "how the tiled product stores a's tile in shared memory",
         VAR_ATILE_PLAIN,
         2,
         {[VAR_ATILE_PLAIN] = {"plain", "as it lies, as[row][k]: a warp's stores go to consecutive banks"},
          [VAR_ATILE_TRANSPOSED] = {"transposed",
                                    "as[k][row], the classic lecture's: stores a tile width apart, bank conflicts"}}},
    [VAR_PAD] = {"pad",
                 "tiled: transpose",
                 "the shared-memory transpose's 32x32 tile: padded or not",
                 VAR_PAD_ON,
                 2,
                 {[VAR_PAD_ON] = {"on", "32x33 floats: the extra column puts a tile column in 32 different banks"},
                  [VAR_PAD_OFF] =
                      {"off", "32x32 floats: a tile column lies in one bank, read 32 times over (bank conflicts)"}}},
    [VAR_REDUCE] =
        {"reduce",
         "tiled, cublas: sum mean norm min max; tiled: dot",
         "how the reductions (sum mean norm min max dot) fold their elements",
         VAR_REDUCE_GRID,
         3,
         {[VAR_REDUCE_CLASSIC] =
              {"classic", "the classic lecture's: 32 blocks of 256 threads, a shared tree, partials added on the host"},
          [VAR_REDUCE_GRID] = {"grid",
                               "as many blocks as fit on the device at once, the tree, a second pass on the device"},
          [VAR_REDUCE_SHUFFLE] = {"shuffle",
                                  "the same grid; each warp folds by __shfl_down_sync, one shared slot per warp"}}},
    [VAR_ALIGN] =
        {"align",
         "fast: matmul",
         "how fast's product reads rows that are not 16-byte aligned (k or n not a multiple of 4)",
         VAR_ALIGN_AUTO,
         3,
         {[VAR_ALIGN_AUTO] =
              {"auto", "copies them into zero-padded rows when the copy costs less than the 16-byte copies save"},
          [VAR_ALIGN_COPY] = {"copy", "always copies them first (a only where the kernel loads a 16 bytes at a time)"},
          [VAR_ALIGN_OFF] = {"off", "copies every float of them on its own: four times the copies a stage"}}},
    [VAR_TC] = {"tc",
                "tf32x3: matmul",
                "which tensor-core instruction the 3xTF32 product issues",
                VAR_TC_WGMMA,
                2,
                {[VAR_TC_WGMMA] = {"wgmma", "Hopper's warpgroup MMA fed by TMA (on cc 9.0; elsewhere mma.sync)"},
                 [VAR_TC_MMA] = {"mma", "the warp-level mma.sync m16n8k8 of Ampere on, on any GPU with TF32"}}},
    [VAR_SPREAD] =
        {"spread",
         "multi: matmul transpose sum mean norm min max dot",
         "which of mode multi's new matrices are cut into row slabs over the GPUs",
         VAR_SPREAD_LARGE,
         2,
         {[VAR_SPREAD_LARGE] =
              {"large", "64 MiB and more; smaller ones whole on GPU 0 (a fork and join costs more than they save)"},
          [VAR_SPREAD_ALL] =
              {"all", "4 MiB and more (parts are whole 2 MiB pages): small matrices' slabs, for lessons and tests"}}},
};

/* The current value of each switch, as an index into its values. */
static struct {
    int set[VAR_COUNT];
    int ready;
} V;

static void init(void)
{
    if (V.ready)
        return;
    variant_reset();
}

const variant_switch *variant_get(int id) { return id >= 0 && id < VAR_COUNT ? &table[id] : NULL; }

const variant_switch *variant_find(const char *name)
{
    for (int i = 0; i < VAR_COUNT; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

int variant_current(const variant_switch *sw)
{
    init();
    return V.set[sw - table];
}

int variant_pick(variant_id id) { return variant_current(&table[id]); }

int variant_tile_edge(void) { return atoi(table[VAR_TILE].values[variant_pick(VAR_TILE)].value); }

/* "8, 16 or 32" */
static const char *choices(const variant_switch *sw, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < sw->nvalues && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : i == sw->nvalues - 1 ? " or " : ", ",
                              sw->values[i].value);
    return buf;
}

const variant_switch *variant_lookup(const char *name)
{
    char names[128] = "";
    size_t n = 0;
    const variant_switch *sw = variant_find(name);
    if (sw)
        return sw;
    for (int i = 0; i < VAR_COUNT && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", table[i].name);
    suggest g;
    char note[SUGGEST_NOTE];
    suggest_begin(&g, name);
    for (int i = 0; i < VAR_COUNT; i++)
        suggest_offer(&g, table[i].name);
    cuk_err("set: no switch '%s'%s (switches: %s)", name, suggest_note(&g, note, sizeof note), names);
    return NULL;
}

int variant_set(const char *name, const char *value)
{
    char allowed[128], note[SUGGEST_NOTE];
    suggest g;
    const variant_switch *sw = variant_lookup(name);
    if (!sw)
        return -1;
    suggest_begin(&g, value);
    for (int i = 0; i < sw->nvalues; i++)
        if (!strcmp(sw->values[i].value, value)) {
            init();
            V.set[sw - table] = i;
            return 0;
        } else {
            suggest_offer(&g, sw->values[i].value);
        }
    return cuk_err("set: %s can be %s, not '%s'%s", sw->name, choices(sw, allowed, sizeof allowed), value,
                   suggest_note(&g, note, sizeof note));
}

/* 1 if the words of list[0..n) (separated by blanks or commas) hold w. */
static int has_word(const char *list, size_t n, const char *w)
{
    size_t len = strlen(w);
    for (size_t i = 0; i + len <= n; i++)
        if (!strncmp(list + i, w, len) && (i == 0 || strchr(" ,", list[i - 1])) &&
            (i + len == n || strchr(" ,", list[i + len])))
            return 1;
    return 0;
}

int variant_applies(const variant_switch *sw, const char *mode, const char *op)
{
    for (const char *clause = sw->affects; *clause;) {
        size_t len = strcspn(clause, ";"), colon = strcspn(clause, ":");
        if (colon < len && has_word(clause, colon, mode) && has_word(clause + colon + 1, len - colon - 1, op))
            return 1;
        clause += len + (clause[len] == ';');
        clause += strspn(clause, " ");
    }
    return 0;
}

void variant_reset(void)
{
    for (int i = 0; i < VAR_COUNT; i++)
        V.set[i] = table[i].def;
    V.ready = 1;
}
