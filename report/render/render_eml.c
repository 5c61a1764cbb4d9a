/*
 * report_render_eml.c - a report as an e-mail (`-o report.eml`), ready for
 * `sendmail -t < report.eml`: a MIME message (RFC 5322, RFC 2045-2047) of
 * type multipart/related (RFC 2387) whose first part is the HTML form and
 * whose other parts are the charts as PNG images, each named by its
 * Content-ID and shown by <img src="cid:..."> (RFC 2392): mail readers show
 * PNG where few show inline SVG. Headers From, To (--mail-from, --mail-to),
 * Subject (--subject, else the title; RFC 2047-encoded when not ASCII),
 * addresses and a subject with no control in them (mail_header.c: refused
 * otherwise, a title's controls escaped),
 * Date and Message-ID, both from the report's last_ts so that the same
 * inputs give the same message; lines end in CRLF, bodies are base64 in
 * lines of 76.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, gmtime_r */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doc_int.h"
#include "satscope/escape.h"

typedef struct png_part {
    unsigned char *data;
    size_t len;
    char kind[32];
} png_part;

typedef struct eml_ctx {
    png_part *parts;
    size_t n;
    uint64_t tag; /* names the message's parts */
    int err;
} eml_ctx;

static void b64(FILE *f, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t col = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        fwrite(q, 1, 4, f);
        col += 4;
        if (col == 76) {
            fputs("\r\n", f);
            col = 0;
        }
    }
    if (col)
        fputs("\r\n", f);
}

static void on_chart(void *ctx, FILE *out, sat_chart *c, const char *kind, int n)
{
    eml_ctx *e = ctx;
    sat_diag d;
    memset(&d, 0, sizeof d);
    png_part *np = realloc(e->parts, (e->n + 1) * sizeof *np);
    if (!np) {
        e->err = SAT_E_NOMEM;
        return;
    }
    e->parts = np;
    png_part *pp = &e->parts[e->n];
    memset(pp, 0, sizeof *pp);
    if (sat_chart_bytes(c, SAT_CHART_PNG, &pp->data, &pp->len, &d) < 0) {
        fprintf(out, "<p class=\"note\">(%s chart: %s)</p>\n", kind, d.msg);
        return;
    }
    snprintf(pp->kind, sizeof pp->kind, "%s", kind);
    e->n++;
    /* shown at the width of the page, whatever the PNG's pixels */
    fprintf(out,
            "<figure class=\"chart\"><img src=\"cid:chart%d.%016llx@satscope\" alt=\"%s chart\" "
            "style=\"width:100%%;max-width:760px;height:auto\"></figure>\n",
            n, (unsigned long long)e->tag, kind);
}

/* FNV-1a of the document's JSON: the same report, the same tag. */
static uint64_t doc_tag(sat_report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    uint64_t h = 1469598103934665603ULL;
    if (f) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        sat_result_json(sat_report_doc(rep), f, &d);
        fclose(f);
        for (size_t i = 0; i < len; i++)
            h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
    }
    free(buf);
    return h;
}

/* A header's text: as is when printable ASCII, else RFC 2047 base64 words;
 * a control in it (a title made from an input's bytes) shown escaped, so the
 * header never ends early. */
static void header_text(FILE *f, const char *name, const char *text)
{
    char *s = sat_escape_dup(text, strlen(text), 0);
    if (!s) {
        fprintf(f, "%s: satscope report\r\n", name);
        return;
    }
    int ascii = 1;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            ascii = 0;
    fprintf(f, "%s: ", name);
    if (ascii) {
        fprintf(f, "%s\r\n", s);
        free(s);
        return;
    }
    /* encoded words of at most 45 bytes (60 base64 characters), cut at
     * UTF-8 character boundaries */
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t k = n - i > 45 ? 45 : n - i;
        while (i + k < n && k > 1 && ((unsigned char)s[i + k] & 0xC0) == 0x80)
            k--;
        char *tmp = NULL;
        size_t tl = 0;
        FILE *m = open_memstream(&tmp, &tl);
        if (!m)
            break;
        b64(m, (const unsigned char *)s + i, k);
        fclose(m);
        while (tl && (tmp[tl - 1] == '\n' || tmp[tl - 1] == '\r'))
            tmp[--tl] = '\0';
        fprintf(f, "%s=?UTF-8?B?%s?=", i ? "\r\n " : "", tmp);
        free(tmp);
        i += k;
    }
    fputs("\r\n", f);
    free(s);
}

static int render_eml(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    char why[256];
    if (o->mail_to && sat_mail_addr_check(o->mail_to, why, sizeof why) != SAT_OK)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "the To: addresses %s", why);
    if (o->mail_from && sat_mail_addr_check(o->mail_from, why, sizeof why) != SAT_OK)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "the From: address %s", why);
    if (o->subject && sat_mail_text_check(o->subject, why, sizeof why) != SAT_OK)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "the subject %s", why);
    eml_ctx e;
    memset(&e, 0, sizeof e);
    e.tag = doc_tag(rep);
    char *html = NULL;
    size_t hlen = 0;
    FILE *hf = open_memstream(&html, &hlen);
    if (!hf)
        return sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
    int rc = rd_html(rep, o, hf, on_chart, &e, diag);
    fclose(hf);
    if (rc >= 0 && e.err)
        rc = sat_diag_set(diag, e.err, NULL, "out of memory");
    if (rc >= 0) {
        const sat_rnode *root = sat_result_root(sat_report_doc(rep));
        int64_t last = sat_get_time(root, "last_ts", 0);
        time_t t = (time_t)(last > 0 ? last / 1000000000 : 0);
        struct tm tm;
        char date[64] = "Thu, 01 Jan 1970 00:00:00 +0000";
        static const char *const wd[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
        static const char *const mo[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        if (gmtime_r(&t, &tm)) /* RFC 5322 date, in English whatever the locale */
            snprintf(date, sizeof date, "%s, %02d %s %04d %02d:%02d:%02d +0000", wd[tm.tm_wday],
                     tm.tm_mday, mo[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                     tm.tm_sec);
        const char *title = sat_get_text(root, "title", NULL);
        const char *kind = sat_get_text(root, "kind", NULL);
        fprintf(out, "From: %s\r\n", o->mail_from ? o->mail_from : "satscope <satscope@localhost>");
        fprintf(out, "To: %s\r\n", o->mail_to ? o->mail_to : "undisclosed-recipients:;");
        header_text(out, "Subject", o->subject ? o->subject : title ? title : "satscope report");
        fprintf(out, "Date: %s\r\n", date);
        fprintf(out, "Message-ID: <%s.%lld.%016llx@satscope>\r\n", kind ? kind : "report",
                (long long)last, (unsigned long long)e.tag);
        fputs("MIME-Version: 1.0\r\n", out);
        fprintf(out,
                "Content-Type: multipart/related; type=\"text/html\";\r\n"
                " boundary=\"=_satscope_%016llx\"\r\n\r\n",
                (unsigned long long)e.tag);
        fputs("This is a MIME message: an HTML report with its charts.\r\n\r\n", out);
        fprintf(out, "--=_satscope_%016llx\r\n", (unsigned long long)e.tag);
        fputs("Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n",
              out);
        b64(out, (const unsigned char *)html, hlen);
        for (size_t i = 0; i < e.n; i++) {
            fprintf(out, "--=_satscope_%016llx\r\n", (unsigned long long)e.tag);
            fprintf(out,
                    "Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
                    "Content-ID: <chart%zu.%016llx@satscope>\r\n"
                    "Content-Disposition: inline; filename=\"%s.png\"\r\n\r\n",
                    i + 1, (unsigned long long)e.tag, e.parts[i].kind);
            b64(out, e.parts[i].data, e.parts[i].len);
        }
        fprintf(out, "--=_satscope_%016llx--\r\n", (unsigned long long)e.tag);
        if (ferror(out))
            rc = sat_diag_set(diag, SAT_E_IO, NULL, "writing the e-mail failed");
    }
    for (size_t i = 0; i < e.n; i++)
        free(e.parts[i].data);
    free(e.parts);
    free(html);
    return rc;
}

const sat_report_renderer sat_render_eml = {".eml", "e-mail", render_eml};
