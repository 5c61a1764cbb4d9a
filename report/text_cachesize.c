/*
 * text_cachesize.c - the text form of the cachesize result (analyze/
 * cachesize_result.c), the answer first: the suggested nsslapd-* settings
 * and the size for each target hit ratio, with the LDIF ready for
 * ldapmodify; then whether the log sees the server's entry reads, the
 * cn=monitor comparison, the reference stream and what it cannot see, the
 * working set per hour and the miss-ratio curve. Reads only the result
 * tree; prose wraps to the width (100 columns unless --wide).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "satscope/report.h"

static const sat_value *val(const sat_rnode *o, const char *path)
{
    const sat_rnode *n = sat_rnode_get(o, path);
    const sat_value *v = n ? sat_rnode_value(n) : NULL;
    return v && !v->absent ? v : NULL;
}

static uint64_t cnt(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v ? v->v.u : 0;
}

static double dbl(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v ? v->v.d : NAN;
}

static const char *str(const sat_rnode *o, const char *path)
{
    const sat_value *v = val(o, path);
    return v && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

/* a value in its unit's text form ("1 MiB", "45.5%", "-") */
static const char *fmt(char *b, size_t n, const sat_rnode *o, const char *path)
{
    const sat_rnode *x = sat_rnode_get(o, path);
    sat_fmt_value(b, n, x ? sat_rnode_value(x) : NULL);
    return b;
}

/* "  label  value" with the value wrapped at blanks under itself, from
 * column hang */
static void hang(sat_text *t, size_t col, const char *label, const char *fmt, ...)
    SAT_PRINTF(4, 5);
static void hang(sat_text *t, size_t col, const char *label, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int w = fprintf(t->out, "  %-*s", (int)(col - 2), label);
    size_t at = w > 0 ? (size_t)w : 0, limit = t->width ? t->width : (size_t)-1;
    int first = 1;
    for (const char *p = buf; *p;) {
        size_t sp = strspn(p, " "), wl = strcspn(p + sp, " ");
        if (!first && at + sp + wl > limit) {
            fprintf(t->out, "\n%*s", (int)col, "");
            at = col;
            p += sp;
            sp = 0;
        }
        fwrite(p, 1, sp + wl, t->out);
        at += sp + wl;
        p += sp + wl;
        first = 0;
    }
    fputc('\n', t->out);
    t->lines++;
}

#define SETTING 36 /* where a setting's explanation starts */

/* "1.00 MiB  1048576 bytes: why", or "-  why" */
static void setting(sat_text *t, const sat_rnode *rec, const char *attr, const char *key,
                    const char *why)
{
    char a[64], label[160];
    const sat_value *v = val(rec, key);
    snprintf(label, sizeof label, "%-22s  %s", attr, v ? fmt(a, sizeof a, rec, key) : "-");
    if (v)
        hang(t, SETTING, label, "%" PRIu64 " bytes: %s", v->v.u, why);
    else
        hang(t, SETTING, label, "%s", why);
}

static void recommendation(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *rec = sat_rnode_get(root, "recommend");
    const sat_rnode *reads = sat_rnode_get(root, "reads_seen");
    char a[96], b[256];
    sat_text_title(t, "Suggested settings (for the largest target hit ratio)");
    if (val(rec, "cachememsize_bytes")) {
        const sat_value *mu = val(reads, "most_unseen");
        if (mu && mu->v.i)
            snprintf(b, sizeof b, "target entries x entry size, rounded up to a MiB (at least "
                                  "512000), from a curve of %s of the server's entry reads (see "
                                  "below)", fmt(a, sizeof a, reads, "share_named"));
        else
            snprintf(b, sizeof b, "target entries x entry size, rounded up to a MiB (at least "
                                  "512000)");
        setting(t, rec, "nsslapd-cachememsize", "cachememsize_bytes", b);
    } else {
        setting(t, rec, "nsslapd-cachememsize", "cachememsize_bytes",
                "no entry size (give --entry-size, --monitor or --ldif)");
    }
    if (val(rec, "dncachememsize_bytes")) {
        sat_fmt_fixed(a, sizeof a, dbl(rec, "dn_entry_size"), 0);
        snprintf(b, sizeof b, "every distinct entry x %s bytes a DN (%s)", a,
                 str(rec, "dn_entry_size_from") ? str(rec, "dn_entry_size_from") : "?");
        setting(t, rec, "nsslapd-dncachememsize", "dncachememsize_bytes", b);
    }
    const char *note = str(rec, "db_note") ? str(rec, "db_note") : "";
    static const char pre[] = "nsslapd-dbcachesize: ";
    if (!strncmp(note, pre, sizeof pre - 1))
        note += sizeof pre - 1;
    setting(t, rec, "nsslapd-dbcachesize", "dbcachesize_bytes", note);
    if (str(rec, "db") && !strcmp(str(rec, "db"), "bdb")) {
        char ib[64], pb[64], tb[64];
        hang(t, SETTING, "", "indexes read: %" PRIu64 " of %" PRIu64 " files, %s (%s); "
                             "id2entry.db: %s of %s",
             cnt(rec, "db_indexes_read"), cnt(rec, "db_index_files"),
             fmt(ib, sizeof ib, rec, "db_index_read_bytes"),
             str(rec, "db_indexes_read_names") && *str(rec, "db_indexes_read_names")
                 ? str(rec, "db_indexes_read_names")
                 : "none",
             fmt(pb, sizeof pb, rec, "db_id2entry_read_bytes"),
             fmt(tb, sizeof tb, rec, "db_id2entry_bytes"));
    }
    sat_text_title(t, "Target hit ratios");
    sat_text_table(t, sat_rnode_get(root, "targets"), "hit_ratio,entries,bytes", 0, "  ");
    for (const sat_rnode *r = sat_rnode_first(sat_rnode_get(root, "targets")); r;
         r = sat_rnode_next(r)) {
        const sat_value *re = sat_row_get(r, "reachable");
        const sat_value *h = sat_row_get(r, "hit_ratio");
        if (re && !re->absent && !re->v.i) {
            sat_fmt_value(a, sizeof a, h);
            sat_text_line(t, "  %s is unreachable in this log: it takes every entry it names",
                          a);
        }
    }
    const char *ldif = str(rec, "ldif");
    if (ldif) {
        sat_text_title(t, "LDIF for ldapmodify -D \"cn=directory manager\" -W -f FILE");
        fputs(ldif, t->out);
        for (const char *p = ldif; *p; p++)
            t->lines += *p == '\n';
    }
}

/* said plainly: the curve is then not the stream the server's cache saw */
static void reads_warning(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *reads = sat_rnode_get(root, "reads_seen");
    const sat_rnode *mon = sat_rnode_get(root, "monitor");
    const sat_value *mu = val(reads, "most_unseen");
    uint64_t refs = cnt(root, "references");
    if (!refs || !mu || !mu->v.i)
        return;
    char a[64], b[64];
    fmt(a, sizeof a, reads, "share_named");
    snprintf(b, sizeof b, "%" PRIu64, cnt(reads, "server_reads"));
    const char *from = str(reads, "server_reads_from");
    char head[512];
    if (from && !strcmp(from, "cn=monitor"))
        snprintf(head, sizeof head, "where cn=monitor counted %s entry cache lookups between the "
                                    "snapshots (%s named).", b, a);
    else
        snprintf(head, sizeof head, "where its one-level and subtree searches read at least %.0f "
                                    "more that it does not name (%s named).",
                 (double)cnt(reads, "server_reads") - (double)refs, a);
    sat_text_title(t, "The log cannot see most of this server's entry reads");
    sat_text_line(t, "It names %" PRIu64 " of them, %s The curve below is the stream the log "
                     "names, not the one the server's cache saw (with search-then-bind, for "
                     "example, the bind finds the entry its search has just read: a hit the "
                     "log shows as a first reference)%s",
                  refs, head, val(mon, "measured_hit_ratio") && val(mon, "predicted_hit_ratio")
                                  ? ":" : ".");
    if (val(mon, "measured_hit_ratio") && val(mon, "predicted_hit_ratio")) {
        char p[64], m[64];
        sat_text_line(t, "it predicts %s at the current size where cn=monitor measured %s. Size "
                         "the entry cache from the measured ratio.",
                      fmt(p, sizeof p, mon, "predicted_hit_ratio"),
                      fmt(m, sizeof m, mon, "measured_hit_ratio"));
    } else {
        sat_text_line(t, "Measure the server's: two cn=monitor snapshots around the same period "
                         "(--monitor BEFORE.ldif --monitor AFTER.ldif).");
    }
}

static void stream(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *s = sat_rnode_get(root, "stream");
    char a[96], b[96];
    sat_text_title(t, "Reference stream");
    int shards = str(root, "method") && !strcmp(str(root, "method"), "shards");
    sat_text_line(t, "  curve             LRU, %s",
                  shards ? "SHARDS: spatially hashed sampling" : "exact: Mattson stack distances");
    if (val(root, "first_ts")) {
        fmt(a, sizeof a, root, "first_ts");
        fmt(b, sizeof b, root, "last_ts");
        sat_text_line(t, "  span              %s - %s", a, b);
    }
    uint64_t ops = cnt(s, "operations"), nops = cnt(s, "naming_operations");
    sat_text_line(t, "  operations        %" PRIu64 ", %" PRIu64 " naming entries", ops, nops);
    char by[512] = "";
    size_t bl = 0;
    for (const sat_rnode *c = sat_rnode_first(sat_rnode_get(s, "references_by_op")); c;
         c = sat_rnode_next(c)) {
        const char *k = sat_rnode_key(c);
        bl += (size_t)snprintf(by + bl, sizeof by - bl, "%s %s %llu", bl ? "," : ":",
                               !strcmp(k, "SRCH") ? "SRCH base" : k,
                               (unsigned long long)sat_rnode_value(c)->v.u);
        if (bl >= sizeof by)
            break;
    }
    char more[256] = "";
    size_t ml = 0;
    if (cnt(s, "modrdn_new_dns"))
        ml += (size_t)snprintf(more + ml, sizeof more - ml, " (MODRDN new DNs %" PRIu64 ")",
                               cnt(s, "modrdn_new_dns"));
    if (cnt(s, "entry_refs"))
        ml += (size_t)snprintf(more + ml, sizeof more - ml, ", ENTRY lines %" PRIu64,
                               cnt(s, "entry_refs"));
    if (cnt(s, "internal_references"))
        snprintf(more + ml, sizeof more - ml, "; internal operations %" PRIu64,
                 cnt(s, "internal_references"));
    sat_text_line(t, "  references        %" PRIu64 "%s%s", cnt(root, "references"), by, more);
    snprintf(a, sizeof a, "%" PRIu64, cnt(root, "unique"));
    sat_text_line(t, "  distinct entries  %s%s", a, shards ? " (estimated)" : "");
    if (shards) {
        const sat_rnode *sm = sat_rnode_get(root, "sampling");
        sat_fmt_fixed(a, sizeof a, dbl(sm, "keep_rate"), 6);
        sat_fmt_fixed(b, sizeof b, dbl(sm, "shards_rate"), 6);
        sat_text_line(t, "  sampling          %" PRIu64 " references kept (rate %s), SHARDS "
                         "s_max %" PRIu64 ", final rate %s",
                      cnt(sm, "kept"), a, cnt(sm, "shards_smax"), b);
    }
    if (cnt(root, "references"))
        sat_text_line(t, "  best hit ratio    %s (the first reference to each entry is a miss)",
                      fmt(a, sizeof a, root, "max_hit_ratio"));
    char unidx[700];
    const sat_rnode *un = sat_rnode_get(s, "unseen_unindexed");
    const char *note = un ? sat_rnode_note(un) : NULL;
    if (!val(s, "unseen_unindexed"))
        snprintf(unidx, sizeof unidx, "unindexed %s", note ? note : "not logged");
    else
        snprintf(unidx, sizeof unidx, "%" PRIu64 " of them unindexed%s%s%s",
                 cnt(s, "unseen_unindexed"), note ? " (" : "", note ? note : "", note ? ")" : "");
    uint64_t uo = cnt(s, "unseen_operations"), el = cnt(s, "entry_lines");
    char share[192] = "";
    if (val(root, "unseen_share"))
        snprintf(share, sizeof share, " (%s of the operations that read entries)",
                 fmt(a, sizeof a, root, "unseen_share"));
    sat_text_line(t, "  unseen by curve   %" PRIu64 " one-level/subtree %s%s, %s, %" PRIu64
                     " entries returned; %" PRIu64 " ENTRY %s",
                  uo, sat_plural(uo, "search", "searches"), share, unidx,
                  cnt(s, "unseen_entries_returned"), el, sat_plural(el, "line", "lines"));
    uint64_t nodn = cnt(s, "binds_without_dn"), out = cnt(s, "outside_backends");
    sat_text_line(t, "  not references    %" PRIu64 " %s outside the backends (root DSE, "
                     "cn=config, cn=schema, cn=monitor, root DN), %" PRIu64 " %s without a DN",
                  out, sat_plural(out, "DN", "DNs"), nodn, sat_plural(nodn, "BIND", "BINDs"));
    uint64_t miss = cnt(s, "missing_entries");
    if (miss)
        sat_text_line(t, "  no such entry     %" PRIu64 " %s named entries that do not exist "
                         "(err=32, BIND err=49 \"No such entry\"): left out, not cache entries",
                      miss, sat_plural(miss, "operation", "operations"));
}

static void monitor(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *m = sat_rnode_get(root, "monitor");
    uint64_t n = cnt(m, "snapshots");
    if (!n)
        return;
    char a[96], b[96];
    sat_text_title(t, "Current settings (cn=monitor of backend %s, %" PRIu64 " %s)",
                   str(sat_rnode_get(root, "recommend"), "backend")
                       ? str(sat_rnode_get(root, "recommend"), "backend")
                       : "?",
                   n, sat_plural(n, "snapshot", "snapshots"));
    if (val(m, "max_entry_cache_bytes")) {
        char ce[64] = "";
        if (val(m, "current_entries"))
            snprintf(ce, sizeof ce, ", about %" PRIu64 " entries", cnt(m, "current_entries"));
        sat_text_line(t, "  entry cache         maxentrycachesize %" PRIu64 " (%s)%s",
                      cnt(m, "max_entry_cache_bytes"), fmt(a, sizeof a, m, "max_entry_cache_bytes"),
                      ce);
    }
    const sat_value *iv = val(m, "measured_interval");
    int interval = iv && iv->v.i;
    sat_text_line(t, "  hit ratio           measured %s%s; the curve predicts %s at that size",
                  fmt(a, sizeof a, m, "measured_hit_ratio"),
                  interval                             ? " (between the two snapshots)"
                  : val(m, "measured_hit_ratio") ? " (since the server started)"
                                                       : "",
                  fmt(b, sizeof b, m, "predicted_hit_ratio"));
    if (val(m, "measured_dn_hit_ratio"))
        sat_text_line(t, "  DN cache hit ratio  measured %s",
                      fmt(a, sizeof a, m, "measured_dn_hit_ratio"));
    sat_text_line(t, "  (the measured ratio also counts the entries one-level and subtree "
                     "searches read, which the curve cannot see)");
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    uint64_t refs = cnt(root, "references");
    char u[64];
    snprintf(u, sizeof u, "%" PRIu64, cnt(root, "unique"));
    int shards = str(root, "method") && !strcmp(str(root, "method"), "shards");
    sat_text_line(t, "satscope cachesize: %" PRIu64 " entry %s, %s distinct %s (LRU, %s)", refs,
                  sat_plural(refs, "reference", "references"), u,
                  strcmp(u, "1") ? "entries" : "entry", shards ? "sampled" : "exact");
    if (!refs) {
        stream(t, root);
        sat_text_title(t, "No entry references: nothing to size.");
        return SAT_OK;
    }
    recommendation(t, root);
    reads_warning(t, root);
    monitor(t, root);
    stream(t, root);
    const sat_rnode *ws = sat_rnode_get(root, "working_set");
    if (sat_rnode_count(ws)) {
        sat_text_title(t, "Working set (entries touched per hour)");
        sat_text_table(t, ws, NULL, 0, "  ");
    }
    const sat_rnode *rec = sat_rnode_get(root, "recommend");
    if (str(rec, "entry_size_from")) {
        char b[64];
        sat_fmt_fixed(b, sizeof b, dbl(rec, "entry_size"), 0);
        sat_text_title(t, "Miss-ratio curve (entry size %s bytes, from %s)", b,
                       str(rec, "entry_size_from"));
    } else {
        sat_text_title(t, "Miss-ratio curve (no entry size: give --entry-size, --monitor or "
                          "--ldif for bytes)");
    }
    sat_text_table(t, sat_rnode_get(root, "mrc"), NULL, 0, "  ");
    sat_text_title(t, "Note");
    sat_text_line(t, "  389 ignores nsslapd-cachememsize while nsslapd-cache-autosize is not 0; "
                     "389 2.x keeps it and nsslapd-dbcachesize in cn=bdb,cn=config,cn=ldbm "
                     "database,cn=plugins,cn=config (1.4 and older: cn=config,cn=ldbm "
                     "database,...)");
    return SAT_OK;
}

static const char *const csv_tables[] = {"targets", "working_set", "mrc", NULL};
const sat_text_report sat_text_cachesize = {"cachesize", render, csv_tables};
