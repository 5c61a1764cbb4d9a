/*
 * report_render_eml.c - a report as an e-mail (`-o report.eml`), ready for
 * `sendmail -t < report.eml`: a MIME message (RFC 5322, RFC 2045-2047) of
 * type multipart/alternative (RFC 2046 5.1.4): the text form first, then the
 * HTML form in a multipart/related (RFC 2387) with the charts as PNG images,
 * each named by its Content-ID and shown by <img src="cid:..."> (RFC 2392):
 * mail readers show PNG where few show inline SVG. Headers From, To
 * (--mail-from, --mail-to), Subject (--subject, else the title and how many
 * findings of each severity; RFC 2047-encoded when not ASCII), addresses and a
 * subject with no control in them (mail_header.c: refused otherwise, a
 * title's controls escaped), Date (when the report is made: --mail-date or
 * SOURCE_DATE_EPOCH fix it) and Message-ID; lines end in CRLF, bodies are
 * base64 in lines of 76.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, gmtime_r */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doc_int.h"
#include "satscope/escape.h"

extern const sat_report_renderer sat_render_text;

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
    /* shown at the 760 px it is laid out for; its alt text says what it
     * shows with its key figures, for a reader that shows no image */
    char alt[1024];
    sat_chart_summary(c, alt, sizeof alt);
    fprintf(out, "<figure class=\"chart\"><img src=\"cid:chart%d.%016llx@satscope\" alt=\"", n,
            (unsigned long long)e->tag);
    rd_html_esc(out, alt[0] ? alt : kind);
    fputs("\" style=\"width:100%;max-width:760px;height:auto\"></figure>\n", out);
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

/* "Nightly digest: 2 servers, 2026-11-03: 7 findings (5 warnings, 2 notes)":
 * the title and how many findings of each severity, so that a mailbox of
 * digests shows which night needs reading. */
static void default_subject(char *buf, size_t n, const sat_rnode *root)
{
    uint64_t count[8] = {0}, all = 0;
    const sat_rnode *fl = sat_get_list(root, "findings");
    for (const sat_rnode *f = fl ? sat_rnode_first(fl) : NULL; f; f = sat_rnode_next(f), all++)
        for (size_t k = 0; k < 8 && rd_severity_at(k); k++)
            if (!strcmp(sat_get_text(f, "severity", "notice"), rd_severity_at(k)))
                count[k]++;
    const char *title = sat_get_text(root, "title", "satscope report");
    if (!all) {
        snprintf(buf, n, "%s: no finding", title);
        return;
    }
    size_t len = (size_t)snprintf(buf, n, "%s: %llu %s (", title, (unsigned long long)all,
                                  sat_plural(all, "finding", "findings"));
    const char *sep = "";
    for (size_t k = 0; k < 8 && rd_severity_at(k) && len < n; k++) {
        if (!count[k])
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%llu %s", sep, (unsigned long long)count[k],
                                rd_severity_words(rd_severity_at(k), count[k]));
        sep = ", ";
    }
    if (len < n)
        snprintf(buf + len, n - len, ")");
}

/* RFC 5322's date, in English whatever the locale. */
static void mail_date(char *buf, size_t n, int64_t ns)
{
    static const char *const wd[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mo[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)(ns > 0 ? ns / 1000000000 : 0);
    struct tm tm;
    snprintf(buf, n, "Thu, 01 Jan 1970 00:00:00 +0000");
    if (gmtime_r(&t, &tm))
        snprintf(buf, n, "%s, %02d %s %04d %02d:%02d:%02d +0000", wd[tm.tm_wday], tm.tm_mday,
                 mo[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* A body part: its headers, then its bytes in base64. */
static void part(FILE *out, uint64_t tag, const char *boundary, const char *headers,
                 const unsigned char *p, size_t n)
{
    fprintf(out, "--=_%s_%016llx\r\n%s\r\n", boundary, (unsigned long long)tag, headers);
    b64(out, p, n);
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
    char *html = NULL, *text = NULL;
    size_t hlen = 0, tlen = 0;
    FILE *hf = open_memstream(&html, &hlen);
    if (!hf)
        return sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
    int rc = rd_html(rep, o, hf, on_chart, &e, diag);
    fclose(hf);
    if (rc >= 0 && e.err)
        rc = sat_diag_set(diag, e.err, NULL, "out of memory");
    /* the text form beside it: what a reader that shows no HTML (or a
     * person who prefers plain text) reads, the same document */
    if (rc >= 0) {
        FILE *tf = open_memstream(&text, &tlen);
        rc = tf ? sat_render_text.render(rep, o, tf, diag)
                : sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
        if (tf && fclose(tf) != 0 && rc >= 0)
            rc = sat_diag_set(diag, SAT_E_NOMEM, NULL, "out of memory");
    }
    if (rc >= 0) {
        const sat_rnode *root = sat_result_root(sat_report_doc(rep));
        int64_t made = o->mail_date_ns;
        if (!made) {
            struct timespec now;
            made = clock_gettime(CLOCK_REALTIME, &now) == 0 ? (int64_t)now.tv_sec * 1000000000 : 0;
        }
        char date[64], subject[600];
        mail_date(date, sizeof date, made);
        default_subject(subject, sizeof subject, root);
        const char *kind = sat_get_text(root, "kind", NULL);
        unsigned long long tag = (unsigned long long)e.tag;
        fprintf(out, "From: %s\r\n", o->mail_from ? o->mail_from : "satscope <satscope@localhost>");
        fprintf(out, "To: %s\r\n", o->mail_to ? o->mail_to : "undisclosed-recipients:;");
        header_text(out, "Subject", o->subject ? o->subject : subject);
        fprintf(out, "Date: %s\r\n", date);
        fprintf(out, "Message-ID: <%s.%lld.%016llx@satscope>\r\n", kind ? kind : "report",
                (long long)made, tag);
        fputs("MIME-Version: 1.0\r\n", out);
        /* multipart/alternative (RFC 2046 5.1.4): the plain text first, the
         * richest form last; the HTML with its charts is multipart/related */
        fprintf(out, "Content-Type: multipart/alternative;\r\n boundary=\"=_alt_%016llx\"\r\n\r\n",
                tag);
        fputs("This is a MIME message: a report as text and as HTML with its charts.\r\n\r\n",
              out);
        part(out, e.tag, "alt",
             "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n",
             (const unsigned char *)text, tlen);
        fprintf(out, "--=_alt_%016llx\r\n", tag);
        fprintf(out,
                "Content-Type: multipart/related; type=\"text/html\";\r\n"
                " boundary=\"=_rel_%016llx\"\r\n\r\n",
                tag);
        part(out, e.tag, "rel",
             "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n",
             (const unsigned char *)html, hlen);
        for (size_t i = 0; i < e.n; i++) {
            char h[256];
            snprintf(h, sizeof h,
                     "Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
                     "Content-ID: <chart%zu.%016llx@satscope>\r\n"
                     "Content-Disposition: inline; filename=\"%s.png\"\r\n",
                     i + 1, tag, e.parts[i].kind);
            part(out, e.tag, "rel", h, e.parts[i].data, e.parts[i].len);
        }
        fprintf(out, "--=_rel_%016llx--\r\n\r\n--=_alt_%016llx--\r\n", tag, tag);
        if (ferror(out))
            rc = sat_diag_set(diag, SAT_E_IO, NULL, "writing the e-mail failed");
    }
    for (size_t i = 0; i < e.n; i++)
        free(e.parts[i].data);
    free(e.parts);
    free(html);
    free(text);
    return rc;
}

const sat_report_renderer sat_render_eml = {".eml", "e-mail", render_eml};
