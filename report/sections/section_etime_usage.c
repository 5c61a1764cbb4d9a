/*
 * section_etime_usage.c - who used the server and who waited (etime's
 * "usage": analyze/etime_usage.c): per search filter shape, client, bind DN
 * and search base, the work their operations took (optime: the server's own
 * time) and, apart, the wait (wtime: time queued behind the others). In a
 * storm every operation waits for the one that holds the workers: the work
 * names the culprit, the wait its victims. Each table is the top keys by the
 * measure it is sorted by, then "(other)", the rest: its shares sum to 100%.
 */
#include <string.h>

#include "section_etime.h"

static const struct {
    const char *dim, *keycol, *keytitle, *title, *whole;
} dims[] = {
    {"filter_shapes", "filter_shape", "filter shape (values replaced)", "By filter shape (searches)",
     "the searches'"},
    {"clients", "client", "client", "By client (every operation)", "every operation's"},
    {"bind_dns", "binddn", "bind DN", "By the bind DN they ran as (every operation)", "every operation's"},
    {"bases", "base", "base", "By search base (searches)", "the searches'"},
};

static void tables(const etb *x, sat_rnode *s, const sat_rnode *u, int wait)
{
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        char k[96], cols[256], id[64], tot[64];
        snprintf(k, sizeof k, "%s_%s", dims[i].dim, wait ? "waited" : "used");
        const sat_rnode *t = sat_get_table(u, k);
        if (!sat_rnode_count(t))
            continue;
        snprintf(id, sizeof id, "%s_%s", wait ? "waited" : "used", dims[i].dim);
        sat_rnode *ts = sec_section(x->c, s, id, "%s", dims[i].title);
        snprintf(cols, sizeof cols,
                 wait ? "count,wait_s,wait_share=share,work_s,etime_s,%s=%s"
                      : "count,work_s,work_share=share,wait_s,etime_s,%s=%s",
                 dims[i].keycol, dims[i].keytitle);
        sat_doc_table(ts, NULL, NULL, t, cols, 0, NULL, NULL);
        snprintf(k, sizeof k, "%s_%s", dims[i].dim, wait ? "wait_s" : "work_s");
        sec_fmt(x->c, tot, sizeof tot, u, k);
        sat_doc_footnote(ts, "(share: of %s %s, %s; \"(other)\": every key not shown)",
                         dims[i].whole, wait ? "wait" : "work", tot);
    }
}

void etb_usage(const etb *x, sat_rnode *parent)
{
    const sat_rnode *u = sat_get_obj(x->root, "usage");
    if (!u)
        return;
    const char *m = sat_get_text(u, "work_measure", "none");
    if (!strcmp(m, "none"))
        return;
    sat_rnode *s = sec_section(x->c, parent, "who_used",
                               "Who used the server: the work their operations took");
    if (!strcmp(m, "optime"))
        sat_doc_para(s, "work = each operation's optime: the server's own time on it, without "
                        "the time it waited in the queue (wtime, below).");
    else if (!strcmp(m, "etime"))
        sat_doc_para(s, "work = each operation's etime: the log has no wtime or optime, so the "
                        "time an operation waited for a worker counts as work too (in a storm "
                        "the waiting operations look busy).");
    else
        sat_doc_para(s, "work = each operation's optime; for the %llu operations logged without "
                        "wtime or optime, their etime (queue wait included).",
                     (unsigned long long)sat_get_count(u, "work_from_etime", 0));
    tables(x, s, u, 0);
    sat_rnode *w = sec_section(x->c, parent, "who_waited",
                               "Who waited: time queued before a worker took the operations");
    if (!sat_get_has(u, "clients_wait_s") || !sat_get_dur(u, "clients_wait_s", NAN))
        sat_doc_para(w, "not logged: the inputs have no wtime (389 Directory Server 1.4.3+ logs "
                        "it).");
    else
        tables(x, w, u, 1);
}

/* ---- who used the server during each storm (the result's "during") ------------------------ */

typedef struct during_sel {
    uint64_t storm;
    const char *dim;
} during_sel;

static int during_row(const sat_rnode *row, void *ctx)
{
    const during_sel *s = (const during_sel *)ctx;
    return sat_get_count(row, "storm", 0) == s->storm &&
           !strcmp(sat_get_text(row, "dimension", ""), s->dim);
}

void etb_usage_during(const etb *x, sat_rnode *parent)
{
    const sat_rnode *d = sat_get_obj(x->root, "during");
    const sat_rnode *t = sat_get_table(d, "used");
    uint64_t last = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        uint64_t storm = sat_get_count(r, "storm", 0);
        if (storm == last)
            continue;
        last = storm;
        char id[48];
        snprintf(id, sizeof id, "during_storm_%llu", (unsigned long long)storm);
        sat_rnode *s = sec_section(x->c, parent, id, "Who used the server during storm %llu",
                                   (unsigned long long)storm);
        if (!s)
            continue;
        sat_doc_para(s,
                     "The work of the operations in the storm (the %llu s windows it covers), of "
                     "its server only: each key's least (\"work\", its share of the storm's) and "
                     "most (\"at most\"), from a summary of the %llu heaviest keys of each %llu s "
                     "(exact for a dimension with no more keys in them).",
                     (unsigned long long)sat_get_count(d, "window_s", 10),
                     (unsigned long long)sat_get_count(d, "keys_per_window", 16),
                     (unsigned long long)sat_get_count(d, "window_s", 10));
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
            during_sel sel = {storm, dims[i].dim};
            char cols[160];
            snprintf(cols, sizeof cols, "work_s,work_share=share,work_max_s,key=%s",
                     dims[i].keytitle);
            char sid[64];
            snprintf(sid, sizeof sid, "during_%s", dims[i].dim);
            sat_rnode *ts = sec_section(x->c, s, sid, "%s", dims[i].title);
            sat_doc_table(ts, NULL, NULL, t, cols, 0, during_row, &sel);
        }
        uint64_t lost = sat_get_count(d, "rows_not_summarised", 0);
        if (lost)
            sat_doc_footnote(s, "%llu operations past the summaries' cap are in no table",
                             (unsigned long long)lost);
    }
}
