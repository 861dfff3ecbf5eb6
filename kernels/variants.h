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

#define VARIANT_MAX_VALUES 4

typedef struct {
    const char *value;   /* as typed: "16", "off", "shuffle" */
    const char *about;   /* one line: what the kernel does then, and what it teaches */
} variant_choice;

typedef struct {
    const char *name;     /* "tile" */
    const char *affects;  /* the modes and operations whose kernels read it: "tiled: matmul" */
    const char *summary;  /* one line: what the switch chooses */
    int def;              /* index of the default value in values */
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
/* The current value of switch id, as typed ("16"). */
const char *variant_value(variant_id id);
/* 1 if switch id is set to value. */
int variant_is(variant_id id, const char *value);
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
