/*
 * http_format.c - the HTTP access-log format compiler: a preset name, or the
 * server's own definition in one of three syntaxes, into a compiled format
 * that http_match.c matches lines against.
 *
 * The syntaxes are told apart by what they are written with (or forced with
 * a prefix "nginx:", "apache:", "tomcat:", "tomcat9:"):
 *   - nginx log_format body (ngx_http_log_module): `$variable` / `${variable}`;
 *   - Apache httpd LogFormat (mod_log_config): %-directives;
 *   - Tomcat AccessLogValve pattern: %-directives too, told from Apache's by
 *     the directives only Tomcat has (%F, %{...}r, %{...}s, %{...}c, a
 *     SimpleDateFormat %{...}t) or only Apache has (%>s, %k, %{...}x, %{...}e,
 *     %{...}n, %{...}C, %O, ...); a pattern with neither is read as Apache's
 *     and marked as having two readings (facts.two_readings): %I is bytes
 *     received in Apache's and the thread's name in Tomcat's, %S bytes
 *     transferred or the session id, and Tomcat 9's %D and %T are in other
 *     units ("tomcat9:" for those); fmt_http.c tries both readings on the
 *     lines. The words "common" and "combined" alone are the presets.
 * A definition given as in the configuration file, in quotes ('...' parts on
 * lines of their own as nginx writes a long one, "..." with \" inside as
 * Apache does), is taken with its quotes removed; XML entities (&quot; ...) of
 * a server.xml pattern are decoded.
 *
 * Presets (also what auto-detection tries, fmt_http.c):
 *   combined, common         the NCSA formats, whichever server wrote them
 *                            (source format "http-combined", "http-common";
 *                            the time read as the request's start);
 *   nginx-combined           nginx's built-in combined ($time_local is the
 *                            line's writing: the response's end);
 *   nginx-main               the "main" format of nginx's sample nginx.conf
 *                            (combined + "$http_x_forwarded_for");
 *   apache-common, apache-combined, apache-vhost_combined (Debian's default for
 *   other_vhosts_access.log), tomcat-common, tomcat-combined.
 * Custom definitions give the source formats "nginx-custom", "apache-custom",
 * "tomcat-custom" and "tomcat9-custom". A preset's lines may go on with
 * key=value fields (` rt=0.012 urt="0.010"`, http_extras.c); a custom
 * definition's are read as defined.
 *
 * The back end: of several time fields the most precise is read (microseconds,
 * then milliseconds, then seconds; the request's start before its end) and the
 * others skipped; a field logged twice is read the first time; each field gets
 * the scanner that finds its end (http_format_int.h).
 */
#include "http_format_int.h"

typedef struct preset {
    const char *name;   /* as given to --log-format */
    const char *source; /* the source row's format */
    const char *def;    /* with its syntax prefix */
} preset;

#define CLF_COMMON "%h %l %u %t \"%r\" %>s %b"
#define CLF_COMBINED CLF_COMMON " \"%{Referer}i\" \"%{User-Agent}i\""
#define NGX_COMBINED                                                                       \
    "$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent "     \
    "\"$http_referer\" \"$http_user_agent\""

static const preset presets[] = {
    {"combined", "http-combined", "apache:" CLF_COMBINED},
    {"common", "http-common", "apache:" CLF_COMMON},
    {"nginx-combined", "nginx-combined", "nginx:" NGX_COMBINED},
    {"nginx-main", "nginx-main", "nginx:" NGX_COMBINED " \"$http_x_forwarded_for\""},
    {"apache-common", "apache-common", "apache:" CLF_COMMON},
    {"apache-combined", "apache-combined", "apache:" CLF_COMBINED},
    {"apache-vhost_combined", "apache-vhost_combined",
     "apache:%v:%p %h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\""},
    {"tomcat-common", "tomcat-common", "tomcat:%h %l %u %t \"%r\" %s %b"},
    {"tomcat-combined", "tomcat-combined",
     "tomcat:%h %l %u %t \"%r\" %s %b \"%{Referer}i\" \"%{User-Agent}i\""},
    {NULL, NULL, NULL}};

const char *sat_http_preset_def(const char *name, const char **source)
{
    for (const preset *p = presets; p->name; p++)
        if (!strcmp(p->name, name)) {
            if (source)
                *source = p->source;
            return p->def;
        }
    return NULL;
}

const char *sat_http_preset_name(size_t i)
{
    return i < sizeof presets / sizeof presets[0] - 1 ? presets[i].name : NULL;
}

/* ---- the token list ------------------------------------------------------------------ */
int hf_lit(hf_build *b, const char *p, size_t n)
{
    sat_http_format *f = b->f;
    if (f->nlits + n > HF_LIT_MAX) {
        sat_diag_set(b->diag, SAT_E_LIMIT, "", "the format's literal text is over %d bytes",
                     HF_LIT_MAX);
        return -1;
    }
    size_t k = b->ntok;
    if (!b->lit_len[k])
        b->lit_off[k] = (uint32_t)f->nlits;
    memcpy(f->lits + f->nlits, p, n);
    f->nlits += n;
    b->lit_len[k] += (uint32_t)n;
    return 0;
}

int hf_field(hf_build *b, int field, int scan, int is_end, int rank, const char *name,
             size_t name_len, int at)
{
    if (b->ntok >= HF_MAX_ITEMS) {
        sat_diag_set(b->diag, SAT_E_LIMIT, "", "the format has over %d fields", HF_MAX_ITEMS);
        return -1;
    }
    hf_token *t = &b->tok[b->ntok++];
    memset(t, 0, sizeof *t);
    t->field = field;
    t->scan = scan;
    t->is_end = is_end;
    t->rank = rank;
    t->at = at;
    if (name_len >= sizeof t->name)
        name_len = sizeof t->name - 1;
    memcpy(t->name, name, name_len);
    t->name[name_len] = '\0';
    return 0;
}

/* ---- the back end --------------------------------------------------------------------- */
static int is_time(int f)
{
    return f >= SAT_HF_TIME_CLF && f <= SAT_HF_TIME_STRF;
}
static int is_frac(int f) { return f == SAT_HF_TIME_FRAC_MS || f == SAT_HF_TIME_FRAC_US; }

static int finish(hf_build *b)
{
    sat_http_format *f = b->f;
    /* 1. the line's time: the most precise, the start before the end */
    int best = -1, best_rank = -1;
    for (size_t i = 0; i < b->ntok; i++) {
        hf_token *t = &b->tok[i];
        if (!is_time(t->field))
            continue;
        int rank = t->rank;
        /* a fraction logged beside a time of whole seconds makes it finer */
        if (t->field == SAT_HF_TIME_CLF || t->field == SAT_HF_TIME_STRF ||
            t->field == SAT_HF_TIME_ISO)
            for (size_t k = 0; k < b->ntok; k++)
                if (b->tok[k].is_end == t->is_end && is_frac(b->tok[k].field)) {
                    int fr = b->tok[k].field == SAT_HF_TIME_FRAC_US ? 6 : 5;
                    rank = rank > fr ? rank : fr;
                }
        rank = rank * 2 + !t->is_end;
        if (rank > best_rank) {
            best_rank = rank;
            best = (int)i;
        }
    }
    if (best < 0) {
        sat_diag_set(b->diag, SAT_E_USAGE, "",
                     "the format logs no time (nginx $time_local, $msec or $time_iso8601; "
                     "Apache/Tomcat %%t or %%{...}t)");
        return -1;
    }
    hf_token *bt = &b->tok[best];
    f->facts.time_is_end = bt->is_end;
    int keep_frac = bt->field != SAT_HF_TIME_EPOCH_S && bt->field != SAT_HF_TIME_EPOCH_MS &&
                    bt->field != SAT_HF_TIME_EPOCH_US;
    for (size_t i = 0; i < b->ntok; i++) {
        hf_token *t = &b->tok[i];
        if ((is_time(t->field) && (int)i != best) ||
            (is_frac(t->field) && (!keep_frac || t->is_end != bt->is_end)))
            t->field = SAT_HF_IGNORE;
    }
    /* 2. a field logged twice is read once: the first */
    uint64_t seen = 0;
    for (size_t i = 0; i < b->ntok; i++) {
        hf_token *t = &b->tok[i];
        if (t->field == SAT_HF_IGNORE)
            continue;
        if (seen & SAT_HF_BIT(t->field))
            t->field = SAT_HF_IGNORE;
        seen |= SAT_HF_BIT(t->field);
    }
    /* the units of one response time: the finest wins, the others are skipped */
    static const int rt_order[] = {SAT_HF_RT_US, SAT_HF_RT_S, SAT_HF_RT_MS, SAT_HF_RT_WHOLE_S};
    int rt_kept = 0;
    for (size_t r = 0; r < 4; r++)
        for (size_t i = 0; i < b->ntok; i++)
            if (b->tok[i].field == rt_order[r]) {
                if (rt_kept)
                    b->tok[i].field = SAT_HF_IGNORE;
                rt_kept = 1;
            }
    /* 3. items, and how each field ends */
    f->lead_off = b->lit_off[0];
    f->lead_len = b->lit_len[0];
    f->n = b->ntok;
    f->facts.present = 0;
    for (size_t i = 0; i < b->ntok; i++) {
        hf_token *t = &b->tok[i];
        hf_item *it = &f->items[i];
        it->field = (uint8_t)t->field;
        it->scan = (uint8_t)t->scan;
        it->lit_off = b->lit_off[i + 1];
        it->lit_len = (uint16_t)b->lit_len[i + 1];
        snprintf(it->name, sizeof it->name, "%s", t->name);
        if (t->field != SAT_HF_IGNORE)
            f->facts.present |= SAT_HF_BIT(t->field);
        if (it->lit_len || i + 1 == b->ntok)
            continue;
        /* two fields with nothing between: the first must end by its own shape */
        const hf_token *nx = &b->tok[i + 1];
        if (t->scan == HF_SCAN_TEXT && nx->scan == HF_SCAN_QUERY) {
            it->scan = HF_SCAN_PATH;
            continue;
        }
        if (t->scan == HF_SCAN_TEXT || t->scan == HF_SCAN_QUERY || t->scan == HF_SCAN_PATH) {
            sat_diag_set(b->diag, SAT_E_USAGE, "",
                         "%s and %s (at offset %d) have nothing between them: where the "
                         "first ends cannot be told",
                         t->name, nx->name, nx->at);
            return -1;
        }
    }
    return 0;
}

/* ---- the definition as given ------------------------------------------------------------ */
/* A definition pasted with its configuration quotes, into out: one '...' or
 * "..." (backslash escapes inside), or several such parts on lines of their
 * own as nginx.conf writes a long log_format. Several quoted parts on one
 * line are not taken for that: `"$request" "$http_user_agent"` is a body with
 * quoted fields. 1 if it was such, 0 if not, -1 when it does not fit. */
static int unquote(const char *def, char *out, size_t cap)
{
    const char *p = def;
    size_t o = 0;
    int parts = 0, newline_between = 1;
    if (*p != '\'' && *p != '"')
        return 0;
    while (*p) {
        if (parts && !newline_between)
            return 0;
        parts++;
        char q = *p;
        if (q != '\'' && q != '"')
            return 0;
        p++;
        while (*p && *p != q) {
            char c = *p++;
            if (c == '\\' && *p) {
                char e = *p++;
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            }
            if (o + 1 >= cap)
                return -1;
            out[o++] = c;
        }
        if (*p != q)
            return 0; /* unbalanced: not quoted parts after all */
        p++;
        newline_between = 0;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            newline_between |= *p++ == '\n';
    }
    out[o] = '\0';
    return 1;
}

/* XML's five entities and numeric character references below 128, in place. */
static void xml_entities(char *s)
{
    static const struct {
        const char *e;
        char c;
    } ents[] = {{"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''}};
    char *o = s;
    for (const char *p = s; *p;) {
        if (*p == '&') {
            size_t k;
            for (k = 0; k < sizeof ents / sizeof ents[0]; k++) {
                size_t n = strlen(ents[k].e);
                if (!strncmp(p, ents[k].e, n)) {
                    *o++ = ents[k].c;
                    p += n;
                    break;
                }
            }
            if (k < sizeof ents / sizeof ents[0])
                continue;
            if (p[1] == '#' && hx_digit(p[2])) {
                int v = 0, d = 2;
                while (hx_digit(p[d]) && v < 1000)
                    v = v * 10 + (p[d++] - '0');
                if (p[d] == ';' && v > 0 && v < 128) {
                    *o++ = (char)v;
                    p += d + 1;
                    continue;
                }
            }
        }
        *o++ = *p++;
    }
    *o = '\0';
}

/* Whether def holds an nginx variable: '$' and a name character. */
static int has_dollar_var(const char *def)
{
    for (const char *p = def; (p = strchr(p, '$')) != NULL; p++) {
        char c = p[1];
        if (c == '{' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            return 1;
    }
    return 0;
}
static int has_pct_directive(const char *def)
{
    for (const char *p = def; (p = strchr(p, '%')) != NULL; p++) {
        char c = p[1];
        if (c == '%') {
            p++;
            continue;
        }
        if (c && c != ' ')
            return 1;
    }
    return 0;
}

#define HF_DEF_MAX 8192

sat_http_format *sat_http_format_compile(const char *def, sat_diag *diag)
{
    const char *source = NULL;
    const char *pdef = def ? sat_http_preset_def(def, &source) : NULL;
    if (!def || !*def) {
        sat_diag_set(diag, SAT_E_USAGE, "", "empty log format");
        return NULL;
    }
    if (strlen(def) >= HF_DEF_MAX) {
        sat_diag_set(diag, SAT_E_USAGE, "", "log format longer than %d bytes", HF_DEF_MAX - 1);
        return NULL;
    }
    const char *d = pdef ? pdef : def;
    int syntax = 0, tomcat9 = 0;
    static const struct {
        const char *prefix;
        int syntax, t9;
    } prefixes[] = {{"nginx:", SAT_HTTP_SYNTAX_NGINX, 0},
                    {"apache:", SAT_HTTP_SYNTAX_APACHE, 0},
                    {"tomcat:", SAT_HTTP_SYNTAX_TOMCAT, 0},
                    {"tomcat9:", SAT_HTTP_SYNTAX_TOMCAT, 1}};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (!strncmp(d, prefixes[i].prefix, n)) {
            syntax = prefixes[i].syntax;
            tomcat9 = prefixes[i].t9;
            d += n;
            break;
        }
    }
    /* Tomcat's pattern words, after a prefix too ("tomcat9:combined") */
    char *buf = malloc(HF_DEF_MAX);
    sat_http_format *f = calloc(1, sizeof *f);
    hf_build *b = calloc(1, sizeof *b);
    if (!buf || !f || !b) {
        sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
        goto fail;
    }
    if (syntax == SAT_HTTP_SYNTAX_TOMCAT && (!strcmp(d, "common") || !strcmp(d, "combined"))) {
        const char *tdef = sat_http_preset_def(!strcmp(d, "common") ? "tomcat-common"
                                                                    : "tomcat-combined",
                                               &source);
        d = tdef + strlen("tomcat:");
    }
    int uq = unquote(d, buf, HF_DEF_MAX);
    if (uq < 0) {
        sat_diag_set(diag, SAT_E_USAGE, "", "log format too long");
        goto fail;
    }
    if (!uq)
        snprintf(buf, HF_DEF_MAX, "%s", d);
    xml_entities(buf);
    if (!syntax) {
        if (has_dollar_var(buf) && !has_pct_directive(buf))
            syntax = SAT_HTTP_SYNTAX_NGINX;
        else if (has_pct_directive(buf)) {
            int flavour = sat_hf_pct_flavour(buf);
            syntax = flavour == 1 ? SAT_HTTP_SYNTAX_TOMCAT : SAT_HTTP_SYNTAX_APACHE;
            f->facts.two_readings = flavour == 0;
        }
        else if (has_dollar_var(buf))
            syntax = SAT_HTTP_SYNTAX_NGINX;
        else {
            sat_diag_set(diag, SAT_E_USAGE, "",
                         "'%.60s' is no preset (combined, common, nginx-combined, ...) and has "
                         "neither nginx $variables nor Apache/Tomcat %%-directives",
                         def);
            goto fail;
        }
    }
    b->f = f;
    b->diag = diag;
    b->syntax = syntax;
    b->tomcat9 = tomcat9;
    f->facts.syntax = syntax;
    int rc = syntax == SAT_HTTP_SYNTAX_NGINX ? sat_hf_nginx(b, buf) : sat_hf_pct(b, buf, syntax);
    if (rc < 0 || finish(b) < 0)
        goto fail;
    if (!source)
        source = syntax == SAT_HTTP_SYNTAX_NGINX    ? "nginx-custom"
                 : syntax == SAT_HTTP_SYNTAX_APACHE ? "apache-custom"
                 : tomcat9                          ? "tomcat9-custom"
                                                    : "tomcat-custom";
    snprintf(f->facts.name, sizeof f->facts.name, "%s", source);
    f->facts.extras = pdef != NULL; /* the presets' lines are often extended */
    free(buf);
    free(b);
    return f;
fail:
    free(buf);
    free(b);
    free(f);
    return NULL;
}

void sat_http_format_free(sat_http_format *f) { free(f); }

const sat_http_facts *sat_http_format_facts(const sat_http_format *f) { return &f->facts; }
