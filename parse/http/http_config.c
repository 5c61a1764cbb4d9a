/*
 * http_config.c - the access log format definitions in the text of a server's
 * configuration file (http_conf.h): nginx.conf, Apache httpd.conf /
 * apache2.conf, Tomcat server.xml. Each reader undoes the quoting the server
 * itself undoes before its format compiler sees the string:
 *  - nginx (src/core/ngx_conf_file.c, ngx_conf_read_token): words split on
 *    blanks, ';' '{' '}'; '#' at a word's start comments to the line's end;
 *    '"' or '\'' quote a word; in every word "\\x" escapes x, and \" \' \\
 *    become the character, \t \r \n a tab, CR, LF; log_format's strings are
 *    joined as they are (ngx_http_log_module.c).
 *  - Apache (server/util.c ap_getword_conf, ap_cfg_getline): one directive
 *    per line, a trailing '\\' joins the next; '#' first comments the line;
 *    a word is quoted by '"' or '\'', and in it \\ and \<quote> stand for the
 *    character; a CustomLog format that is not a LogFormat nickname is an
 *    inline format (mod_log_config.c).
 *  - Tomcat (XML 1.0, attribute-value normalisation, section 3.3.3): <Valve>
 *    elements outside comments, attributes quoted by '"' or '\'', the five
 *    predefined entities and character references decoded, a literal tab, CR
 *    or LF (CRLF counting once) read as a space. AccessLogValve's defaults:
 *    prefix "access_log", suffix "", directory "logs"; without a pattern it
 *    logs nothing.
 * Every read is bounded by the text's length; nothing here needs a NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "http_int.h"
#include "satscope/http_conf.h"

/* nginx's built-in format (ngx_http_log_module.c) and Apache's default when
 * no nameless LogFormat is given (mod_log_config.c DEFAULT_LOG_FORMAT). */
#define NGINX_COMBINED                                                              \
    "$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent " \
    "\"$http_referer\" \"$http_user_agent\""
#define APACHE_DEFAULT "%h %l %u %t \"%r\" %>s %b"

/* A statement with more words is cut there (the definitions are a few). */
#define MAX_WORDS 4096

struct sat_http_conf {
    int server;
    sat_arena arena;
    sat_http_conf_def *defs;
    size_t ndefs, capdefs;
    sat_http_conf_log *logs;
    size_t nlogs, caplogs;
    const char **includes;
    size_t nincludes, capincludes;
    int nomem;
};

/* ---- storage ----------------------------------------------------------------- */
static const char *keep(sat_http_conf *c, const char *s, size_t n)
{
    char *p = sat_arena_strdup(&c->arena, s ? s : "", s ? n : 0);
    if (!p)
        c->nomem = 1;
    return p ? p : "";
}

static sat_http_conf_def *add_def(sat_http_conf *c, const char *name, size_t nlen,
                                  const char *defn, size_t dlen, uint32_t line)
{
    if (SAT_GROW(c->defs, c->capdefs, c->ndefs + 1) != SAT_OK) {
        c->nomem = 1;
        return NULL;
    }
    sat_http_conf_def *d = &c->defs[c->ndefs++];
    memset(d, 0, sizeof *d);
    d->server = c->server;
    d->name = keep(c, name, nlen);
    d->definition = keep(c, defn, dlen);
    d->line = line;
    return d;
}

static sat_http_conf_log *add_log(sat_http_conf *c, const char *path, size_t plen,
                                  uint32_t line)
{
    if (SAT_GROW(c->logs, c->caplogs, c->nlogs + 1) != SAT_OK) {
        c->nomem = 1;
        return NULL;
    }
    sat_http_conf_log *l = &c->logs[c->nlogs++];
    memset(l, 0, sizeof *l);
    l->path = keep(c, path, plen);
    const char *slash = strrchr(l->path, '/');
    l->prefix = slash ? slash + 1 : l->path;
    l->suffix = "";
    l->format = "";
    l->def = -1;
    l->line = line;
    return l;
}

static void add_include(sat_http_conf *c, const char *path, size_t n)
{
    if (SAT_GROW(c->includes, c->capincludes, c->nincludes + 1) != SAT_OK) {
        c->nomem = 1;
        return;
    }
    c->includes[c->nincludes++] = keep(c, path, n);
}

static int find_def(const sat_http_conf *c, const char *name)
{
    for (size_t i = c->ndefs; i-- > 0;)
        if (strcmp(c->defs[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* A growing byte buffer for one word being unescaped. */
typedef struct wbuf {
    char *p;
    size_t n, cap;
} wbuf;

static int wbuf_put(wbuf *b, char ch)
{
    if (SAT_GROW(b->p, b->cap, b->n + 1) != SAT_OK)
        return 0;
    b->p[b->n++] = ch;
    return 1;
}

/* A statement's words: offsets into one buffer (it may move as it grows). */
typedef struct words {
    wbuf buf;
    size_t off[MAX_WORDS + 1];
    size_t n;
    uint32_t line; /* of the first word */
} words;

static const char *word(const words *w, size_t i) { return w->buf.p + w->off[i]; }
static size_t word_len(const words *w, size_t i) { return w->off[i + 1] - w->off[i] - 1; }

static int diag_line(sat_diag *d, uint32_t line, const char *msg)
{
    if (d && d->code == 0) {
        char where[32];
        snprintf(where, sizeof where, "line %u", line);
        sat_diag_set(d, SAT_E_FORMAT, where, "%s", msg);
    }
    return SAT_E_FORMAT;
}

/* ---- nginx ------------------------------------------------------------------------ */
static void nginx_statement(sat_http_conf *c, const words *w)
{
    if (w->n == 0)
        return;
    const char *dir = word(w, 0);
    if (strcmp(dir, "include") == 0 && w->n >= 2) {
        add_include(c, word(w, 1), word_len(w, 1));
    } else if (strcmp(dir, "log_format") == 0 && w->n >= 2) {
        size_t first = 2;
        const char *esc = NULL;
        size_t esclen = 0;
        if (w->n > 2 && strncmp(word(w, 2), "escape=", 7) == 0) {
            esc = word(w, 2) + 7;
            esclen = word_len(w, 2) - 7;
            first = 3;
        }
        /* the strings are one buffer apart by their NULs: join them */
        wbuf j = {0};
        int ok = 1;
        for (size_t i = first; i < w->n && ok; i++)
            for (size_t k = 0; k < word_len(w, i) && ok; k++)
                ok = wbuf_put(&j, word(w, i)[k]);
        if (!ok) {
            free(j.p);
            c->nomem = 1;
            return;
        }
        sat_http_conf_def *d = add_def(c, word(w, 1), word_len(w, 1), j.p, j.n, w->line);
        free(j.p);
        if (d) {
            d->escape = esc ? keep(c, esc, esclen) : "default";
            /* nginx refuses a second definition of a name (and of combined):
             * the first stays the one logs use */
            for (size_t i = 0; i + 1 < c->ndefs; i++)
                if (strcmp(c->defs[i].name, d->name) == 0)
                    d->note = "a duplicate log_format name: nginx refuses this file";
        }
    } else if (strcmp(dir, "access_log") == 0 && w->n >= 2) {
        if (strcmp(word(w, 1), "off") == 0)
            return;
        sat_http_conf_log *l = add_log(c, word(w, 1), word_len(w, 1), w->line);
        if (l)
            l->format = w->n >= 3 ? keep(c, word(w, 2), word_len(w, 2)) : "combined";
    }
}

/* The next word at *pos into w (unescaped, NUL-ended). Returns 1 for a word,
 * 0 at a statement end (*term = ';', '{', '}', or 0 at the end of text),
 * -1 on an unterminated quote, -2 out of memory. */
static int nginx_word(const char *t, size_t len, size_t *pos, uint32_t *line, words *w,
                      int *term)
{
    size_t i = *pos;
    for (;;) {
        while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n')) {
            if (t[i] == '\n')
                (*line)++;
            i++;
        }
        if (i >= len) {
            *pos = i;
            *term = 0;
            return 0;
        }
        if (t[i] == '#') {
            while (i < len && t[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    if (t[i] == ';' || t[i] == '{' || t[i] == '}') {
        *term = t[i];
        *pos = i + 1;
        return 0;
    }
    char quote = (t[i] == '"' || t[i] == '\'') ? t[i] : 0;
    uint32_t start_line = *line;
    if (quote)
        i++;
    if (w->n == 0)
        w->line = start_line;
    int ok = 1, variable = 0, closed = !quote;
    while (i < len) {
        char ch = t[i];
        if (quote && ch == quote) {
            i++;
            closed = 1;
            break;
        }
        if (!quote) {
            if (ch == '{' && variable) { /* ${name} */
                ok = ok && wbuf_put(&w->buf, ch);
                i++;
                while (i < len && t[i] != '}' && t[i] != '\n')
                    ok = ok && wbuf_put(&w->buf, t[i++]);
                variable = 0;
                continue;
            }
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{')
                break;
        }
        variable = ch == '$';
        if (ch == '\n')
            (*line)++;
        if (ch == '\\' && i + 1 < len) {
            char nx = t[i + 1];
            char out = nx == 't' ? '\t' : nx == 'r' ? '\r' : nx == 'n' ? '\n' : 0;
            if (nx == '"' || nx == '\'' || nx == '\\') {
                ok = ok && wbuf_put(&w->buf, nx);
            } else if (out) {
                ok = ok && wbuf_put(&w->buf, out);
            } else { /* kept as written */
                ok = ok && wbuf_put(&w->buf, '\\') && wbuf_put(&w->buf, nx);
                if (nx == '\n')
                    (*line)++;
            }
            i += 2;
            continue;
        }
        ok = ok && wbuf_put(&w->buf, ch);
        i++;
    }
    *pos = i;
    if (!ok || !wbuf_put(&w->buf, '\0'))
        return -2;
    if (!closed) {
        *line = start_line;
        return -1;
    }
    if (w->n < MAX_WORDS)
        w->off[++w->n] = w->buf.n;
    else /* cut: the word is dropped */
        w->buf.n = w->off[w->n];
    return 1;
}

static int nginx_parse(sat_http_conf *c, const char *t, size_t len, sat_diag *d)
{
    words *w = calloc(1, sizeof *w);
    if (!w)
        return SAT_E_NOMEM;
    size_t pos = 0;
    uint32_t line = 1;
    int rc = SAT_OK;
    for (;;) {
        int term = 0;
        int r = nginx_word(t, len, &pos, &line, w, &term);
        if (r == 1)
            continue;
        if (r == -2) {
            rc = SAT_E_NOMEM;
            break;
        }
        if (r == -1) {
            rc = diag_line(d, line, "a quoted string is not closed");
            break;
        }
        if (term == ';' || (term == 0 && w->n))
            nginx_statement(c, w); /* a last statement without ';' is still read */
        w->n = 0;
        w->buf.n = 0;
        if (term == 0)
            break;
    }
    free(w->buf.p);
    free(w);
    return rc;
}

/* ---- Apache ------------------------------------------------------------------------ */
static int ci_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* ap_getword_conf over [*p, end) into w. 1 for a word, 0 at the line's end. */
static int apache_word(const char **p, const char *end, words *w, int *ok)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++;
    if (s >= end) {
        *p = s;
        return 0;
    }
    char quote = (*s == '"' || *s == '\'') ? *s : 0;
    const char *b = quote ? s + 1 : s, *e = b;
    if (quote) {
        while (e < end && *e != quote)
            e += (*e == '\\' && e + 1 < end && e[1] == quote) ? 2 : 1;
    } else {
        while (e < end && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n')
            e++;
    }
    for (const char *q = b; q < e; q++) {
        if (*q == '\\' && q + 1 < e && (q[1] == '\\' || (quote && q[1] == quote)))
            q++;
        *ok = *ok && wbuf_put(&w->buf, *q);
    }
    *ok = *ok && wbuf_put(&w->buf, '\0');
    *p = (e < end && quote) ? e + 1 : e;
    if (w->n < MAX_WORDS)
        w->off[++w->n] = w->buf.n;
    else
        w->buf.n = w->off[w->n];
    return 1;
}

static void apache_statement(sat_http_conf *c, const words *w)
{
    const char *dir = word(w, 0);
    if (ci_eq(dir, "LogFormat") && w->n >= 2) {
        const char *nick = w->n >= 3 ? word(w, 2) : "";
        size_t nlen = w->n >= 3 ? word_len(w, 2) : 0;
        /* a later definition of a nickname replaces the earlier one */
        int i = find_def(c, nick);
        if (i >= 0 && !c->defs[i].builtin) {
            c->defs[i].definition = keep(c, word(w, 1), word_len(w, 1));
            c->defs[i].line = w->line;
        } else {
            add_def(c, nick, nlen, word(w, 1), word_len(w, 1), w->line);
        }
    } else if ((ci_eq(dir, "CustomLog") || ci_eq(dir, "GlobalLog")) && w->n >= 3) {
        sat_http_conf_log *l = add_log(c, word(w, 1), word_len(w, 1), w->line);
        if (l)
            l->format = keep(c, word(w, 2), word_len(w, 2));
    } else if (ci_eq(dir, "TransferLog") && w->n >= 2) {
        sat_http_conf_log *l = add_log(c, word(w, 1), word_len(w, 1), w->line);
        if (l)
            l->format = "";
    } else if ((ci_eq(dir, "Include") || ci_eq(dir, "IncludeOptional")) && w->n >= 2) {
        add_include(c, word(w, 1), word_len(w, 1));
    }
}

static int apache_parse(sat_http_conf *c, const char *t, size_t len)
{
    words *w = calloc(1, sizeof *w);
    wbuf logical = {0};
    if (!w)
        return SAT_E_NOMEM;
    size_t pos = 0;
    uint32_t line = 1;
    int ok = 1;
    while (pos < len && ok) {
        /* one logical line: physical lines whose last non-blank is '\\' join */
        uint32_t first = line;
        logical.n = 0;
        for (;;) {
            const char *nl = memchr(t + pos, '\n', len - pos);
            size_t e = nl ? (size_t)(nl - t) : len, k = e;
            while (k > pos && (t[k - 1] == '\r' || t[k - 1] == ' ' || t[k - 1] == '\t'))
                k--;
            int cont = k > pos && t[k - 1] == '\\';
            for (size_t i = pos; i < (cont ? k - 1 : k) && ok; i++)
                ok = wbuf_put(&logical, t[i]);
            pos = nl ? e + 1 : len;
            if (nl)
                line++;
            if (!cont || pos >= len)
                break;
        }
        if (!logical.n) /* an empty line (and no buffer yet) */
            continue;
        const char *p = logical.p, *end = logical.p + logical.n;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end || *p == '#' || *p == '<')
            continue;
        w->n = 0;
        w->buf.n = 0;
        w->line = first;
        while (apache_word(&p, end, w, &ok))
            ;
        if (ok && w->n)
            apache_statement(c, w);
    }
    free(logical.p);
    free(w->buf.p);
    free(w);
    return ok ? SAT_OK : SAT_E_NOMEM;
}

/* ---- Tomcat ------------------------------------------------------------------------ */
static size_t find_lit(const char *t, size_t len, size_t from, const char *lit)
{
    size_t n = strlen(lit);
    for (size_t i = from; i + n <= len; i++)
        if (t[i] == lit[0] && memcmp(t + i, lit, n) == 0)
            return i;
    return len;
}

static uint32_t count_nl(const char *t, size_t a, size_t b)
{
    uint32_t n = 0;
    for (size_t i = a; i < b; i++)
        n += t[i] == '\n';
    return n;
}

static int put_utf8(wbuf *b, unsigned long cp)
{
    if (cp < 0x80)
        return wbuf_put(b, (char)cp);
    if (cp < 0x800)
        return wbuf_put(b, (char)(0xC0 | (cp >> 6))) && wbuf_put(b, (char)(0x80 | (cp & 0x3F)));
    if (cp < 0x10000)
        return wbuf_put(b, (char)(0xE0 | (cp >> 12))) &&
               wbuf_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
               wbuf_put(b, (char)(0x80 | (cp & 0x3F)));
    return wbuf_put(b, (char)(0xF0 | (cp >> 18))) &&
           wbuf_put(b, (char)(0x80 | ((cp >> 12) & 0x3F))) &&
           wbuf_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
           wbuf_put(b, (char)(0x80 | (cp & 0x3F)));
}

/* An attribute value [v, e) decoded into b (NUL-ended). */
static int xml_value(const char *v, const char *e, wbuf *b)
{
    static const struct {
        const char *name;
        char ch;
    } ents[] = {{"quot;", '"'}, {"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"apos;", '\''}};
    int ok = 1;
    b->n = 0;
    for (const char *p = v; p < e && ok;) {
        if (*p == '&') {
            int done = 0;
            for (size_t k = 0; k < sizeof ents / sizeof ents[0] && !done; k++) {
                size_t n = strlen(ents[k].name);
                if ((size_t)(e - p - 1) >= n && memcmp(p + 1, ents[k].name, n) == 0) {
                    ok = wbuf_put(b, ents[k].ch);
                    p += 1 + n;
                    done = 1;
                }
            }
            if (!done && e - p > 2 && p[1] == '#') {
                const char *q = p + 2;
                int hex = q < e && *q == 'x';
                q += hex;
                unsigned long cp = 0;
                const char *digits = q;
                while (q < e && q - digits < 8 &&
                       ((*q >= '0' && *q <= '9') ||
                        (hex && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))))) {
                    int dv = *q <= '9' ? *q - '0' : (*q | 0x20) - 'a' + 10;
                    cp = cp * (hex ? 16 : 10) + (unsigned long)dv;
                    q++;
                }
                if (q > digits && q < e && *q == ';' && cp > 0 && cp <= 0x10FFFF) {
                    ok = put_utf8(b, cp);
                    p = q + 1;
                    done = 1;
                }
            }
            if (!done) /* not an entity: kept as written (XML calls it an error) */
                ok = wbuf_put(b, *p++);
        } else if (*p == '\r' || *p == '\n' || *p == '\t') {
            ok = wbuf_put(b, ' ');
            p += (*p == '\r' && p + 1 < e && p[1] == '\n') ? 2 : 1;
        } else {
            ok = wbuf_put(b, *p++);
        }
    }
    return ok && wbuf_put(b, '\0');
}

static int is_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '.' || ch == ':';
}

/* The valve element's attributes [p, end): class, prefix, suffix, directory,
 * pattern into the conf. */
static int tomcat_valve(sat_http_conf *c, const char *p, const char *end, uint32_t line)
{
    enum { A_CLASS, A_PREFIX, A_SUFFIX, A_DIR, A_PATTERN, A_N };
    static const char *const names[A_N] = {"className", "prefix", "suffix", "directory",
                                           "pattern"};
    wbuf vals[A_N];
    int have[A_N] = {0};
    memset(vals, 0, sizeof vals);
    int ok = 1;
    while (p < end && ok) {
        while (p < end && !is_name_char(*p))
            p++;
        const char *n = p;
        while (p < end && is_name_char(*p))
            p++;
        size_t nlen = (size_t)(p - n);
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (p >= end || *p != '=')
            continue;
        p++;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (p >= end || (*p != '"' && *p != '\''))
            continue;
        char q = *p++;
        const char *v = p;
        while (p < end && *p != q)
            p++;
        for (int k = 0; k < A_N; k++)
            if (strlen(names[k]) == nlen && memcmp(n, names[k], nlen) == 0) {
                ok = xml_value(v, p, &vals[k]);
                have[k] = 1;
            }
        if (p < end)
            p++;
    }
    if (ok && have[A_CLASS]) {
        const char *cls = vals[A_CLASS].p;
        const char *dot = strrchr(cls, '.');
        const char *base = dot ? dot + 1 : cls;
        int plain = strcmp(base, "AccessLogValve") == 0;
        int extended = strcmp(base, "ExtendedAccessLogValve") == 0;
        if (plain || extended) {
            const char *prefix = have[A_PREFIX] ? vals[A_PREFIX].p : "access_log";
            const char *pattern = have[A_PATTERN] ? vals[A_PATTERN].p : "";
            sat_http_conf_def *d =
                add_def(c, prefix, strlen(prefix), pattern, strlen(pattern), line);
            if (d && extended)
                d->note = "an ExtendedAccessLogValve writes W3C extended fields, "
                          "not an AccessLogValve pattern";
            else if (d && !have[A_PATTERN])
                d->note = "the valve has no pattern attribute: it logs nothing";
            const char *dir = have[A_DIR] ? vals[A_DIR].p : "logs";
            wbuf path = {0};
            int pok = 1;
            for (const char *s = dir; *s && pok; s++)
                pok = wbuf_put(&path, *s);
            pok = pok && (dir[0] == 0 || wbuf_put(&path, '/'));
            for (const char *s = prefix; *s && pok; s++)
                pok = wbuf_put(&path, *s);
            sat_http_conf_log *l = pok ? add_log(c, path.p, path.n, line) : NULL;
            free(path.p);
            if (!pok)
                c->nomem = 1;
            if (l) {
                l->prefix = c->defs[c->ndefs - 1].name;
                l->suffix = keep(c, have[A_SUFFIX] ? vals[A_SUFFIX].p : "",
                                 have[A_SUFFIX] ? strlen(vals[A_SUFFIX].p) : 0);
                l->format = l->prefix;
                l->def = (int)c->ndefs - 1;
            }
        }
    }
    for (int k = 0; k < A_N; k++)
        free(vals[k].p);
    return ok ? SAT_OK : SAT_E_NOMEM;
}

static int tomcat_parse(sat_http_conf *c, const char *t, size_t len, sat_diag *d)
{
    size_t i = 0;
    uint32_t line = 1;
    for (;;) {
        size_t lt = i;
        while (lt < len && t[lt] != '<')
            lt++;
        line += count_nl(t, i, lt);
        if (lt >= len)
            return SAT_OK;
        /* comments, CDATA, processing instructions and declarations end on
         * their own terminator, not on the first '>' */
        static const struct {
            const char *open, *close;
        } skips[] = {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}};
        int skipped = 0;
        for (size_t k = 0; k < sizeof skips / sizeof skips[0]; k++) {
            size_t n = strlen(skips[k].open);
            if (len - lt >= n && memcmp(t + lt, skips[k].open, n) == 0) {
                size_t e = find_lit(t, len, lt + n, skips[k].close);
                if (e >= len)
                    return diag_line(d, line, k == 0   ? "a comment is not closed"
                                              : k == 1 ? "a CDATA section is not closed"
                                                       : "a processing instruction is not closed");
                e += strlen(skips[k].close);
                line += count_nl(t, lt, e);
                i = e;
                skipped = 1;
                break;
            }
        }
        if (skipped)
            continue;
        /* an element tag: '>' outside quoted attribute values ends it */
        size_t e = lt + 1;
        char q = 0;
        while (e < len && (q || t[e] != '>')) {
            if (q && t[e] == q)
                q = 0;
            else if (!q && (t[e] == '"' || t[e] == '\''))
                q = t[e];
            e++;
        }
        if (e >= len)
            return diag_line(d, line, "an element's tag is not closed");
        size_t n = 1;
        while (lt + n < e && is_name_char(t[lt + n]))
            n++;
        if (n - 1 == 5 && memcmp(t + lt + 1, "Valve", 5) == 0) {
            int rc = tomcat_valve(c, t + lt + n, t + e, line);
            if (rc < 0)
                return rc;
        }
        line += count_nl(t, lt, e);
        i = e + 1;
    }
}

/* ---- which server -------------------------------------------------------------------- */
static int first_word_is(const char *p, const char *end, const char *w, int ci)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char a = p[i], b = w[i];
        if (ci) {
            a = a >= 'A' && a <= 'Z' ? (char)(a + 32) : a;
            b = b >= 'A' && b <= 'Z' ? (char)(b + 32) : b;
        }
        if (a != b)
            return 0;
    }
    return (size_t)(end - p) == n || p[n] == ' ' || p[n] == '\t' || p[n] == '\r';
}

static int sniff_server(const char *t, size_t len)
{
    if (find_lit(t, len, 0, "<Valve") < len || find_lit(t, len, 0, "<Server") < len)
        return SAT_HTTP_CONF_TOMCAT;
    int apache = 0, nginx = 0, ends = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(t + pos, '\n', len - pos);
        const char *p = t + pos, *end = nl ? nl : t + len;
        pos = nl ? (size_t)(nl - t) + 1 : len;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        static const char *const ap[] = {"LogFormat", "CustomLog", "TransferLog", "GlobalLog"};
        for (size_t k = 0; k < 4; k++)
            apache += first_word_is(p, end, ap[k], 1);
        nginx += first_word_is(p, end, "log_format", 0) + first_word_is(p, end, "access_log", 0);
        const char *q = end;
        while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
            q--;
        if (q > p && *p != '#' && (q[-1] == ';' || q[-1] == '{' || q[-1] == '}'))
            ends++;
    }
    if (apache != nginx)
        return apache > nginx ? SAT_HTTP_CONF_APACHE : SAT_HTTP_CONF_NGINX;
    return ends ? SAT_HTTP_CONF_NGINX : SAT_HTTP_CONF_APACHE;
}

/* ---- the whole text ------------------------------------------------------------------ */
int sat_http_conf_parse(const char *text, size_t len, int server, sat_http_conf **out,
                        sat_diag *d)
{
    *out = NULL;
    sat_http_conf *c = calloc(1, sizeof *c);
    if (!c)
        return SAT_E_NOMEM;
    if (!text)
        len = 0;
    c->server = server ? server : sniff_server(text, len);
    int rc = c->server == SAT_HTTP_CONF_NGINX    ? nginx_parse(c, text, len, d)
             : c->server == SAT_HTTP_CONF_APACHE ? apache_parse(c, text, len)
                                                  : tomcat_parse(c, text, len, d);
    if (rc == SAT_E_NOMEM || c->nomem) {
        sat_http_conf_free(c);
        return SAT_E_NOMEM;
    }
    /* the built-ins a log may name without the text defining them */
    if (c->server == SAT_HTTP_CONF_NGINX && find_def(c, "combined") < 0) {
        sat_http_conf_def *b = add_def(c, "combined", 8, NGINX_COMBINED,
                                       sizeof NGINX_COMBINED - 1, 0);
        if (b) {
            b->builtin = 1;
            b->escape = "default";
        }
    }
    if (c->server == SAT_HTTP_CONF_APACHE && find_def(c, "") < 0) {
        sat_http_conf_def *b = add_def(c, "", 0, APACHE_DEFAULT, sizeof APACHE_DEFAULT - 1, 0);
        if (b)
            b->builtin = 1;
    }
    /* each log's definition: nginx names it (first definition of the name);
     * Apache names a nickname or writes its format inline */
    for (size_t i = 0; i < c->nlogs && !c->nomem; i++) {
        sat_http_conf_log *l = &c->logs[i];
        if (c->server == SAT_HTTP_CONF_TOMCAT)
            continue;
        int k = -1;
        for (size_t j = 0; j < c->ndefs && k < 0; j++)
            if (strcmp(c->defs[j].name, l->format) == 0)
                k = (int)j;
        if (c->server == SAT_HTTP_CONF_APACHE && l->format[0]) {
            k = find_def(c, l->format);
            if (k < 0) {
                sat_http_conf_def *inl =
                    add_def(c, "", 0, l->format, strlen(l->format), l->line);
                k = inl ? (int)c->ndefs - 1 : -1;
                l->format = "";
            }
        }
        l->def = k;
    }
    if (c->nomem) {
        sat_http_conf_free(c);
        return SAT_E_NOMEM;
    }
    *out = c;
    return rc;
}

void sat_http_conf_free(sat_http_conf *c)
{
    if (!c)
        return;
    sat_arena_free(&c->arena);
    free(c->defs);
    free(c->logs);
    free(c->includes);
    free(c);
}

int sat_http_conf_server_of(const sat_http_conf *c) { return c ? c->server : 0; }

const char *sat_http_conf_server_name(int server)
{
    switch (server) {
    case SAT_HTTP_CONF_NGINX: return "nginx";
    case SAT_HTTP_CONF_APACHE: return "apache";
    case SAT_HTTP_CONF_TOMCAT: return "tomcat";
    default: return "?";
    }
}

size_t sat_http_conf_defs(const sat_http_conf *c, const sat_http_conf_def **defs)
{
    *defs = c ? c->defs : NULL;
    return c ? c->ndefs : 0;
}

size_t sat_http_conf_logs(const sat_http_conf *c, const sat_http_conf_log **logs)
{
    *logs = c ? c->logs : NULL;
    return c ? c->nlogs : 0;
}

size_t sat_http_conf_includes(const sat_http_conf *c, const char *const **paths)
{
    *paths = c ? c->includes : NULL;
    return c ? c->nincludes : 0;
}

/* ---- lookup ------------------------------------------------------------------------------- */
/* The length of name's file name less a compression suffix. */
static size_t file_stem(const char *name, const char **base)
{
    const char *s = strrchr(name, '/');
    *base = s ? s + 1 : name;
    size_t n = strlen(*base);
    static const char *const comp[] = {".gz", ".bz2", ".xz", ".zst", ".zstd"};
    for (size_t k = 0; k < sizeof comp / sizeof comp[0]; k++) {
        size_t cl = strlen(comp[k]);
        if (n > cl && strcmp(*base + n - cl, comp[k]) == 0)
            return n - cl;
    }
    return n;
}

/* How well log l names the file [b, b+n): the length matched, 0 if not. */
static size_t log_match(const sat_http_conf *c, const sat_http_conf_log *l, const char *b,
                        size_t n)
{
    size_t pl = strlen(l->prefix), sl = strlen(l->suffix);
    if (pl == 0 || n < pl || memcmp(b, l->prefix, pl) != 0)
        return 0;
    if (c->server == SAT_HTTP_CONF_TOMCAT) /* PREFIX [.DATE] SUFFIX */
        return n >= pl + sl && memcmp(b + n - sl, l->suffix, sl) == 0 ? pl + sl : 0;
    return n == pl || b[pl] == '.' || b[pl] == '-' ? pl : 0;
}

static void list_names(const sat_http_conf *c, sat_diag *d, const char *what, const char *name)
{
    char names[384] = "", logs[384] = "", inc[256] = "";
    for (size_t i = 0; i < c->ndefs; i++)
        if (c->defs[i].name[0])
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s%s",
                     names[0] ? ", " : "", c->defs[i].name,
                     c->defs[i].builtin ? " (built in)" : "");
    for (size_t i = 0; i < c->nlogs; i++)
        snprintf(logs + strlen(logs), sizeof logs - strlen(logs), "%s%s%s%s", logs[0] ? ", " : "",
                 c->logs[i].prefix, c->server == SAT_HTTP_CONF_TOMCAT ? "*" : "",
                 c->logs[i].suffix);
    for (size_t i = 0; i < c->nincludes; i++)
        snprintf(inc + strlen(inc), sizeof inc - strlen(inc), "%s%s", inc[0] ? ", " : "",
                 c->includes[i]);
    sat_diag_set(d, SAT_E_USAGE, name ? name : "", "%s (the %s configuration defines: %s%s%s%s%s)",
                 what, sat_http_conf_server_name(c->server), names[0] ? names : "no format",
                 logs[0] ? "; its access logs: " : "", logs,
                 inc[0] ? "; not read, the files it includes: " : "", inc);
}

const sat_http_conf_def *sat_http_conf_lookup(const sat_http_conf *c, const char *name,
                                              sat_diag *d)
{
    if (!c)
        return NULL;
    if (name && name[0]) {
        /* 1. by name: nginx takes the first definition, Apache the last
         * (kept in place), Tomcat's valves may share a prefix */
        int found = -1;
        for (size_t i = 0; i < c->ndefs; i++) {
            if (strcmp(c->defs[i].name, name) != 0)
                continue;
            if (found < 0) {
                found = (int)i;
            } else if (c->server == SAT_HTTP_CONF_TOMCAT &&
                       strcmp(c->defs[found].definition, c->defs[i].definition) != 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "two valves with prefix '%s' (lines %u and %u) log "
                                          "different patterns", name, c->defs[found].line,
                         c->defs[i].line);
                list_names(c, d, msg, NULL);
                return NULL;
            }
        }
        if (found >= 0)
            return &c->defs[found];
        /* 2. by the log file it writes */
        const char *b;
        size_t n = file_stem(name, &b), best = 0;
        int bestdef = -1;
        const sat_http_conf_log *bl = NULL;
        for (size_t i = 0; i < c->nlogs; i++) {
            size_t m = log_match(c, &c->logs[i], b, n);
            if (m > best) {
                best = m;
                bl = &c->logs[i];
                bestdef = bl->def;
            } else if (m && m == best && c->logs[i].def != bestdef) {
                bestdef = -2; /* two logs of that name written differently */
            }
        }
        if (bl && bestdef >= 0)
            return &c->defs[bestdef];
        char msg[300];
        if (bl && bestdef == -2)
            snprintf(msg, sizeof msg, "'%s': several access logs of that name are written "
                                      "with different formats", name);
        else if (bl)
            snprintf(msg, sizeof msg, "'%s': the access log of line %u names the format '%s', "
                                      "which is not defined", name, bl->line, bl->format);
        else
            snprintf(msg, sizeof msg, "no format or access log named '%s'", name);
        list_names(c, d, msg, NULL);
        return NULL;
    }
    /* 3. the only one */
    int only = -1, count = 0;
    for (size_t i = 0; i < c->ndefs; i++)
        if (!c->defs[i].builtin) {
            if (only < 0 || strcmp(c->defs[only].definition, c->defs[i].definition) != 0)
                count++;
            only = (int)i;
        }
    if (count == 1)
        return &c->defs[only];
    list_names(c, d, count ? "several formats, and no name to choose one" : "no format definition",
               NULL);
    return NULL;
}

/* ---- the string for the format compiler ------------------------------------------------ */
size_t sat_http_conf_format_arg(const sat_http_conf_def *def, int tomcat9, char *out,
                                size_t cap)
{
    const char *prefix = def->server == SAT_HTTP_CONF_NGINX    ? "nginx:"
                         : def->server == SAT_HTTP_CONF_APACHE ? "apache:"
                         : tomcat9                             ? "tomcat9:"
                                                               : "tomcat:";
    /* the server's own preset when the definition is one: the source row is
     * then named as with --log-format PRESET ("apache-combined") */
    const char *server = sat_http_conf_server_name(def->server);
    const char *d = def->definition;
    int word = def->server == SAT_HTTP_CONF_TOMCAT &&
               (strcmp(d, "common") == 0 || strcmp(d, "combined") == 0);
    for (size_t i = 0; sat_http_preset_name(i); i++) {
        const char *name = sat_http_preset_name(i);
        const char *pdef = sat_http_preset_def(name, NULL);
        size_t sl = strlen(server), pl = strlen(prefix);
        if (strncmp(name, server, sl) != 0 || name[sl] != '-' || !pdef)
            continue;
        if (word ? strcmp(name + sl + 1, d) == 0
                 : strncmp(pdef, prefix, pl) == 0 && strcmp(pdef + pl, d) == 0)
            return (size_t)snprintf(out, cap, "%s", name);
    }
    size_t n = 0;
#define PUT(ch)                                                                     \
    do {                                                                            \
        if (n + 1 < cap)                                                            \
            out[n] = (ch);                                                          \
        n++;                                                                        \
    } while (0)
    for (const char *p = prefix; *p; p++)
        PUT(*p);
    /* Tomcat's pattern words are the compiler's Tomcat presets as they are */
    if (!word)
        PUT('"');
    for (const char *p = d; *p; p++) {
        if (word) {
            PUT(*p);
        } else if (*p == '\\' || *p == '"') {
            PUT('\\');
            PUT(*p);
        } else if (*p == '&') {
            for (const char *e = "&amp;"; *e; e++)
                PUT(*e);
        } else {
            PUT(*p);
        }
    }
    if (!word)
        PUT('"');
#undef PUT
    if (cap)
        out[n < cap ? n : cap - 1] = '\0';
    return n;
}
