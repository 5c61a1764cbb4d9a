/*
 * sections.c - the table of section builders, one per analyzer (sections.h),
 * the helpers every builder writes with, and the document of one result as
 * its command prints it (sat_report_sections).
 */
#include <stdarg.h>
#include <string.h>

#include "sections.h"

extern const sec_builder sec_crashes, sec_handshakes, sec_saturation, sec_cachesize, sec_timeline,
    sec_storms, sec_etime;

static const sec_builder *const builders[] = {
    &sec_crashes,
    &sec_handshakes,
    &sec_saturation,
    &sec_cachesize,
    &sec_timeline,
    &sec_storms,
    &sec_etime,
};

const sec_builder *sec_find(const char *analyzer)
{
    for (size_t i = 0; analyzer && i < sizeof builders / sizeof builders[0]; i++)
        if (!strcmp(builders[i]->analyzer, analyzer))
            return builders[i];
    return NULL;
}

static int wanted(const sec_ctx *c, const char *id)
{
    if (!c->only)
        return 1;
    for (const char *const *o = c->only; *o && id; o++) {
        size_t l = strlen(*o);
        if (l && (*o)[l - 1] == '*' ? !strncmp(*o, id, l - 1) : !strcmp(*o, id))
            return 1;
    }
    return 0;
}

sat_rnode *sec_section(const sec_ctx *c, sat_rnode *parent, const char *id, const char *title,
                       ...)
{
    if (!parent || (parent == c->top && !wanted(c, id)))
        return NULL;
    char buf[1024];
    if (title) {
        va_list ap;
        va_start(ap, title);
        vsnprintf(buf, sizeof buf, title, ap);
        va_end(ap);
    }
    return sat_doc_section(parent, id, title ? buf : NULL);
}

void sec_time(const sec_ctx *c, char *buf, size_t n, int64_t ts_ns)
{
    rd_fmt_time(buf, n, &c->clock, ts_ns);
}

void sec_copy(sat_rnode *vals, const sat_rnode *src, const char *path, const char *key,
              const char *label)
{
    if (!key) {
        const char *dot = strrchr(path, '.');
        key = dot ? dot + 1 : path;
    }
    if (vals && sat_put_copy(vals, key, src, path)) {
        sat_put_note(vals, sat_rnode_note(sat_rnode_get(src, path)));
        sat_put_label(vals, label);
    }
}

void sec_fmt(const sec_ctx *c, char *buf, size_t n, const sat_rnode *src, const char *path)
{
    rd_fmt_value(buf, n, &c->clock, sat_rnode_val(src, path));
}

/* ---- a command's document ----------------------------------------------------------- */

sat_report *sat_report_sections(sat_result *r)
{
    const sec_builder *b = r ? sec_find(sat_result_command(r)) : NULL;
    sat_report *rep = b ? sat_report_new("command") : NULL;
    if (!rep)
        return NULL;
    const sat_rnode *root = sat_result_root(r);
    sec_ctx c = {rd_clock_of(sat_result_root(sat_report_doc(rep)), 1), NULL, NULL};
    char lead[1024] = "", title[1200];
    b->lead(&c, root, lead, sizeof lead);
    snprintf(title, sizeof title, "satscope %s: %s", b->analyzer, lead);
    sat_doc_head(rep, title, 0, 0, 0);
    sat_rnode *page = sat_doc_page(rep, NULL, NULL, -1);
    c.top = page;
    b->build(&c, root, page);
    if (sat_result_status(sat_report_doc(rep)) != SAT_OK) {
        sat_report_free(rep);
        return NULL;
    }
    return rep;
}

const char *const *sat_csv_tables(const char *analyzer)
{
    const sec_builder *b = sec_find(analyzer);
    return b ? b->csv_tables : NULL;
}
