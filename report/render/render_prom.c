/*
 * render_prom.c - a report's figures for monitoring (`-o x.prom`, or
 * `report --prometheus FILE` beside another form): Prometheus' text
 * exposition format 0.0.4, for node-exporter's textfile collector (the file
 * is written through the safe writer: a temporary file renamed, so the
 * collector never reads half of it). The document's `metrics` (each with its
 * HELP and TYPE once, gauges), then how many findings of each severity the
 * report holds. Label values escaped as the format asks (\\, \", \n).
 */
#include <string.h>

#include "doc_int.h"

static void label_value(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
}

/* Whether m is the first metric of its name in list. */
static int first_of_name(const sat_rnode *list, const sat_rnode *m, const char *name)
{
    for (const sat_rnode *e = sat_rnode_first(list); e && e != m; e = sat_rnode_next(e))
        if (!strcmp(sat_get_text(e, "metric", ""), name))
            return 0;
    return 1;
}

/* A sample line: name{labels} value. */
static void sample(FILE *f, const char *name, const sat_rnode *m, double v)
{
    fputs(name, f);
    const sat_rnode *labels = sat_rnode_get(m, "labels");
    const char *sep = "{";
    for (const sat_rnode *l = labels ? sat_rnode_first(labels) : NULL; l; l = sat_rnode_next(l)) {
        fprintf(f, "%s%s=\"", sep, sat_rnode_key(l));
        label_value(f, sat_get_text(l, NULL, ""));
        fputc('"', f);
        sep = ",";
    }
    /* 12 digits: a duration in seconds to the nanosecond */
    fprintf(f, "%s %.12g\n", *sep == ',' ? "}" : "", v);
}

static int render_prom(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    (void)o;
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    const sat_rnode *list = sat_get_list(root, "metrics");
    /* a metric's samples together, under one HELP and TYPE (the format's
     * rule), in the order the document first names each */
    for (const sat_rnode *m = sat_rnode_first(list); m; m = sat_rnode_next(m)) {
        const char *name = sat_get_text(m, "metric", NULL);
        if (!name || !first_of_name(list, m, name))
            continue;
        fprintf(out, "# HELP %s ", name);
        for (const char *h = sat_get_text(m, "help", ""); *h; h++) /* one line */
            if (*h == '\n' || *h == '\\')
                fputs(*h == '\n' ? "\\n" : "\\\\", out);
            else
                fputc(*h, out);
        fprintf(out, "\n# TYPE %s gauge\n", name);
        for (const sat_rnode *e = m; e; e = sat_rnode_next(e)) {
            double v = sat_get_num(e, "value", NAN);
            if (!strcmp(sat_get_text(e, "metric", ""), name) && isfinite(v))
                sample(out, name, e, v); /* an absent figure is not a 0 */
        }
    }
    /* the findings by severity, every severity said (0 too: an alert on
     * "critical > 0" needs the series) */
    const char *kind = sat_get_text(root, "kind", "report");
    fprintf(out, "# HELP satscope_findings Findings of the %s by severity.\n"
                 "# TYPE satscope_findings gauge\n",
            kind);
    for (size_t k = 0; rd_severity_at(k); k++) {
        uint64_t n = 0;
        const sat_rnode *fl = sat_get_list(root, "findings");
        for (const sat_rnode *f = sat_rnode_first(fl); f; f = sat_rnode_next(f))
            n += !strcmp(sat_get_text(f, "severity", "notice"), rd_severity_at(k));
        fprintf(out, "satscope_findings{report=\"%s\",severity=\"%s\"} %llu\n", kind,
                rd_severity_at(k), (unsigned long long)n);
    }
    if (ferror(out))
        return sat_diag_set(diag, SAT_E_IO, NULL, "writing the metrics failed");
    return SAT_OK;
}

const sat_report_renderer sat_render_prom = {".prom", "Prometheus textfile", render_prom};
