/*
 * collect_inputs.c - the inputs of a collection as the user named them:
 * "-" (standard input), a file, a directory (its regular files, sorted, not
 * recursive, hidden and bookkeeping files left out) or a glob pattern the
 * shell did not expand; the same file named twice is read once. Then the
 * first look at each: a .sat trace by its magic before any decompression, a
 * core or a capture by their first bytes after it, else a log whose format is
 * sniffed (or given) and whose first timestamp and year are read, or the
 * companion of a log (389's access.rotationinfo, errors, audit), not read as
 * one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect_run.h"
#include "satscope/core.h"
#include "satscope/trace.h"

/* ---- expansion -------------------------------------------------------------------- */
static int add_item(run *r, const char *path)
{
    if (SAT_GROW(r->items, r->cap, r->nitems + 1))
        return SAT_E_NOMEM;
    item *it = &r->items[r->nitems];
    memset(it, 0, sizeof *it);
    it->path = strdup(path);
    if (!it->path)
        return SAT_E_NOMEM;
    it->order = r->nitems++;
    return SAT_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files, sorted by name, hidden and 389 bookkeeping
 * files left out: the user named the directory, not those. */
static int add_directory(run *r, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        r->stats->inputs++;
        r->stats->unreadable++;
        sat_run_warn(r, dir, "%s", strerror(errno));
        sat_run_problem(r, SAT_E_IO, dir, strerror(errno));
        return SAT_OK;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = SAT_OK;
    struct dirent *e;
    size_t dlen = strlen(dir);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || sat_collect_skip_name(e->d_name))
            continue;
        size_t len = dlen + 1 + strlen(e->d_name) + 1;
        char *p = malloc(len);
        if (!p) {
            rc = SAT_E_NOMEM;
            break;
        }
        snprintf(p, len, "%s%s%s", dir, dlen && dir[dlen - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (SAT_GROW(names, cap, n + 1)) {
            free(p);
            rc = SAT_E_NOMEM;
            break;
        }
        names[n++] = p;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (rc == SAT_OK && (rc = add_item(r, names[i])) == SAT_OK)
            r->items[r->nitems - 1].expanded = 1;
        free(names[i]);
    }
    free(names);
    /* the user named it as an input: one that gives nothing to read is an
     * unreadable input, as a missing file is */
    if (rc == SAT_OK && n == 0) {
        r->stats->inputs++;
        r->stats->unreadable++;
        sat_run_warn(r, dir, "directory has no regular files");
        sat_run_problem(r, SAT_E_IO, dir, "directory has no regular files");
    }
    return rc;
}

int sat_run_add_path(run *r, const char *path)
{
    if (strcmp(path, "-") == 0)
        return add_item(r, path);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return add_directory(r, path);
        return add_item(r, path);
    }
    if (strpbrk(path, "*?[")) {
        /* A pattern the shell did not expand (quoted, or too many files). */
        glob_t g;
        memset(&g, 0, sizeof g);
        int grc = glob(path, 0, NULL, &g);
        if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
            globfree(&g);
            r->stats->inputs++;
            r->stats->unreadable++;
            sat_run_warn(r, path, "no file matches this pattern");
            sat_run_problem(r, SAT_E_IO, path, "no file matches this pattern");
            return SAT_OK;
        }
        if (grc != 0) {
            globfree(&g);
            return grc == GLOB_NOSPACE ? SAT_E_NOMEM : SAT_E_IO;
        }
        int rc = SAT_OK;
        for (size_t i = 0; i < g.gl_pathc && rc == SAT_OK; i++) {
            const char *p = g.gl_pathv[i];
            const char *b = strrchr(p, '/');
            if (sat_collect_skip_name(b ? b + 1 : p))
                continue;
            if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
                rc = add_directory(r, p);
            else if ((rc = add_item(r, p)) == SAT_OK)
                r->items[r->nitems - 1].expanded = 1;
        }
        globfree(&g);
        return rc;
    }
    /* Let the open report why (ENOENT, EACCES, ...). */
    return add_item(r, path);
}

/* The same file named twice (`access*` and `access`, a link, a directory and
 * a file in it) is read once: reading it twice would count every event twice. */
int sat_run_same_file_before(run *r, size_t i)
{
    item *it = &r->items[i];
    struct stat st;
    if (strcmp(it->path, "-") == 0 || stat(it->path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    for (size_t k = 0; k < i; k++) {
        const item *o = &r->items[k];
        if (o->kind != ITEM_SKIP && o->size_known && o->dev == st.st_dev &&
            o->ino == st.st_ino) {
            it->kind = ITEM_SKIP;
            r->stats->inputs--;
            sat_run_warn(r, it->path, "same file as %s; read once", o->path);
            return 1;
        }
    }
    return 0;
}

/* ---- first look at each input ------------------------------------------------------ */
static void sanitise(const char *p, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

void sat_run_look(run *r, item *it)
{
    /* Standard input, pipes and process substitutions (<(zcat ...)) can be
     * read only once: they are opened here and kept open for the real read. */
    int is_stdin = strcmp(it->path, "-") == 0;
    struct stat st;
    time_t when = time(NULL);
    if (!is_stdin && stat(it->path, &st) == 0 && !S_ISREG(st.st_mode))
        is_stdin = 1;
    if (!is_stdin) {
        /* A trace is told by its own magic, before any decompression. */
        int fd = open(it->path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char head[64]; /* a damaged trace header is known by the block after it */
            ssize_t n = read(fd, head, sizeof head);
            if (fstat(fd, &st) == 0) {
                it->raw_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
                it->size_known = S_ISREG(st.st_mode);
                it->dev = st.st_dev;
                it->ino = st.st_ino;
                when = st.st_mtime;
                it->mtime = (sat_ts_ns)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            }
            close(fd);
            if (n > 0 && sat_trace_sniff(head, (size_t)n)) {
                it->kind = ITEM_TRACE;
                return;
            }
        }
    }
    struct tm tm;
    it->year = gmtime_r(&when, &tm) ? tm.tm_year + 1900 : 1970;

    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_input *in = sat_input_open(it->path, &d);
    if (!in) {
        it->kind = ITEM_BAD;
        r->stats->unreadable++;
        sat_run_warn(r, it->path, "%s", d.msg);
        sat_run_problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return;
    }
    size_t plen = 0;
    const char *peek = sat_input_peek(in, &plen);
    if (is_stdin && sat_trace_sniff(peek, plen)) {
        it->kind = ITEM_BAD;
        r->stats->unreadable++;
        sat_run_warn(r, it->path, "a .sat trace cannot be read from a pipe; give its path");
        sat_run_problem(r, SAT_E_UNSUPPORTED, it->path, "a .sat trace on standard input");
        sat_input_close(in);
        return;
    }
    if (sat_core_sniff(peek, plen)) { /* never a log, whatever --format says */
        it->kind = ITEM_CORE;
        if (is_stdin)
            it->kept = in;
        else
            sat_input_close(in);
        return;
    }
    if (!r->opts->format && sat_capture_sniff(peek, plen)) {
        it->kind = ITEM_CAPTURE;
        if (is_stdin)
            it->kept = in;
        else
            sat_input_close(in);
        return;
    }
    it->kind = ITEM_LOG;
    it->empty = plen == 0;
    it->companion = is_stdin ? NULL : sat_collect_companion(it->path);
    if (it->companion) { /* read for crash text only, whatever --format says */
        sat_input_close(in);
        return;
    }
    if (r->opts->log_format) {
        it->fmt = sat_log_format_by_name("http"); /* the user said what these logs are */
    } else if (r->opts->format) {
        it->fmt = sat_log_format_by_name(r->opts->format);
    } else if (plen) {
        it->fmt = sat_log_format_sniff(peek, plen);
    }
    if (r->opts->log_format && it->fmt && plen) {
        if (sat_http_log_first_ts(r->opts->log_format, peek, plen, &it->first_ts) == SAT_OK)
            it->has_ts = 1;
    } else if (it->fmt && it->fmt->first_ts && plen &&
               it->fmt->first_ts(peek, plen, &it->first_ts) == SAT_OK) {
        it->has_ts = 1;
    }
    /* Year-less timestamps: the one rule (sat_year_for) against the time the
     * file was last written, or the year given; the rotated-set order may
     * move it back (order_years). Ordering and parsing use the same year. */
    int y;
    sat_ts_ns yts;
    if (it->fmt && it->fmt->first_year && plen) {
        sat_ts_ns ref = it->mtime;
        it->year_why = is_stdin || !ref ? "the current year (no file time)"
                                        : "from the file's modification time";
        if (r->opts->year) {
            ref = sat_run_year_end(r->opts->year);
            it->year_why = "given with --year";
        }
        if (it->fmt->first_year(peek, plen, ref, &y, &yts) == SAT_OK) {
            it->year = y;
            it->first_ts = yts;
            it->has_ts = 1;
            it->yearless = 1;
        }
    }
    sanitise(peek, plen < 24 ? plen : 24, it->first_bytes, sizeof it->first_bytes);
    if (is_stdin)
        it->kept = in; /* cannot be opened twice */
    else
        sat_input_close(in);
}
