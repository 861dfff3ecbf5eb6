/* record.c - the transcript `record` keeps (see record.h). */
#include "engine/files/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/files/savefile.h"

/* One transcript per process, as there is one output sink. */
static struct {
    savefile *file; /* NULL while nothing is recorded */
    char *path;     /* as given, for messages */
} R;

static void record_end(void)
{
    out_set_tee(NULL);
    R.file = NULL;
    free(R.path);
    R.path = NULL;
}

int record_check(void)
{
    int err = R.file ? out_tee_error() : 0;
    if (!err)
        return 0;
    savefile_abandon(R.file);
    cuk_err("record: cannot write '%s': %s; the transcript is not kept", R.path, strerror(err));
    record_end();
    return -1;
}

int record_stop(void)
{
    if (!R.file)
        return 0;
    if (record_check() != 0)
        return -1;
    out_set_tee(NULL);
    int rc = savefile_commit(R.file);
    record_end();
    return rc;
}

int record_start(const char *path)
{
    char *name = strdup(path);
    savefile *f = name ? savefile_open("record", path) : NULL;
    if (!f) {
        if (!name)
            cuk_err("record: out of host memory");
        free(name);
        return -1;
    }
    int rc = record_stop();
    FILE *fp = savefile_stream(f);
    setvbuf(fp, NULL, _IOLBF, 0); /* a line at a time: a failure shows at once */
    R.file = f;
    R.path = name;
    out_set_tee(fp);
    return rc;
}
