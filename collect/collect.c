/*
 * collect.c - sat_collect_run: a whole collection of inputs into one sink.
 *
 *  1. Expand the inputs: a glob pattern (glob(3)), a directory (its regular
 *     files, not recursive), a file, "-" for standard input.
 *  2. Look at each input's first bytes: a .sat trace (sat_trace_sniff) is
 *     replayed through the trace reader; a pcap/pcapng capture (after
 *     decompression) is read by capture.c; an ELF core file (also after
 *     decompression) by core_collect.c; anything else is a log whose
 *     format is sniffed (parse/ registry) and whose first timestamp is read.
 *  3. Group the logs into servers (rotation.c: a rotated set of one server's
 *     log) and order each set by the time of its content, not its names.
 *  4. Per server one joiner, fed by every file of the set in order; per file
 *     one parser state and one sat_source row, emitted once the file is done
 *     so its counts are final.
 *
 * Nothing is lost silently: every input ends up read, unreadable (warned,
 * counted) or truncated (warned, counted, its source row flagged).
 */
#include "satscope/collect.h"
#include "parse_parallel.h"
#include "satscope/core.h"
#include "satscope/parse.h"
#include "satscope/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect_internal.h"

enum item_kind { ITEM_LOG = 0, ITEM_TRACE, ITEM_BAD, ITEM_SKIP /* a duplicate */,
                 ITEM_CAPTURE /* pcap / pcapng, plain or compressed */,
                 ITEM_CORE /* ELF core file, plain or compressed */ };

typedef struct item {
    char *path;                 /* owned */
    size_t order;               /* position after expansion */
    int kind;                   /* enum item_kind */
    size_t group;               /* index into the server groups (logs) */
    const sat_log_format *fmt;  /* NULL: empty or not recognised */
    int empty;                  /* no bytes at all */
    char first_bytes[48];       /* sanitised, for the "not recognised" warning */
    int has_ts;
    sat_ts_ns first_ts;
    sat_input *kept;            /* standard input stays open between passes */
    uint64_t raw_size;
    int size_known;             /* a regular file (not a pipe or stdin) */
    dev_t dev;                  /* identity of a regular file, to read it once */
    ino_t ino;
    int year;                   /* year of year-less timestamps (syslog): the
                                   first line's by sat_year_for the mtime */
    int yearless;               /* its first timestamp had no year */
    const char *year_why;       /* where year came from, for the note */
    int expanded;               /* found by expanding a directory or a pattern */
    sat_ts_ns mtime;            /* modification time (a core's crash time), 0 unknown */
} item;

static sat_ts_ns year_end(int y);

typedef struct group {
    char *key;        /* owned: directory + base name without rotation suffixes */
    size_t *items;    /* indexes into the item array, in reading order */
    size_t nitems, cap;
    size_t first_order;
} group;

typedef struct run {
    const sat_collect_opts *opts;
    const sat_event_sink *sink;
    sat_collect_stats *stats;
    sat_diag first_problem; /* the first unreadable/truncated input, for the caller */

    item *items;
    size_t nitems, cap;
    group *groups;
    size_t ngroups, gcap;

    uint32_t next_source;   /* sat_source.id of the next source row */
    uint32_t next_server;   /* first server index not yet used */

    /* progress */
    int progress_shown;
    uint64_t total_raw, done_raw;
    int total_unknown;
    struct timespec t0, last;
    uint64_t lines_at_t0;
} run;

/* ---- warnings and progress ------------------------------------------------------ */

void sat_collect_warnf(sat_collect_warn_fn warn, void *ctx, const char *path, const char *fmt,
                       ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warn)
        warn(ctx, path, msg);
    else
        fprintf(stderr, "satscope: %s: %s\n", path, msg);
}

static void progress_clear(run *r)
{
    if (r->progress_shown) {
        fprintf(stderr, "\r%-79s\r", "");
        r->progress_shown = 0;
    }
}

static void warn(run *r, const char *where, const char *fmt, ...) SAT_PRINTF(3, 4);
static void warn(run *r, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    progress_clear(r);
    if (r->opts->warn)
        r->opts->warn(r->opts->warn_ctx, where, msg);
    else
        fprintf(stderr, "satscope: %s%s%s\n", where ? where : "",
                where && *where ? ": " : "", msg);
}

static void problem(run *r, int code, const char *where, const char *msg)
{
    if (!r->first_problem.code)
        sat_diag_set(&r->first_problem, code, where, "%s", msg);
}

static double secs(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress(run *r, const char *path, sat_input *in, uint64_t lines_now)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (secs(&r->last, &now) < 0.25)
        return;
    r->last = now;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    double el = secs(&r->t0, &now);
    double lps = el > 0 ? (double)(r->stats->lines + lines_now - r->lines_at_t0) / el : 0;
    double mb = (double)(r->done_raw + sat_input_raw_bytes(in)) / 1e6;
    char line[160];
    if (r->total_raw && !r->total_unknown)
        snprintf(line, sizeof line, "satscope: %.32s  %.1f / %.1f MB  %.2f M lines/s",
                 base, mb, (double)r->total_raw / 1e6, lps / 1e6);
    else
        snprintf(line, sizeof line, "satscope: %.32s  %.1f MB  %.2f M lines/s", base,
                 mb, lps / 1e6);
    fprintf(stderr, "\r%-79.79s", line);
    fflush(stderr);
    r->progress_shown = 1;
}

/* ---- expansion -------------------------------------------------------------------- */
typedef struct progress_at {
    run *r;
    const char *path;
    sat_input *in;
} progress_at;

static void progress_cb(void *u, uint64_t lines)
{
    progress_at *a = (progress_at *)u;
    progress(a->r, a->path, a->in, lines);
}

static int add_item(run *r, const char *path)
{
    if (r->nitems == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 16;
        item *ni = realloc(r->items, nc * sizeof *ni);
        if (!ni)
            return SAT_E_NOMEM;
        r->items = ni;
        r->cap = nc;
    }
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
        warn(r, dir, "%s", strerror(errno));
        problem(r, SAT_E_IO, dir, strerror(errno));
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
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                free(p);
                rc = SAT_E_NOMEM;
                break;
            }
            names = nn;
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
        warn(r, dir, "directory has no regular files");
        problem(r, SAT_E_IO, dir, "directory has no regular files");
    }
    return rc;
}

static int add_path(run *r, const char *path)
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
            warn(r, path, "no file matches this pattern");
            problem(r, SAT_E_IO, path, "no file matches this pattern");
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
static int same_file_before(run *r, size_t i)
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
            warn(r, it->path, "same file as %s; read once", o->path);
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

static void look(run *r, item *it)
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
            char head[16];
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
        warn(r, it->path, "%s", d.msg);
        problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return;
    }
    size_t plen = 0;
    const char *peek = sat_input_peek(in, &plen);
    if (is_stdin && sat_trace_sniff(peek, plen)) {
        it->kind = ITEM_BAD;
        r->stats->unreadable++;
        warn(r, it->path, "a .sat trace cannot be read from a pipe; give its path");
        problem(r, SAT_E_UNSUPPORTED, it->path, "a .sat trace on standard input");
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
    if (r->opts->format) {
        it->fmt = sat_log_format_by_name(r->opts->format);
    } else if (plen) {
        it->fmt = sat_log_format_sniff(peek, plen);
    }
    if (it->fmt && it->fmt->first_ts && plen &&
        it->fmt->first_ts(peek, plen, &it->first_ts) == SAT_OK)
        it->has_ts = 1;
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
            ref = year_end(r->opts->year);
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

/* ---- years of year-less timestamps --------------------------------------------------------- */
/* Dec 30 of year y, 00:00 UTC: sat_year_for against it gives y for any date. */
static sat_ts_ns year_end(int y)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = 11;
    tm.tm_mday = 30;
    return (sat_ts_ns)timegm(&tm) * 1000000000LL;
}

/* ts moved to the same date and time of day in year y. */
static sat_ts_ns in_year(sat_ts_ns ts, int y)
{
    time_t t = (time_t)(ts / 1000000000LL);
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return ts;
    tm.tm_year = y - 1900;
    return (sat_ts_ns)timegm(&tm) * 1000000000LL + ts % 1000000000LL;
}

/* A rotated set is written in its rotation order (slapd.log.2, .1, then the
 * live file): the file's own year (by its mtime) is an upper bound (no line is written after
 * the file was last modified, and a copy only makes the mtime later), so an
 * older file whose first line, in its year, comes after the first line of the
 * next newer one belongs to the year before (slapd.log.1 ending on Dec 31,
 * slapd.log starting on Jan 1, both copied later). */
static void order_years(run *r, group *g)
{
    /* --year gives the oldest file's year: newer files move on instead */
    int forward = r->opts->year != 0;
    for (int moved = 1; moved;) {
        moved = 0;
        for (size_t a = 0; a < g->nitems; a++) {
            item *older = &r->items[g->items[a]];
            int ra = sat_collect_rotation_index(older->path);
            if (!older->yearless || ra == 0)
                continue;
            for (size_t b = 0; b < g->nitems; b++) {
                item *newer = &r->items[g->items[b]];
                if (!newer->yearless || sat_collect_rotation_index(newer->path) >= ra)
                    continue;
                while (older->first_ts > newer->first_ts && older->year > 1970 &&
                       newer->year < 9999) {
                    item *it = forward ? newer : older;
                    it->year += forward ? 1 : -1;
                    it->first_ts = in_year(it->first_ts, it->year);
                    it->year_why = forward ? "after the older files of its rotated set"
                                           : "before the newer files of its rotated set";
                    moved = 1;
                }
            }
        }
    }
}

/* ---- grouping ------------------------------------------------------------------------- */
static int group_items(run *r)
{
    for (size_t i = 0; i < r->nitems; i++) {
        item *it = &r->items[i];
        if (it->kind != ITEM_LOG)
            continue;
        char *key = sat_collect_group_key(it->path);
        if (!key)
            return SAT_E_NOMEM;
        size_t g;
        for (g = 0; g < r->ngroups; g++)
            if (strcmp(r->groups[g].key, key) == 0)
                break;
        if (g == r->ngroups) {
            if (r->ngroups == r->gcap) {
                size_t nc = r->gcap ? r->gcap * 2 : 8;
                group *ng = realloc(r->groups, nc * sizeof *ng);
                if (!ng) {
                    free(key);
                    return SAT_E_NOMEM;
                }
                r->groups = ng;
                r->gcap = nc;
            }
            memset(&r->groups[g], 0, sizeof r->groups[g]);
            r->groups[g].key = key;
            r->groups[g].first_order = it->order;
            r->ngroups++;
        } else {
            free(key);
        }
        group *gr = &r->groups[g];
        if (gr->nitems == gr->cap) {
            size_t nc = gr->cap ? gr->cap * 2 : 8;
            size_t *ni = realloc(gr->items, nc * sizeof *ni);
            if (!ni)
                return SAT_E_NOMEM;
            gr->items = ni;
            gr->cap = nc;
        }
        gr->items[gr->nitems++] = i;
        it->group = g;
    }
    return SAT_OK;
}

static _Thread_local const item *sort_base; /* runs may go on at once (collect.c) */
/* Files whose first timestamp is known come first, by that time; the others
 * (empty, unrecognised, no timestamp in the first 64 KiB) after them. Ties
 * and unknowns fall back to the name, then to the order given. */
static int cmp_items(const void *a, const void *b)
{
    const item *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    if (x->has_ts != y->has_ts)
        return x->has_ts ? -1 : 1;
    if (x->has_ts && x->first_ts != y->first_ts)
        return x->first_ts < y->first_ts ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* ---- crash reports written as text (crash_scan.c) ------------------------------------------
 * Read `in` through the crash-text scanner into the sink, its rows carrying
 * src's id. Returns the crashes found, in the time window or not (0 also when
 * the input is not text), or a sink's negative status. */
static int64_t scan_for_crashes(run *r, item *it, sat_input *in, sat_source *src)
{
    size_t plen = 0;
    const char *peek = sat_input_peek(in, &plen);
    if (!sat_collect_is_text(peek, plen))
        return 0;
    sat_crash_scan_job job;
    memset(&job, 0, sizeof job);
    job.in = in;
    job.sink = r->sink;
    job.src = src;
    /* the year the log lines of this file were given, or the same rule */
    job.year = r->opts->year ? r->opts->year : it->yearless ? it->year : 0;
    job.year_ref = it->mtime;
    job.from_ns = r->opts->from_ns;
    job.to_ns = r->opts->to_ns;
    int rc = sat_collect_crash_scan(&job);
    if (rc < 0)
        return rc;
    if (job.input_rc < 0 && !src->truncated) {
        src->truncated = 1;
        r->stats->truncated++;
        warn(r, it->path, "%s", job.diag.msg);
        problem(r, job.input_rc, it->path, job.diag.msg);
    }
    uint64_t found = job.crashes + job.outside;
    if (found && !src->lines)
        src->lines = job.lines;
    return (int64_t)found;
}

/* ---- one log file ----------------------------------------------------------------------- */
static int collect_file(run *r, item *it, uint32_t server, sat_ldap_join *join)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_input *in = it->kept;
    it->kept = NULL;
    if (!in)
        in = sat_input_open(it->path, &d);
    if (!in) { /* vanished or changed between the two looks */
        r->stats->unreadable++;
        warn(r, it->path, "%s", d.msg);
        problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return SAT_OK;
    }

    sat_source src;
    memset(&src, 0, sizeof src);
    src.id = r->next_source++;
    src.server = server;
    src.path = sat_str_cstr(it->path);
    src.kind = sat_str_cstr("log");
    src.compression = sat_str_cstr(sat_input_compression(in));
    src.server_name = SAT_STR_NONE;
    src.server_version = SAT_STR_NONE;

    if (!it->fmt) {
        int64_t crashes = it->empty ? 0 : scan_for_crashes(r, it, in, &src);
        if (crashes < 0) {
            sat_input_close(in);
            return (int)crashes;
        }
        if (crashes > 0) {
            /* not a log satscope parses, but crash reports were written in it */
            src.format = sat_str_cstr("crash-text");
            src.bytes = sat_input_bytes(in);
            r->stats->bytes += src.bytes;
            r->stats->lines += src.lines;
            r->done_raw += sat_input_raw_bytes(in);
            sat_input_close(in);
            return sat_sink_emit(r->sink, SAT_TABLE_SOURCE, &src);
        }
        if (it->empty) {
            src.format = sat_str_cstr("empty");
            /* A compressed file cut before its first line decodes to nothing:
             * that is a damaged input, not an empty one. */
            const char *l;
            size_t n;
            sat_diag d2;
            memset(&d2, 0, sizeof d2);
            if (sat_input_next_line(in, &l, &n, &d2) < 0) {
                src.truncated = 1;
                r->stats->unreadable++;
                warn(r, it->path, "%s", d2.msg);
                problem(r, d2.code ? d2.code : SAT_E_TRUNCATED, it->path, d2.msg);
            }
        } else if (it->expanded && !r->opts->format) {
            /* The user named a directory or a pattern, not this file: a
             * README or a core beside the logs is passed over, said, and
             * counted, but the collection is not failed for it. */
            src.format = sat_str_cstr("unknown");
            r->stats->skipped++;
            warn(r, it->path, "skipped: not a recognised log format (first bytes: \"%s\")",
                 it->first_bytes);
        } else {
            src.format = sat_str_cstr("unknown");
            r->stats->unreadable++;
            if (r->opts->format) {
                warn(r, it->path, "unknown log format '%s'", r->opts->format);
                problem(r, SAT_E_USAGE, it->path, "unknown log format");
            } else {
                warn(r, it->path, "not a recognised log format (first bytes: \"%s\")",
                     it->first_bytes);
                problem(r, SAT_E_FORMAT, it->path, "not a recognised log format");
            }
        }
        src.bytes = sat_input_bytes(in);
        sat_input_close(in);
        return sat_sink_emit(r->sink, SAT_TABLE_SOURCE, &src);
    }
    src.format = sat_str_cstr(it->fmt->name);

    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = join;
    ctx.sink = r->sink;
    ctx.source = &src;
    ctx.reject_sample_max = r->opts->reject_sample_max ? r->opts->reject_sample_max : 100;
    /* Syslog timestamps have no year: the year found for the file's first
     * line (see the probe and order_years), said once; the parser bumps it
     * itself when the months wrap Dec -> Jan. */
    ctx.default_year = it->yearless || !r->opts->year ? it->year : r->opts->year;
    if (it->yearless)
        warn(r, it->path, "syslog timestamps carry no year: %d assumed for the first line (%s)",
             ctx.default_year, it->year_why);

    sat_pp *pp = NULL;
    void *st = NULL;
    if (r->opts->parse_threads >= 2 && it->fmt->line_independent)
        pp = sat_pp_create(it->fmt, &ctx, r->opts->parse_chunk_bytes);
    if (!pp)
        st = it->fmt->create(&ctx);
    if (!pp && !st) {
        sat_input_close(in);
        return SAT_E_NOMEM;
    }
    uint64_t line_no = 0, cut_here = 0;
    int rc = SAT_OK, irc = 0;
    if (pp) {
        progress_at at = {r, it->path, in};
        sat_pp_result res;
        rc = sat_pp_run(pp, in, r->opts->progress ? progress_cb : NULL, &at, &res, &d);
        line_no = res.lines;
        cut_here = res.cut_lines;
        irc = res.input_rc;
    } else {
        const char *line;
        size_t len;
        while ((irc = sat_input_next_line(in, &line, &len, &d)) == 1) {
            line_no++;
            rc = it->fmt->line(st, line, len, line_no);
            if (rc < 0)
                break;
            if (r->opts->progress && (line_no & 0x3fff) == 0)
                progress(r, it->path, in, line_no);
        }
    }
    if (rc >= 0 && sat_input_interrupted(in)) {
        /* The input ended at the interrupt (sat_input_set_interrupt): the
         * lines read before it are parsed and joined as usual, one of the
         * two parser threads' chunks included; the rest is not read. */
        src.truncated = 1;
        r->stats->interrupted = 1;
        warn(r, it->path, "interrupted after %llu lines: the rest of this input was not read",
             (unsigned long long)line_no);
    }
    if (rc >= 0 && irc < 0) {
        /* Everything decodable was parsed; say what was lost. */
        src.truncated = 1;
        r->stats->truncated++;
        warn(r, it->path, "%s", d.msg);
        problem(r, irc, it->path, d.msg);
    }
    if (rc >= 0 && st)
        rc = it->fmt->finish(st); /* sat_pp_run finished its own states */
    src.bytes = sat_input_bytes(in);
    src.lines = line_no;
    if (rc >= 0 && src.lines && src.rejects == src.lines && it->size_known) {
        /* Not one line was this format's (a 389 errors log has the access
         * log's timestamps): read it again for crashes written as text. */
        sat_diag d2;
        memset(&d2, 0, sizeof d2);
        sat_input *again = sat_input_open(it->path, &d2);
        int64_t crashes = again ? scan_for_crashes(r, it, again, &src) : 0;
        sat_input_close(again);
        if (crashes < 0)
            rc = (int)crashes;
        else if (crashes > 0)
            warn(r, it->path, "no line was %s; %lld crash report%s written as text found in it",
                 it->fmt->name, (long long)crashes, crashes == 1 ? "" : "s");
    }
    uint64_t cut = sat_input_cut_lines(in) + cut_here;
    if (cut)
        warn(r, it->path, "%llu line%s longer than 1 MiB cut at 1 MiB",
             (unsigned long long)cut, cut == 1 ? "" : "s");
    r->stats->bytes += src.bytes;
    r->stats->lines += src.lines;
    r->stats->rejects += src.rejects;
    r->done_raw += sat_input_raw_bytes(in);
    /* what it can carry (fields.h); a file not one line of which was the
     * format's holds no LDAP rows and declares nothing */
    src.fields = src.lines > src.rejects ? sat_fields_settle(src.format, src.fields) : 0;
    if (rc >= 0)
        rc = sat_sink_emit(r->sink, SAT_TABLE_SOURCE, &src);
    if (st)
        it->fmt->destroy(st);
    sat_pp_free(pp); /* after the source row: it holds the header strings */
    sat_input_close(in);
    return rc;
}

/* --from/--to on logs: the joiner sees every line (a request before the
 * window may be answered inside it), its rows are kept by their time: an
 * operation by its request time, a connection if it was open at some moment
 * of the window. */
typedef struct window {
    const sat_event_sink *inner;
    sat_ts_ns from, to; /* 0 = unbounded */
} window;

static int in_window(const window *w, sat_ts_ns ts)
{
    return (!w->from || ts >= w->from) && (!w->to || ts < w->to);
}

/* Whether a row is kept by the window: ldap_op and tls_hs rows by their time,
 * connections (ldap_conn, tcp_conn) if open at some moment of it. A crash by
 * its time, one of unknown time (0) only when there is no window, as the trace
 * reader does (FORMAT.md "Time range of a block"). Every other row passes:
 * rejects, and frames, which have no time and come before their crash row (a
 * consumer keeps those whose (source, crash) it saw: event.h's join rule). */
static int win_keeps(const window *w, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return in_window(w, ((const sat_ldap_op *)row)->ts_ns);
    case SAT_TABLE_LDAP_CONN: {
        const sat_ldap_conn *c = row;
        sat_ts_ns open = c->open_ts ? c->open_ts : c->close_ts;
        sat_ts_ns close = c->close_ts ? c->close_ts : c->open_ts;
        return !((w->to && open >= w->to) || (w->from && close < w->from));
    }
    case SAT_TABLE_TCP_CONN: {
        const sat_tcp_conn *c = row;
        return !((w->to && c->syn_ts >= w->to) || (w->from && c->end_ts < w->from));
    }
    case SAT_TABLE_TLS_HS:
        return in_window(w, ((const sat_tls_hs *)row)->ts);
    case SAT_TABLE_CRASH: {
        const sat_crash *c = row;
        return c->ts ? in_window(w, c->ts) : !w->from && !w->to;
    }
    default:
        return 1;
    }
}

static int win_row(void *ctx, int table, const void *row)
{
    const window *w = ctx;
    return win_keeps(w, table, row) ? sat_sink_emit(w->inner, table, row) : SAT_OK;
}

static void warn_cb(void *ctx, const char *where, const char *msg)
{
    warn((run *)ctx, where, "%s", msg);
}

/* One capture file, or the live interface when it == NULL. */
static int collect_capture(run *r, item *it)
{
    window win = {r->sink, r->opts->from_ns, r->opts->to_ns};
    /* Captures: every row table through the window (sources stay outside it);
     * rejects are always made (the window passes them on if wanted). */
    sat_event_sink rows = {&win,
                           ((r->sink->on_row ? r->sink->tables : 0) &
                            ~SAT_TABLE_BIT(SAT_TABLE_SOURCE)) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                           win_row};
    sat_capture_job job;
    memset(&job, 0, sizeof job);
    job.path = it ? it->path : NULL;
    job.in = it ? it->kept : NULL;
    job.opts = r->opts;
    job.sink = r->sink;
    job.rows = &rows;
    job.source_id = r->next_source++;
    job.server = r->next_server++;
    job.stats = r->stats;
    job.warn = warn_cb;
    job.warn_ctx = r;
    int rc = sat_capture_collect(&job);
    if (it && it->kept) {
        sat_input_close(it->kept);
        it->kept = NULL;
    }
    if (it)
        r->done_raw += it->raw_size;
    if (job.unreadable) {
        r->stats->unreadable++;
        problem(r, job.problem.code ? job.problem.code : SAT_E_IO,
                job.path ? job.path : "capture", job.problem.msg);
    } else if (job.truncated) {
        r->stats->truncated++;
        problem(r, SAT_E_TRUNCATED, job.path ? job.path : "capture", job.problem.msg);
    }
    return rc;
}

/* One core file: its frames and crash row, then its source row. */
static int collect_core(run *r, item *it)
{
    sat_core_job job;
    memset(&job, 0, sizeof job);
    job.path = it->path;
    job.in = it->kept;
    job.opts = r->opts;
    job.sink = r->sink;
    job.rows = r->sink;
    job.source_id = r->next_source++;
    job.server = r->next_server++;
    job.mtime = it->mtime;
    job.stats = r->stats;
    job.warn = warn_cb;
    job.warn_ctx = r;
    int rc = sat_core_collect(&job);
    if (it->kept) {
        sat_input_close(it->kept);
        it->kept = NULL;
    }
    r->done_raw += it->raw_size;
    if (job.unreadable) {
        r->stats->unreadable++;
        problem(r, job.problem.code ? job.problem.code : SAT_E_IO, it->path, job.problem.msg);
    } else if (job.truncated) {
        r->stats->truncated++;
        problem(r, SAT_E_TRUNCATED, it->path, job.problem.msg);
    }
    return rc;
}

static int collect_group(run *r, group *g)
{
    uint32_t server = r->next_server++;
    order_years(r, g);
    sort_base = r->items;
    qsort(g->items, g->nitems, sizeof *g->items, cmp_items);
    window win = {r->sink, r->opts->from_ns, r->opts->to_ns};
    sat_event_sink windowed = *r->sink;
    if (win.from || win.to) {
        windowed.ctx = &win;
        windowed.on_row = win_row;
    }
    sat_ldap_join *join = sat_ldap_join_create(server, &windowed, 0);
    if (!join)
        return SAT_E_NOMEM;
    sat_ldap_join_set_filter_shapes(join, !r->opts->no_filter_shapes);
    int rc = SAT_OK;
    for (size_t i = 0; i < g->nitems && rc >= 0; i++) {
        if (r->opts->stop && *r->opts->stop) { /* interrupted: the rest of the set waits */
            r->stats->interrupted = 1;
            r->stats->not_started++;
            continue;
        }
        rc = collect_file(r, &r->items[g->items[i]], server, join);
    }
    if (rc >= 0)
        rc = sat_ldap_join_finish(join);
    sat_join_stats js;
    sat_ldap_join_stats(join, &js);
    r->stats->ops += js.ops;
    r->stats->conns += js.conns;
    r->stats->unfinished += js.unfinished;
    sat_ldap_join_free(join);
    return rc;
}

/* ---- traces ------------------------------------------------------------------------------
 * A trace's rows carry its own server and source numbers; they are moved past
 * the ones already used so that several traces and logs never collide. */
typedef struct renumber {
    run *r;
    uint32_t server_base, source_base;
    uint32_t max_server, max_source;
    int any_server, any_source;
    int sink_rc;
} renumber;

static void see_server(renumber *n, uint32_t s)
{
    if (!n->any_server || s > n->max_server)
        n->max_server = s;
    n->any_server = 1;
}
static void see_source(renumber *n, uint32_t s)
{
    if (!n->any_source || s > n->max_source)
        n->max_source = s;
    n->any_source = 1;
}
static int pass(renumber *n, int rc)
{
    if (rc < 0)
        n->sink_rc = rc;
    return rc;
}

/* Every row moved past the numbers used: sources by id and server, ldap rows
 * by server, capture and crash rows by source ((source, crash) of a frame
 * still names its crash row); a table without such numbers passes as it is. */
static int rn_row(void *ctx, int table, const void *row)
{
    renumber *n = ctx;
    const sat_event_sink *out = n->r->sink;
    switch (table) {
    case SAT_TABLE_SOURCE: {
        const sat_source *s = row;
        sat_source c = *s;
        see_source(n, s->id);
        see_server(n, s->server);
        c.id += n->source_base;
        c.server += n->server_base;
        n->r->stats->bytes += s->bytes;
        n->r->stats->lines += s->lines;
        n->r->stats->rejects += s->rejects;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_REJECT: {
        sat_reject c = *(const sat_reject *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_LDAP_OP: {
        sat_ldap_op c = *(const sat_ldap_op *)row;
        see_server(n, c.server);
        c.server += n->server_base;
        n->r->stats->ops++;
        if (c.flags & SAT_OPF_UNFINISHED)
            n->r->stats->unfinished++;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_LDAP_CONN: {
        sat_ldap_conn c = *(const sat_ldap_conn *)row;
        see_server(n, c.server);
        c.server += n->server_base;
        n->r->stats->conns++;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_TCP_CONN: {
        sat_tcp_conn c = *(const sat_tcp_conn *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_TLS_HS: {
        sat_tls_hs c = *(const sat_tls_hs *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_CRASH: {
        sat_crash c = *(const sat_crash *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_FRAME: {
        sat_frame c = *(const sat_frame *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    default:
        return pass(n, sat_sink_emit(out, table, row));
    }
}

static int collect_trace(run *r, item *it)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_trace_reader *tr = sat_trace_reader_open(it->path, &d);
    if (!tr) {
        r->stats->unreadable++;
        warn(r, it->path, "%s%s%s", d.where[0] && strcmp(d.where, it->path) ? d.where : "",
             d.where[0] && strcmp(d.where, it->path) ? ": " : "", d.msg);
        problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return SAT_OK;
    }
    r->stats->traces++;
    if (d.code == SAT_E_TRUNCATED) {
        r->stats->truncated++;
        warn(r, it->path, "%s", d.msg);
        problem(r, SAT_E_TRUNCATED, it->path, d.msg);
    }
    renumber n;
    memset(&n, 0, sizeof n);
    n.r = r;
    n.server_base = r->next_server;
    n.source_base = r->next_source;
    /* sources and rejects always: they are the accounting of what was read */
    sat_event_sink rs = {&n,
                         (r->sink->on_row ? r->sink->tables : 0) |
                             SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                         rn_row};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.from_ns = r->opts->from_ns;
    o.to_ns = r->opts->to_ns;
    o.tables = rs.tables; /* only the tables the sink takes are decoded */
    memset(&d, 0, sizeof d);
    int rc = sat_trace_read(tr, &o, &rs, &d);
    if (rc == SAT_E_CORRUPT && n.sink_rc != rc) {
        /* Damaged blocks were skipped, every other block read: name each
         * loss (table, rows, time range) so that the figures can be judged. */
        const sat_trace_damage *dm;
        size_t nd = sat_trace_reader_damage(tr, &dm);
        for (size_t i = 0; i < nd; i++) {
            char where[600], what[600];
            snprintf(where, sizeof where, "%s: block %llu (offset %llu)", it->path,
                     (unsigned long long)dm[i].block, (unsigned long long)dm[i].offset);
            sat_trace_damage_describe(&dm[i], what, sizeof what);
            warn(r, where, "damaged block skipped: %s; the other blocks were read", what);
        }
        r->stats->damaged_blocks += nd;
        problem(r, SAT_E_CORRUPT, d.where, d.msg);
        rc = SAT_OK;
    }
    sat_trace_reader_close(tr);
    if (n.any_server)
        r->next_server = n.server_base + n.max_server + 1;
    if (n.any_source)
        r->next_source = n.source_base + n.max_source + 1;
    r->done_raw += it->raw_size;
    if (rc < 0 && n.sink_rc == rc)
        return rc; /* the sink's own status goes back to the caller */
    if (rc < 0) {
        char where[600];
        snprintf(where, sizeof where, "%s%s%s", it->path, d.where[0] ? ": " : "", d.where);
        r->stats->truncated++;
        warn(r, where, "%s; the rows before it were used", d.msg);
        problem(r, SAT_E_TRUNCATED, where, d.msg);
    }
    return SAT_OK;
}

/* ---- the run -----------------------------------------------------------------------------
 * Runs may go on at once on several threads (the CLI analyses inputs in
 * parallel), all with the process's one interrupt flag: the input reader has
 * one, set by the first run to start and cleared by the last to end. */
static pthread_mutex_t interrupt_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned interrupt_runs;

static void interrupt_enter(const volatile sig_atomic_t *stop)
{
    pthread_mutex_lock(&interrupt_lock);
    if (interrupt_runs++ == 0) /* runs at once are given the one flag (cli_parallel.c) */
        sat_input_set_interrupt(stop);
    pthread_mutex_unlock(&interrupt_lock);
}

static void interrupt_leave(void)
{
    pthread_mutex_lock(&interrupt_lock);
    if (--interrupt_runs == 0)
        sat_input_set_interrupt(NULL);
    pthread_mutex_unlock(&interrupt_lock);
}

int sat_collect_run(const char *const *paths, size_t npaths,
                    const sat_collect_opts *opts, const sat_event_sink *sink,
                    sat_collect_stats *stats, sat_diag *diag)
{
    sat_collect_opts defaults;
    sat_collect_stats local;
    memset(&defaults, 0, sizeof defaults);
    if (!opts)
        opts = &defaults;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!sink || (!paths && npaths))
        return sat_diag_set(diag, SAT_E_USAGE, "collect", "no sink or no inputs");
    if (opts->live_iface && !opts->live_duration && !opts->live_count && !opts->stop)
        return sat_diag_set(diag, SAT_E_USAGE, "collect",
                            "a live capture needs a duration, a packet count or a stop flag");
    if (opts->format && !sat_log_format_by_name(opts->format))
        return sat_diag_set(diag, SAT_E_USAGE, "collect", "unknown log format '%s'",
                            opts->format);

    run r;
    memset(&r, 0, sizeof r);
    r.opts = opts;
    r.sink = sink;
    r.stats = stats;
    r.next_source = opts->source_base;
    r.next_server = opts->server_base;
    /* from here on (the first looks at the inputs included) an interrupt
     * ends the read in hand, even one waiting on a FIFO */
    interrupt_enter(opts->stop);

    int rc = SAT_OK;
    for (size_t i = 0; i < npaths && rc == SAT_OK; i++)
        rc = add_path(&r, paths[i]);
    stats->inputs += r.nitems;
    for (size_t i = 0; i < r.nitems && rc == SAT_OK; i++) {
        if (same_file_before(&r, i))
            continue;
        look(&r, &r.items[i]);
        r.total_raw += r.items[i].raw_size;
        if (!r.items[i].size_known && r.items[i].kind != ITEM_BAD &&
            r.items[i].kind != ITEM_SKIP)
            r.total_unknown = 1; /* a pipe: no "of N MB" then */
    }
    if (rc == SAT_OK)
        rc = group_items(&r);

    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    r.last = r.t0;
    if (rc == SAT_OK && opts->live_iface) {
        stats->inputs++;
        rc = collect_capture(&r, NULL);
    }

    /* Servers and traces in the order the user named them. Log servers are
     * numbered first-come; a trace's servers follow the ones used before it. */
    size_t *done_group = calloc(r.ngroups ? r.ngroups : 1, sizeof *done_group);
    if (!done_group && rc == SAT_OK)
        rc = SAT_E_NOMEM;
    for (size_t i = 0; i < r.nitems && rc >= 0; i++) {
        item *it = &r.items[i];
        if (opts->stop && *opts->stop) {
            stats->interrupted = 1;
            if (it->kind != ITEM_BAD && it->kind != ITEM_SKIP &&
                !(it->kind == ITEM_LOG && done_group[it->group]))
                stats->not_started++;
            continue;
        }
        if (it->kind == ITEM_TRACE) {
            rc = collect_trace(&r, it);
        } else if (it->kind == ITEM_CAPTURE) {
            rc = collect_capture(&r, it);
        } else if (it->kind == ITEM_CORE) {
            rc = collect_core(&r, it);
        } else if (it->kind == ITEM_LOG && !done_group[it->group]) {
            done_group[it->group] = 1;
            rc = collect_group(&r, &r.groups[it->group]);
        }
    }
    free(done_group);
    progress_clear(&r);
    interrupt_leave();
    stats->next_source = r.next_source;
    stats->next_server = r.next_server;

    for (size_t i = 0; i < r.nitems; i++) {
        sat_input_close(r.items[i].kept);
        free(r.items[i].path);
    }
    free(r.items);
    for (size_t g = 0; g < r.ngroups; g++) {
        free(r.groups[g].key);
        free(r.groups[g].items);
    }
    free(r.groups);

    if (rc < 0) {
        if (rc == SAT_E_NOMEM)
            sat_diag_set(diag, rc, "collect", "out of memory");
        return rc; /* a sink's status or an allocation failure */
    }
    if (stats->unreadable || stats->truncated || stats->damaged_blocks) {
        int code = stats->unreadable ? SAT_E_IO
                   : stats->truncated ? SAT_E_TRUNCATED : SAT_E_CORRUPT;
        uint64_t nprob = stats->unreadable + stats->truncated + stats->damaged_blocks;
        if (diag) {
            *diag = r.first_problem;
            if (nprob > 1) {
                char more[96];
                snprintf(more, sizeof more, " (and %llu more input problem%s, see above)",
                         (unsigned long long)(nprob - 1), nprob > 2 ? "s" : "");
                size_t l = strlen(diag->msg);
                snprintf(diag->msg + l, sizeof diag->msg - l, "%s", more);
            }
            diag->code = code;
        }
        return code;
    }
    return SAT_OK;
}
