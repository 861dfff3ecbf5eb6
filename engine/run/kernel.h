/* kernel.h - user kernels as the front end meets them: cuk started as the
 * helper process that runs them (kernels/user.h). The `kernel` command's
 * handler is declared with the others (engine/lang/commands.h). */
#ifndef CUK_KERNEL_H
#define CUK_KERNEL_H

/* If argv starts cuk as the kernel helper process, serve the session that
 * started it and return the exit status; else -1 (a normal start). */
int kernel_helper_main(int argc, char **argv);

/* `help kernel`: the entry points, the launch line, the checks, and a
 * whole example file. */
void kernel_help(void);
/* That example file's text. */
const char *kernel_help_example(void);

#endif
