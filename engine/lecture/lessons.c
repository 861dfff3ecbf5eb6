/* lessons.c - the lecture kit's help (see lessons.h): `help scripts` (how
 * a script runs, and runs for a lecture), `help lessons`, which lists the
 * demo scripts in the order lecture.cuk runs them, each with the sentence
 * its first "#:" line says it demonstrates, and `help lab`, the exercises
 * of scripts/lab/ with their check scripts' first "#:" lines. The scripts are read at run
 * time, so that they are the one place their descriptions are written. */
#include "engine/lecture/lessons.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/out.h"

#define WRAP 72 /* columns of a description line */

static const char help_scripts[] =
    "scripts: cuk FILE.cuk, cuk < FILE, ... | cuk, cuk -e 'stmts'; a #! first line is\n"
    "ignored. A script stops at the first error, printing FILE:LINE:COL, and exits with 1.\n"
    "In a script file, file names are relative to the script's folder.\n"
    "\n"
    "for a lecture:\n"
    "  #: text               a line of its own starting #: is a heading: printed after a\n"
    "                        blank line, wrapped at words, whenever the script runs\n"
    "  # pause               in step mode, wait at an empty prompt\n"
    "  cuk --step FILE.cuk   echo each statement after the prompt and wait for a key (on\n"
    "  run \"FILE.cuk\" step   the terminal; keys pressed while a statement ran are\n"
    "                        dropped): Enter or space runs it, s skips it, b goes back\n"
    "                        to the one before, g N Enter goes to lesson N (the scripts\n"
    "                        it runs, or its #: headings), q stops, ? lists the keys;\n"
    "                        cuk --step shows the panel where the terminal allows\n"
    "  cuk --rehearse FILE   on a machine without a GPU: a mode it lacks, what runs in\n"
    "  run \"FILE\" rehearse   that mode and what uses its results are listed as\n"
    "                        \"skipped (no GPU): ...\" with what each printed when the\n"
    "                        lesson was recorded on a GPU; the rest runs, settings (set,\n"
    "                        seed, time, format) take effect, a real error stops it\n"
    "  cuk --echo FILE.cuk   echo each statement before its output: a transcript\n"
    "  help lessons          the demo scripts, one per lesson, and what each shows\n";

/* The folder of the running binary into dir; 0, or -1 if unknown. */
static int binary_folder(char *dir, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
    if (n <= 0)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

/* The folder holding lecture.cuk: scripts/ beside the binary, in the source
 * tree above its build folder, or in an installed share/cuk/. */
static int scripts_folder(char dir[PATH_MAX], size_t cap)
{
    static const char *const tries[] = {"%s/scripts", "%s/../scripts", "%s/../share/cuk/scripts"};
    char bin[PATH_MAX], path[PATH_MAX + 64];
    if (binary_folder(bin, sizeof bin) != 0)
        return -1;
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        snprintf(path, sizeof path, tries[i], bin);
        if (realpath(path, dir) && strlen(dir) + 16 < cap) { /* dir is PATH_MAX long, as realpath needs */
            strcat(dir, "/lecture.cuk");
            int found = access(dir, R_OK) == 0;
            *strrchr(dir, '/') = '\0';
            if (found)
                return 0;
        }
    }
    return -1;
}

/* The text after "#:" of the first heading of file dir/name, into buf; ""
 * if it has none or cannot be read. */
static void first_heading(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[PATH_MAX + 256], line[1024];
    FILE *f;
    buf[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "r")))
        return;
    while (fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (p[0] == '#' && p[1] == ':') {
            p += 2 + strspn(p + 2, " \t");
            snprintf(buf, cap, "%.*s", (int)strcspn(p, "\r\n"), p);
            break;
        }
    }
    fclose(f);
}

/* text in lines of at most WRAP columns, each indented by `indent`. */
static void wrapped(const char *text, int indent)
{
    while (*text) {
        size_t n = strlen(text), cut = n;
        if (n > WRAP) {
            for (cut = WRAP; cut > 0 && text[cut] != ' '; cut--)
                ;
            cut = cut ? cut : WRAP;
        }
        out_printf("%*s%.*s\n", indent, "", (int)cut, text);
        text += cut;
        text += strspn(text, " ");
    }
}

/* The script a lecture.cuk line runs: the name in `run "NAME"`, into buf. */
static int run_target(const char *line, char *buf, size_t cap)
{
    const char *p = line + strspn(line, " \t");
    if (strncmp(p, "run", 3) || !strchr(" \t", p[3]))
        return 0;
    p = strchr(p, '"');
    const char *end = p ? strchr(p + 1, '"') : NULL;
    if (!end)
        return 0;
    snprintf(buf, cap, "%.*s", (int)(end - p - 1), p + 1);
    return 1;
}

/* help lessons: lecture.cuk's description, then each script it runs. */
static int list_lessons(void)
{
    char dir[PATH_MAX], path[PATH_MAX + 64], line[1024], name[256], about[1024];
    FILE *f;
    if (scripts_folder(dir, sizeof dir) != 0)
        return cuk_err("help lessons: the demo scripts are not beside cuk (scripts/, ../scripts/ or "
                       "../share/cuk/scripts/ of the binary's folder)");
    snprintf(path, sizeof path, "%s/lecture.cuk", dir);
    if (!(f = fopen(path, "r")))
        return cuk_err("help lessons: cannot read '%s'", path);
    first_heading(dir, "lecture.cuk", about, sizeof about);
    out_printf("the demo scripts, in %s:\n  lecture.cuk\n", dir);
    wrapped(about, 6);
    while (fgets(line, sizeof line, f))
        if (run_target(line, name, sizeof name)) {
            first_heading(dir, name, about, sizeof about);
            out_printf("  %s\n", name);
            wrapped(about, 6);
        }
    fclose(f);
    out_printf("step through it:  cuk --step %s/lecture.cuk\n"
               "rehearse it:      cuk --rehearse %s/lecture.cuk   (no GPU needed)\n"
               "one lesson:       run \"%s/2-tiles.cuk\" step\n",
               dir, dir, dir);
    return 0;
}

/* Sort names, a few dozen. */
static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* help lab: each exercise folder of scripts/lab with its check.cuk's
 * first heading. */
static int list_lab(void)
{
    char dir[PATH_MAX], lab[PATH_MAX + 8], about[1024], *names[64];
    int n = 0;
    DIR *d;
    if (scripts_folder(dir, sizeof dir) != 0)
        return cuk_err("help lab: the scripts are not beside cuk (scripts/, ../scripts/ or ../share/cuk/scripts/ "
                       "of the binary's folder)");
    snprintf(lab, sizeof lab, "%s/lab", dir);
    if (!(d = opendir(lab)))
        return cuk_err("help lab: cannot read '%s'", lab);
    for (struct dirent *e; (e = readdir(d)) && n < 64;)
        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
            n++;
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    out_printf("the lab: write a kernel, check it against float64, bench it against the ladder.\n"
               "each exercise is a folder of %s: a .cu file with TODOs, check.cuk, and solution/.\n", lab);
    for (int i = 0; i < n; i++) {
        char sub[PATH_MAX + 80];
        snprintf(sub, sizeof sub, "%s/%s", lab, names[i]);
        first_heading(sub, "check.cuk", about, sizeof about);
        if (about[0]) {
            out_printf("  %s\n", names[i]);
            wrapped(about, 6);
        }
        free(names[i]);
    }
    out_printf("copy a folder, fill in the TODOs, then:  cuk FOLDER/check.cuk\n"
               "`help kernel`: the entry points and the launch line; docs/lab.md walks through the first.\n");
    return 0;
}

void lessons_overview(void)
{
    out_printf("a lecture: `help lessons` lists the demo scripts, `help scripts` shows --step and --rehearse.\n");
}

int lessons_help(const char *topic)
{
    if (!strcmp(topic, "lessons") || !strcmp(topic, "lecture"))
        return list_lessons() == 0 ? 1 : -1;
    if (!strcmp(topic, "lab"))
        return list_lab() == 0 ? 1 : -1;
    if (!strcmp(topic, "scripts") || !strcmp(topic, "step") || !strcmp(topic, "rehearse")) {
        out_printf("%s", help_scripts);
        return 1;
    }
    return 0;
}

int lessons_find(const char *name, char *path, size_t cap)
{
    char dir[PATH_MAX];
    if (!strncmp(name, "scripts/", 8))
        name += 8;
    if (name[0] == '/' || scripts_folder(dir, sizeof dir) != 0)
        return -1;
    int n = snprintf(path, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap && access(path, R_OK) == 0 ? 0 : -1;
}
