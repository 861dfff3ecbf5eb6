/* cmdlist.h - the commands of the language, one row each: the parser, the
 * dispatch (run.c), help and completion all expand this list. A new command
 * is a row here and its handler `cmd_WORD` (commands.c, or the file of its
 * subsystem).
 *
 * X(ID, word, alias, argument shape, usage, summary); alias is another word
 * for the same command, or NULL. */
#ifndef CUK_CMDLIST_H
#define CUK_CMDLIST_H

/* What follows the command word (parse.c reads it by this shape). */
typedef enum {
    ARGS_NONE,      /* nothing */
    ARGS_OPT_WORD,  /* [NAME] */
    ARGS_WORDS,     /* NAME* */
    ARGS_ON_OFF,    /* NAME: on or off */
    ARGS_FORMAT,    /* NAME: short or long */
    ARGS_EXPR,      /* an expression */
    ARGS_TIMEIT,    /* [COUNT] statement */
    ARGS_STMT,      /* statement */
    ARGS_SAVE,      /* NAME "file" */
    ARGS_TOPIC,     /* [any one token] */
    ARGS_SETTING,   /* [NAME [VALUE]]: VALUE a name or a number */
    ARGS_BENCH,     /* [MODE... ':'] expression */
    ARGS_LADDER,    /* [MODE... ':'] expression for NAME in NUMBER... */
    ARGS_FILE_OR_OFF, /* "file" or off */
    ARGS_RUN,       /* "file" [NAME]: NAME is step or rehearse */
    ARGS_KERNEL     /* "file" [for NAME] */
} args_shape;

#define CUK_COMMANDS(X)                                                                                          \
    X(MODE, mode, NULL, ARGS_OPT_WORD, "mode [name]", "show or select the mode (the kernel that does the work)") \
    X(MODES, modes, NULL, ARGS_NONE, "modes", "list the modes and whether each is available")                    \
    X(WHO, who, NULL, ARGS_NONE, "who", "list variables: shape, size, where they live (rows per GPU); memory")   \
    X(CLEAR, clear, NULL, ARGS_WORDS, "clear [names]", "delete some or all variables")                           \
    X(SEED, seed, NULL, ARGS_EXPR, "seed N", "make rand/randn reproducible (the same in every mode)")            \
    X(BENCH, bench, NULL, ARGS_BENCH, "bench [MODES:] EXPR",                                                     \
      "every mode, those named, or variants: (the switches): runs, spread, speedups")                           \
    X(LADDER, ladder, NULL, ARGS_LADDER, "ladder EXPR for n in N",                                               \
      "sizes x modes in a time budget; estimates marked *")                                                      \
    X(TIMEIT, timeit, NULL, ARGS_TIMEIT, "timeit [N] STMT", "run STMT N times (or for 1 s): median and range")   \
    X(WHY, why, NULL, ARGS_NONE, "why", "the last command's cost: FLOPs, bytes, ceilings, verdict")              \
    X(COUNTERS, count, NULL, ARGS_STMT, "count STMT",                                                           \
      "run STMT once and show what the GPU counted: DRAM bytes, sectors, bank conflicts, occupancy")             \
    X(ROOFLINE, roofline, NULL, ARGS_NONE, "roofline", "the modes run so far on a roofline chart")               \
    X(INFO, info, NULL, ARGS_NONE, "info", "the GPUs and host: peak FLOP/s, bandwidth, memory, links")           \
    X(KERNELS, kernels, NULL, ARGS_NONE, "kernels",                                                              \
      "the current mode's kernels: grid, block, registers, occupancy")                                           \
    X(PANEL, panel, NULL, ARGS_ON_OFF, "panel on|off", "show or hide the live panel")                            \
    X(PRESENT, present, NULL, ARGS_ON_OFF, "present on|off|e2e",                                                \
      "the last bench in large type, log bars, for a projector; e2e: with the copies")                           \
    X(TIME, time, NULL, ARGS_ON_OFF, "time on|off", "print what each command cost")                              \
    X(SAVE, save, NULL, ARGS_SAVE, "save NAME \"file\"",                                                         \
      "write a variable, the last bench (save bench \"t.json\") or its chart (save plot \"t.svg\")")             \
    X(RECORD, record, NULL, ARGS_FILE_OR_OFF, "record \"file\"|off",                                             \
      "keep a transcript of what is typed and shown")                                                            \
    X(RUN, run, NULL, ARGS_RUN, "run \"f.cuk\" [step]",                                                        \
      "run a script in this session; step: each statement waits for Enter")                                     \
    X(KERNEL, kernel, NULL, ARGS_KERNEL, "kernel \"f.cu\" [for ARCH]",                                          \
      "compile your CUDA kernels into a mode named after the file (help kernel)")                              \
    X(HELP, help, NULL, ARGS_TOPIC, "help [topic]", "this help; topics: language, functions, commands, modes, ...") \
    X(FORMAT, format, NULL, ARGS_FORMAT, "format short|long", "digits shown: short (5) or long (8)")             \
    X(SET, set, NULL, ARGS_SETTING, "set [name [value]]", "list, show or change the kernel variant switches")    \
    X(QUIT, quit, "exit", ARGS_NONE, "quit, exit", "leave cuk (Ctrl-D too)")

#define CMDLIST_ENUM(id, word, alias, shape, usage, summary) CMD_##id,
typedef enum { CUK_COMMANDS(CMDLIST_ENUM) CMD_COUNT } cmd_id;
#undef CMDLIST_ENUM

/* One row of the list. */
typedef struct {
    const char *word, *alias;
    args_shape shape;
    const char *usage, *summary;
} cmd_spec;

/* The row of a command (id < CMD_COUNT). */
const cmd_spec *cmd_get(cmd_id id);
/* The command a word names (its alias included), or -1. */
int cmd_lookup(const char *word);

#endif
