/* savefile.h - the one way cuk writes a file (save, save bench, save
 * plot, record, the rehearsal recordings of --transcripts): into a
 * temporary beside it, renamed over it once every byte is written and
 * synced, so that a failure leaves the old file as it was.
 *
 * - Links are followed: the file they end at is replaced, the link stays
 *   (a dangling link's target is created).
 * - Only a regular file is replaced. A folder, a device (/dev/null), a
 *   named pipe or a socket, named or reached through links, is refused
 *   with a message that says what it is: replacing it would put a regular
 *   file in its place.
 * - The replacement keeps the old file's owner, group and mode (as root
 *   too); where they cannot be kept (another user's file), the file is not
 *   replaced.
 * - A file with other names (hard links) is replaced under this name
 *   only, and a note says that the other names keep the old contents.
 * Messages start with the command's name and quote the path as given,
 * control characters escaped. */
#ifndef CUK_SAVEFILE_H
#define CUK_SAVEFILE_H

#include <stdio.h>

typedef struct savefile savefile;

/* Start writing path for the command `what` ("save", "record"): links
 * followed, the file checked, its temporary opened. NULL with the error
 * set. */
savefile *savefile_open(const char *what, const char *path);

/* The stream to write to (the temporary). */
FILE *savefile_stream(savefile *f);

/* Flush, sync and close the temporary, checking every step; give it the
 * old file's owner, group and mode; rename it over the file. Then f is
 * freed. 0, or -1 with the error set and the file as it was. */
int savefile_commit(savefile *f);

/* Give up: the temporary goes, the file stays as it was; f is freed. */
void savefile_abandon(savefile *f);

/* Writes a file's contents to fp: 0, an errno value, or -1 with the error
 * set. Write errors need not be checked: the save flushes and checks. */
typedef int (*savefile_writer)(FILE *fp, const void *ud);

/* A whole save in one call, its contents from write(stream, ud). Ctrl-C
 * and the signals that end cuk wait until the temporary is gone (the save
 * is cancelled, the old file kept). 0, or -1 with the error set. */
int savefile_write(const char *what, const char *path, savefile_writer write, const void *ud);

#endif
