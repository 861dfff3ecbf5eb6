/* variants.h - the kernel variants the lessons need, as switches within a
 * mode (`set tile 32`, `set pad off`): one table row per switch with its
 * values, its default and what each value does. The kernels read the current
 * value when they launch, so each variant is its own kernel and its own row
 * in `kernels`. A switch is only a setting: it can be read and changed
 * without a GPU. The defaults are the kernels cuk runs without any `set`. */
#ifndef CUK_VARIANTS_H
#define CUK_VARIANTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The switches, in the order `set` lists them (the ladder's order). */
typedef enum {
    VAR_COALESCE,
    VAR_TILE,
    VAR_ATILE,
    VAR_PAD,
    VAR_REDUCE,
    VAR_ALIGN,
    VAR_TC,
    VAR_SPREAD,
    VAR_COUNT
} variant_id;

/* The values of each switch, in the order of its row in variants.c (the
 * row places each value by these names): what the launching code compares
 * variant_pick(VAR_...) with, so that no launch compares strings. */
enum { VAR_COALESCE_ON, VAR_COALESCE_OFF };
enum { VAR_TILE_8, VAR_TILE_16, VAR_TILE_32 };
enum { VAR_ATILE_PLAIN, VAR_ATILE_TRANSPOSED };
enum { VAR_PAD_ON, VAR_PAD_OFF };
enum { VAR_REDUCE_CLASSIC, VAR_REDUCE_GRID, VAR_REDUCE_SHUFFLE };
enum { VAR_ALIGN_AUTO, VAR_ALIGN_COPY, VAR_ALIGN_OFF };
enum { VAR_TC_WGMMA, VAR_TC_MMA };
enum { VAR_SPREAD_LARGE, VAR_SPREAD_ALL };

#define VARIANT_MAX_VALUES 4

typedef struct {
    const char *value;   /* as typed (`set tile 16`) */
    const char *about;   /* one line: what the kernel does then, and what it teaches */
} variant_choice;

typedef struct {
    const char *name;     /* as typed (`set tile`) */
    const char *affects;  /* the modes and operations whose kernels read it: "tiled: matmul" */
    const char *summary;  /* one line: what the switch chooses */
    int def;              /* the default value: its constant (VAR_TILE_16), an index into values */
    int nvalues;
    variant_choice values[VARIANT_MAX_VALUES];
} variant_switch;

/* Switch id (< VAR_COUNT), or NULL past the end. */
const variant_switch *variant_get(int id);
/* By name; NULL if there is no such switch. */
const variant_switch *variant_find(const char *name);
/* The same, but NULL sets the error, naming the switches there are. */
const variant_switch *variant_lookup(const char *name);
/* The index of the current value in sw->values. */
int variant_current(const variant_switch *sw);
/* The current value of switch id, as its constant above (VAR_TILE_16). */
int variant_pick(variant_id id);
/* The edge T of the tiled product's tiles that the tile switch picks. */
int variant_tile_edge(void);
/* Set switch name to value: 0, or -1 with the error set (naming the
 * switches or the values allowed) and nothing changed. */
int variant_set(const char *name, const char *value);
/* Every switch back to its default. */
void variant_reset(void);

/* 1 if switch sw changes the kernel of operation op ("matmul", "sum",
 * "dot", ...) in mode `mode`, as its `affects` line says ("tiled, cublas:
 * sum mean norm min max; tiled: dot"). */
int variant_applies(const variant_switch *sw, const char *mode, const char *op);

#ifdef __cplusplus
}
#endif

#endif
