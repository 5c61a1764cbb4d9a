/*
 * doc_walk.c - the one walk of a document (doc_int.h rd_visitor): the order
 * in which every form meets the blocks of a report, written once, so that
 * the text, HTML and PDF forms differ only in how they draw each block.
 */
#include <string.h>

#include "doc_int.h"

typedef struct walk {
    sat_report *rep;
    const rd_visitor *v;
    void *x;
    const sat_result_set *set; /* the page's, for its charts */
} walk;

/* s's title and blocks at `level`; its titled parts at `kids`, a level
 * deeper than a titled section, at the parent's parts' level for an untitled
 * group (whose blocks are drawn as its parent's own, in their place). */
static void section(walk *w, const sat_rnode *s, const char *parent_anchor, int level, int kids)
{
    const rd_visitor *v = w->v;
    const char *title = sat_get_text(s, "title", NULL), *id = sat_get_text(s, "section", NULL);
    char anchor[256];
    snprintf(anchor, sizeof anchor, "%s-%s", parent_anchor, id ? id : "section");
    int titled = title != NULL;
    if (titled && v->section_begin)
        v->section_begin(w->x, s, title, anchor, level);
    for (const sat_rnode *p = sat_rnode_first(sat_get_list(s, "paragraphs")); p && v->paragraph;
         p = sat_rnode_next(p))
        v->paragraph(w->x, sat_get_text(p, NULL, ""), level);
    if (sat_rnode_first(sat_get_list(s, "pre")) && v->pre)
        v->pre(w->x, sat_get_list(s, "pre"), level);
    const sat_rnode *vals = sat_get_obj(s, "values");
    if (sat_rnode_first(vals) && v->values)
        v->values(w->x, vals, level);
    for (const sat_rnode *c = sat_rnode_first(sat_get_list(s, "charts")); c && v->chart;
         c = sat_rnode_next(c))
        if (sat_get_text(c, NULL, NULL))
            v->chart(w->x, sat_get_text(c, NULL, NULL), w->set, level);
    for (const sat_rnode *sp = sat_rnode_first(sat_get_list(s, "sparklines")); sp && v->sparkline;
         sp = sat_rnode_next(sp))
        v->sparkline(w->x, sp, level);
    for (const sat_rnode *b = sat_rnode_first(sat_get_list(s, "tables")); b && v->table;
         b = sat_rnode_next(b))
        v->table(w->x, b, level);
    if (titled)
        kids = level + 1;
    for (const sat_rnode *c = sat_rnode_first(sat_get_list(s, "sections")); c; c = sat_rnode_next(c))
        section(w, c, titled ? anchor : parent_anchor, sat_get_text(c, "title", NULL) ? kids : level,
                kids);
    if (titled && v->section_end)
        v->section_end(w->x, s, level);
}

/* The inputs, as a section of their own (so every form draws them as it
 * draws any table). */
static int inputs(walk *w, const sat_rnode *root)
{
    const sat_rnode *t = sat_get_table(root, "inputs");
    if (!sat_rnode_first(t))
        return SAT_OK;
    sat_result *tmp = sat_result_new("report");
    sat_rnode *s = sat_obj(sat_result_root(tmp), "inputs");
    sat_put_text(s, "section", "inputs");
    sat_put_text(s, "title", "Inputs");
    sat_doc_table(s, "Every source with its span", NULL, t,
                  "path,kind,bytes,lines,rejects,first_ts,last_ts", 0, NULL, NULL);
    int rc = sat_result_status(tmp);
    if (rc == SAT_OK)
        section(w, s, "", 0, 0);
    sat_result_free(tmp);
    return tmp ? rc : SAT_E_NOMEM;
}

int rd_walk(sat_report *rep, const rd_visitor *v, void *x, rd_clock *clock)
{
    const rd_clock doc_clock = clock ? *clock : (rd_clock){0};
    walk w = {rep, v, x, NULL};
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    if (v->head)
        v->head(x, root);
    if (v->findings && sat_rnode_first(sat_get_list(root, "findings")))
        v->findings(x, sat_get_list(root, "findings"), "What happened", 1);
    const sat_rnode *pages = sat_get_list(root, "pages");
    int npages = (int)sat_rnode_count(pages), no = 0;
    for (const sat_rnode *pg = sat_rnode_first(pages); pg; pg = sat_rnode_next(pg)) {
        no++;
        w.set = sat_report_page_set(rep, pg);
        /* a page of its own offset (a digest's server-day) shows its times
         * at that offset, as its subtitle says; the rest at the document's */
        double off = sat_get_num(pg, "utc_offset_s", NAN);
        if (clock) {
            *clock = doc_clock;
            if (isfinite(off) && !clock->utc && !clock->rfc3339)
                clock->offset_s = (int32_t)off;
        }
        if (v->page_begin)
            v->page_begin(x, pg, no, npages);
        if (v->findings && sat_rnode_first(sat_get_list(pg, "findings")))
            v->findings(x, sat_get_list(pg, "findings"), "Findings", no);
        char anchor[32];
        snprintf(anchor, sizeof anchor, "p%d", no);
        for (const sat_rnode *s = sat_rnode_first(sat_get_list(pg, "sections")); s;
             s = sat_rnode_next(s))
            section(&w, s, anchor, 0, 0);
        if (v->page_end)
            v->page_end(x, pg);
    }
    if (clock)
        *clock = doc_clock;
    int rc = inputs(&w, root);
    if (v->tail)
        v->tail(x, root);
    return rc;
}

size_t rd_table_rows(const sat_report_render_opts *o)
{
    return o && o->table_rows ? o->table_rows : SAT_DOC_TABLE_ROWS;
}
