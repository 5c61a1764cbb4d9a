/*
 * cli_output.c - what every output file of a run gets from its inputs
 * (the safe writer's options, include/satscope/safe_out.h):
 *   - the mode: what satscope writes holds DNs, client addresses and filter
 *     values, so it is never readable by others: 0640 less the umask, 0600
 *     when an input is not readable by others itself (a file without o+r, a
 *     file in an input directory or matched by an input pattern without it,
 *     standard input that is not such a file, a live capture);
 *   - the identities of the input files, so that an output naming one of
 *     them is refused instead of replacing it;
 *   - the pseudonymiser of --anonymize-key (collect/anonymize.c), its key
 *     file read and refused the same way for every command that takes it.
 * Inputs are walked as collect reads them: a file, a directory's files (one
 * level, names not starting with '.'), a glob pattern's matches.
 */
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "satscope/anonymize.h"

static void add_id(sat_cli_out *co, const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return;
    if (SAT_GROW(co->ids, co->cap, co->nids + 1) != SAT_OK)
        return; /* fewer inputs recognised: the output is still safe, only not refused */
    co->ids[co->nids].dev = st->st_dev;
    co->ids[co->nids].ino = st->st_ino;
    co->nids++;
}

static void note_private(sat_cli_out *co, const char *path, const struct stat *st)
{
    if (!co->private_input && st && !(st->st_mode & S_IROTH) && !co->private_name[0]) {
        snprintf(co->private_name, sizeof co->private_name, "%s", path);
        co->private_input = co->private_name;
        co->private_why = "is not readable by others";
    }
}

static void walk_input(sat_cli_out *co, const char *path, int depth)
{
    struct stat st;
    if (!strcmp(path, "-")) {
        if (fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IROTH)) {
            if (!co->private_input) {
                co->private_input = "standard input";
                co->private_why = "is not readable by others";
            }
        } else {
            add_id(co, &st);
        }
        return;
    }
    if (stat(path, &st) != 0) {
        glob_t g;
        if (depth == 0 && strpbrk(path, "*?[") && glob(path, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++)
                walk_input(co, g.gl_pathv[i], depth + 1);
            globfree(&g);
        }
        return;
    }
    note_private(co, path, &st);
    if (!S_ISDIR(st.st_mode)) {
        add_id(co, &st);
        return;
    }
    if (depth > 1)
        return;
    DIR *d = opendir(path);
    if (!d) {
        if (!co->private_input) {
            snprintf(co->private_name, sizeof co->private_name, "%s", path);
            co->private_input = co->private_name;
            co->private_why = "cannot be listed";
        }
        return;
    }
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
            note_private(co, p, &st);
            add_id(co, &st);
        }
    }
    closedir(d);
}

/* the options from the inputs walked so far */
static void settle(sat_cli_out *co)
{
    mode_t um = umask(0);
    umask(um);
    co->dflt = 0640u & ~(unsigned)um;
    co->o.mode = co->private_input ? 0600u & ~(unsigned)um : co->dflt;
    co->o.inputs = co->ids;
    co->o.ninputs = co->nids;
}

void sat_cli_out_init(sat_cli_out *co, char *const *inputs, size_t n, int live, const char *what)
{
    memset(co, 0, sizeof *co);
    for (size_t i = 0; i < n; i++)
        walk_input(co, inputs[i], 0);
    if (!co->private_input && live) {
        co->private_input = "a live capture";
        co->private_why = "holds the packets of every user of the interface";
    }
    co->o.what = what;
    co->o.alt = ", or to standard output with -o -";
    settle(co);
}

void sat_cli_out_add(sat_cli_out *co, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        walk_input(co, inputs[i], 0);
    settle(co);
}

void sat_cli_out_free(sat_cli_out *co)
{
    if (!co)
        return;
    free(co->ids);
    co->ids = NULL;
    co->nids = co->cap = 0;
}

void sat_cli_out_say_mode(const sat_cli_out *co, const char *cmd, const char *path, unsigned got,
                          unsigned old_mode)
{
    if (got == co->dflt)
        return;
    if (old_mode && (got & ~old_mode) == 0 && (co->o.mode & ~old_mode) != 0)
        fprintf(stderr, "satscope %s: %s: mode %04o, as %s it replaces (not %04o)\n", cmd,
                path, got, co->o.what ? co->o.what : "the file", co->dflt);
    else if (co->private_input)
        fprintf(stderr, "satscope %s: %s: mode %04o (not %04o): %s %s\n", cmd, path, got,
                co->dflt, co->private_input, co->private_why);
}

int sat_cli_open_anon_key(const char *cmd, const char *path, struct sat_anon **out)
{
    *out = NULL;
    if (!path)
        return 0;
    sat_diag kd;
    memset(&kd, 0, sizeof kd);
    if ((*out = sat_anon_open_keyfile(path, &kd)) != NULL)
        return 0;
    if (kd.code == SAT_E_NOMEM)
        return sat_cli_fail(cmd, kd.code, NULL);
    if (kd.code == SAT_E_USAGE)
        return sat_cli_usage_error(cmd, "--anonymize-key %s: %s", kd.where, kd.msg);
    sat_cli_path_error(cmd, kd.where, NULL, kd.msg);
    return SAT_EXIT_UNREADABLE;
}
