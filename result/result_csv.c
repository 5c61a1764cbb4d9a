/*
 * result_csv.c - the one CSV writer of every command's results (RFC 4180 via
 * csv_writer.c, docs/output.md): every table section of a result is a CSV
 * table named by its path ("ops", "tcp.windows"), with the JSON key names as
 * its header; --csv prints the main one, --csv NAME another, --csv-dir DIR
 * writes them all as DIR/NAME.csv.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "satscope/result_out.h"

static void csv_value(sat_csv *c, const sat_value *v)
{
    if (!v || v->absent) {
        sat_csv_str(c, NULL);
        return;
    }
    switch (v->unit) {
    case SAT_UNIT_TEXT: sat_csv_str(c, v->v.s); break;
    case SAT_UNIT_COUNT:
    case SAT_UNIT_BYTES: sat_csv_u64(c, v->v.u); break;
    case SAT_UNIT_INT: sat_csv_i64(c, v->v.i); break;
    case SAT_UNIT_TIME: sat_csv_ts(c, v->v.i); break;
    case SAT_UNIT_BOOL: sat_csv_str(c, v->v.i ? "true" : "false"); break;
    case SAT_UNIT_DURATION:
    case SAT_UNIT_RATIO:
    case SAT_UNIT_RATE:
    case SAT_UNIT_NUMBER: sat_csv_num(c, v->v.d, v->decimals); break;
    default: sat_csv_str(c, NULL); break;
    }
}

int sat_result_csv_table(const sat_rnode *table, FILE *out)
{
    size_t ncols;
    const sat_col *cols = sat_table_cols(table, &ncols);
    sat_csv c;
    sat_csv_init(&c, out);
    for (size_t i = 0; i < ncols; i++)
        sat_csv_str(&c, cols[i].name);
    sat_csv_end_row(&c);
    for (const sat_rnode *row = sat_rnode_first(table); row; row = sat_rnode_next(row)) {
        for (size_t i = 0; i < ncols; i++)
            csv_value(&c, sat_row_get(row, cols[i].name));
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* "a, b, c": the table names of r, for a message. */
static void list_names(sat_result *r, char *buf, size_t n)
{
    const char *const *paths;
    size_t nt;
    sat_result_tables(r, &paths, &nt);
    buf[0] = '\0';
    for (size_t i = 0; i < nt; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", i ? ", " : "", paths[i]);
    }
}

int sat_result_csv(sat_result *r, const char *name, FILE *out, sat_diag *diag)
{
    int st = sat_result_status(r);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "building the %s result: %s", sat_result_command(r),
                            sat_strerror(st));
    const sat_rnode *t = NULL;
    if (!name) {
        t = sat_result_main(r);
    } else {
        const char *const *paths;
        size_t nt;
        const sat_rnode *const *tabs = sat_result_tables(r, &paths, &nt);
        for (size_t i = 0; i < nt && !t; i++)
            if (strcmp(paths[i], name) == 0)
                t = tabs[i];
    }
    if (!t) {
        char names[1024];
        list_names(r, names, sizeof names);
        if (!name)
            return sat_diag_set(diag, SAT_E_USAGE, NULL, "the %s report has no table for CSV",
                                sat_result_command(r));
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "no CSV table '%s' in the %s report (%s)",
                            name, sat_result_command(r), names[0] ? names : "none");
    }
    if (sat_result_csv_table(t, out) != SAT_OK)
        return sat_diag_set(diag, SAT_E_IO, NULL, "writing CSV: %s", strerror(errno));
    return SAT_OK;
}

int sat_result_csv_dir(sat_result *r, const char *dir, const sat_out_opts *oo, sat_diag *diag)
{
    int st = sat_result_status(r);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "building the %s result: %s", sat_result_command(r),
                            sat_strerror(st));
    /* DIR: a directory of ours or the user's, never a symlink to elsewhere
     * (planted in a shared directory), made with the files' mode plus the
     * search bits of who may read them */
    struct stat sb;
    unsigned fmode = (oo && oo->mode ? oo->mode : 0600u) & 0777u;
    if (lstat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return sat_diag_set(diag, SAT_E_USAGE, dir, "is %s, not a directory: no CSV written",
                                S_ISLNK(sb.st_mode) ? "a symbolic link" : "not a directory");
    } else if (mkdir(dir, (mode_t)(fmode | ((fmode & 0444u) >> 2))) != 0) {
        return sat_diag_set(diag, SAT_E_IO, dir, "cannot make the directory: %s", strerror(errno));
    }
    const char *const *paths;
    size_t nt;
    const sat_rnode *const *tabs = sat_result_tables(r, &paths, &nt);
    sat_out_opts o = oo ? *oo : (sat_out_opts){0};
    o.what = "the CSV table";
    o.alt = NULL;
    int rc = SAT_OK;
    size_t written = 0;
    char path[4096];
    for (size_t i = 0; i < nt && rc == SAT_OK; i++) {
        snprintf(path, sizeof path, "%s/%s.csv", dir, paths[i]);
        sat_out *out = sat_out_open(path, &o, diag);
        if (!out) {
            rc = diag ? diag->code : SAT_E_IO;
            break;
        }
        FILE *f = sat_out_stream(out);
        int wr = f ? sat_result_csv_table(tabs[i], f) : SAT_E_NOMEM;
        if (wr != SAT_OK) {
            sat_out_discard(out);
            rc = sat_diag_set(diag, wr, path, "%s", sat_strerror(wr));
        } else if ((rc = sat_out_commit(out, diag)) == SAT_OK) {
            written++;
        }
    }
    /* a set of tables is whole or absent: the tables this call wrote before
     * the one that failed are removed (never one it refused to replace) */
    if (rc != SAT_OK)
        while (written-- > 0) {
            snprintf(path, sizeof path, "%s/%s.csv", dir, paths[written]);
            unlink(path);
        }
    return rc;
}
