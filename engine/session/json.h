/* json.h - a small JSON writer: objects and arrays built into a growing
 * buffer, for `cuk --json` (one object per table, on its own line) and
 * `save bench "file.json"`. Numbers that are not finite are written null. */
#ifndef CUK_JSON_H
#define CUK_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 16

typedef struct {
    char *buf;
    size_t len, cap;
    int depth;
    int count[JSON_MAX_DEPTH];   /* members written at each open level */
    char closer[JSON_MAX_DEPTH]; /* the bracket that closes each level */
    int failed;                  /* out of memory: the text is incomplete */
} json_buf;

/* Start a document: the outermost object is opened. */
void json_begin(json_buf *j);
/* Close every open level; the text, or NULL if memory ran out. */
const char *json_end(json_buf *j);
void json_free(json_buf *j);

/* key is the member's name inside an object, NULL inside an array. */
void json_open_obj(json_buf *j, const char *key);
void json_open_arr(json_buf *j, const char *key);
void json_close(json_buf *j);
void json_str(json_buf *j, const char *key, const char *v);   /* NULL: null */
void json_num(json_buf *j, const char *key, double v);
void json_int(json_buf *j, const char *key, long long v);
void json_bool(json_buf *j, const char *key, int v);
void json_null(json_buf *j, const char *key);

/* Print the document as one line through the output sink. */
void json_print(json_buf *j);

#endif
