/*
 * fmt_http.c - the log format "http": web and application servers' access
 * logs (nginx, Apache httpd, Tomcat), one http_req row per line.
 *
 * Which lines: the pattern given with --pattern (a log_format "pcre2:REGEX",
 * http_pattern.c), or the format given with --log-format (sat_parse_ctx.log_format: a
 * preset name or the server's own definition, http_format.c), or else the
 * standard formats, tried in this order on each line until one matches:
 * combined, nginx-main, apache-vhost_combined, common. The first that matched
 * names the source.
 *
 * A standard format's line may go on with key=value fields (` rt=0.012
 * urt="0.010" cs=HIT`: http_extras.c); a line that one of them reads exactly
 * is still read by it first.
 *
 * Source rows (sat_source.format), a stable naming:
 *   http-combined, http-common      the NCSA formats, server unknown (the
 *                                   detected ones and --log-format combined/common)
 *   nginx-combined, nginx-main, apache-common, apache-combined,
 *   apache-vhost_combined, tomcat-common, tomcat-combined   the named presets
 *   nginx-custom, apache-custom, tomcat-custom, tomcat9-custom   a definition
 *   pattern                         a --pattern
 *   http                            a file no line of which matched
 *   any of the above + "+KEYS"      with the keys of the extra fields
 *                                   ("http-combined+rt,urt,reused,cs")
 * and fields (fields.h) = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE | what
 * the format logs: response time, TLS session, request number on the
 * connection, upstream time.
 *
 * The sniff claims a file when at least a quarter of the whole lines among its
 * first 16 match one of the standard formats with a readable time and status
 * (surely at half): a 389 or OpenLDAP log line never does (it does not start
 * with a host and "- - [" or a quoted request).
 */
#include "http_int.h"
#include "http_pattern.h"

static const char *const auto_presets[] = {"combined", "nginx-main", "apache-vhost_combined",
                                           "common"};
#define NAUTO (sizeof auto_presets / sizeof auto_presets[0])

typedef struct http_state {
    sat_parse_ctx *ctx;
    /* what the user gave (--log-format: a compiled format; any other matcher of
     * http_int.h, a PCRE2 pattern, alike), in one or two readings (a
     * %-definition both Apache and Tomcat could have written: Apache's, then
     * Tomcat's); ngiven 0: none. `cur` is the reading that read the last line */
    sat_http_matcher given[2];
    size_t ngiven, cur;
    sat_http_format *autos[NAUTO]; /* the standard formats, without --log-format */
    size_t last;                  /* the auto format that matched the last line */
    int last_tail;                /* ... with key=value fields after it */
    char why[112];                /* the reason of the format that got furthest */
    char name[128];               /* the source's format with its extra fields' keys */
    sat_http_caps caps;
    sat_http_scratch scratch;
} http_state;

static void free_given(http_state *s)
{
    for (size_t i = 0; i < s->ngiven; i++)
        s->given[i].free(s->given[i].self);
    s->ngiven = 0;
}

static void http_destroy(void *state)
{
    http_state *s = state;
    if (!s)
        return;
    free_given(s);
    for (size_t i = 0; i < NAUTO; i++)
        sat_http_format_free(s->autos[i]);
    free(s);
}

static int compile_autos(sat_http_format **out)
{
    for (size_t i = 0; i < NAUTO; i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        out[i] = sat_http_format_compile(auto_presets[i], &d);
        if (!out[i])
            return -1;
    }
    return 0;
}

/* The matchers of the user's definition into s->given: a "pcre2:" one is a
 * --pattern (http_pattern.c), any other a format (http_format.c), and its
 * Tomcat reading after it when it has two. SAT_OK, or the first one's error. */
static int user_matchers(const char *def, http_state *s, sat_diag *d)
{
    size_t pl = strlen(SAT_HTTP_PATTERN_PREFIX);
    int rc = !strncmp(def, SAT_HTTP_PATTERN_PREFIX, pl)
                 ? sat_http_pattern_matcher_own(def + pl, strlen(def + pl), &s->given[0], d)
                 : sat_http_format_matcher(def, &s->given[0], d);
    if (rc < 0)
        return rc;
    s->ngiven = 1;
    if (s->given[0].facts.two_readings) {
        size_t n = strlen(def) + sizeof "tomcat:";
        char *tdef = malloc(n);
        sat_diag d2;
        memset(&d2, 0, sizeof d2);
        if (!tdef)
            return SAT_E_NOMEM;
        snprintf(tdef, n, "tomcat:%s", def);
        if (sat_http_format_matcher(tdef, &s->given[1], &d2) == SAT_OK)
            s->ngiven = 2; /* one Tomcat does not read is not a reading */
        free(tdef);
    }
    return SAT_OK;
}

static void *http_create(sat_parse_ctx *ctx)
{
    http_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = ctx;
    if (ctx->log_format) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        if (user_matchers(ctx->log_format, s, &d) < 0) {
            /* the caller checked it compiles: out of memory */
            http_destroy(s);
            return NULL;
        }
    } else if (compile_autos(s->autos) < 0) {
        http_destroy(s);
        return NULL;
    }
    return s;
}

/* The facts of the format the line matches: the given one (the reading that
 * read the line before, else the other), or the auto
 * format that matched the line before (as it did: exactly, or with key=value
 * fields after it), else the first that matches it exactly, else the first
 * that reads it with such fields after it (a combined line is no common line
 * with extras). NULL with *why if none: the reason of the format that read
 * furthest into the line. */
static const sat_http_facts *match(http_state *s, const char *line, size_t len,
                                   const char **why)
{
    if (s->ngiven) {
        sat_http_matcher *m = &s->given[s->cur];
        if (m->match(m->self, line, len, &s->caps, why))
            return &m->facts;
        snprintf(s->why, sizeof s->why, "%s", *why);
        for (size_t i = 0; i < s->ngiven; i++)
            if (i != s->cur && s->given[i].match(s->given[i].self, line, len, &s->caps, why)) {
                s->cur = i; /* the other reading reads these lines */
                return &s->given[i].facts;
            }
        *why = s->why;
        return NULL;
    }
    if (sat_http_format_match(s->autos[s->last], line, len, &s->caps, why) &&
        sat_str_present(s->caps.tail) == s->last_tail)
        return sat_http_format_facts(s->autos[s->last]);
    size_t with_tail = NAUTO, far = 0;
    int failed = 0;
    for (size_t i = 0; i < NAUTO; i++) {
        if (sat_http_format_match(s->autos[i], line, len, &s->caps, why)) {
            if (!sat_str_present(s->caps.tail)) {
                s->last = i;
                s->last_tail = 0;
                return sat_http_format_facts(s->autos[i]);
            }
            if (with_tail == NAUTO)
                with_tail = i;
        } else if (!failed || s->caps.fail_at > far) {
            failed = 1;
            far = s->caps.fail_at;
            snprintf(s->why, sizeof s->why, "%s", s->caps.why);
        }
    }
    if (with_tail < NAUTO &&
        sat_http_format_match(s->autos[with_tail], line, len, &s->caps, why)) {
        s->last = with_tail;
        s->last_tail = 1;
        return sat_http_format_facts(s->autos[with_tail]);
    }
    *why = s->why;
    return NULL;
}

/* The first row's source: its format's name, with the keys of the extra
 * fields the line held ("http-combined+rt,urt,cs"), and what it can carry. */
static void name_source(http_state *s, const sat_http_facts *facts, sat_source *src)
{
    sat_http_facts with = *facts;
    with.present |= s->caps.extra_present;
    src->fields = sat_http_source_fields(&with);
    char keys[96];
    if (sat_str_present(s->caps.tail) &&
        sat_http_extras_names(s->caps.tail, keys, sizeof keys) > 0) {
        snprintf(s->name, sizeof s->name, "%s+%s", facts->name, keys);
        src->format = sat_str_cstr(s->name);
    } else {
        src->format = sat_str_cstr(facts->name);
    }
}

static int http_line(void *state, const char *line, size_t len, uint64_t line_no)
{
    http_state *s = state;
    sat_parse_ctx *ctx = s->ctx;
    sat_source *src = ctx->source;
    if (src)
        src->lines++;
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (!len)
        return SAT_OK;
    int nrc;
    if (sat_parse_nul_rejected(ctx, line_no, line, len, &nrc))
        return nrc;
    const char *why = "does not match the log format";
    const sat_http_facts *facts = match(s, line, len, &why);
    if (!facts)
        return sat_parse_reject(ctx, line_no, why, line, len);
    sat_http_req row;
    if (sat_http_row_build(&s->caps, facts, &s->scratch, &row, &why) < 0)
        return sat_parse_reject(ctx, line_no, why, line, len);
    if (src) {
        row.source = src->id;
        row.server = src->server;
        /* the first format that matched names the source */
        if (!src->fields)
            name_source(s, facts, src);
        if (src->first_ts == 0 || row.ts < src->first_ts)
            src->first_ts = row.ts;
        if (row.ts > src->last_ts)
            src->last_ts = row.ts;
        src->utc_offset_s = row.utc_offset_s;
    }
    const sat_event_sink *out = ctx->rows ? ctx->rows : ctx->sink;
    return sat_sink_emit(out, SAT_TABLE_HTTP_REQ, &row);
}

static int http_finish(void *state)
{
    (void)state;
    return SAT_OK;
}

/* The whole lines of buf (a last one without '\n' only when it is the only
 * one), at most 16: how many there were and how many the format `def` (NULL:
 * the standard ones) reads, and the time of the first read. */
static void sample(const char *def, const char *buf, size_t len, int *lines, int *read,
                   sat_ts_ns *first)
{
    sat_http_format *autos[NAUTO] = {0};
    sat_diag d;
    memset(&d, 0, sizeof d);
    *lines = *read = 0;
    http_state s;
    memset(&s, 0, sizeof s);
    int ok = def ? user_matchers(def, &s, &d) == SAT_OK
                 : compile_autos(autos) == 0;
    if (ok) {
        memcpy(s.autos, autos, sizeof autos);
        const char *p = buf, *end = buf + (len > 65536 ? 65536 : len);
        while (p < end && *lines < 16) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl && *lines)
                break;
            const char *e = nl ? nl : end;
            size_t n = (size_t)(e - p);
            while (n && p[n - 1] == '\r')
                n--;
            if (n) {
                const char *why;
                sat_http_req row;
                const sat_http_facts *f = match(&s, p, n, &why);
                (*lines)++;
                if (f && sat_http_row_build(&s.caps, f, &s.scratch, &row, &why) == SAT_OK) {
                    if (!*read && first)
                        *first = row.ts;
                    (*read)++;
                }
            }
            if (!nl)
                break;
            p = nl + 1;
        }
    }
    for (size_t i = 0; i < NAUTO; i++)
        sat_http_format_free(autos[i]);
    free_given(&s);
}

static int http_sniff(const char *buf, size_t len)
{
    int lines, read;
    sample(NULL, buf, len, &lines, &read, NULL);
    if (!read || read * 4 < lines)
        return 0; /* a stray request line in another kind of text is not an access log */
    return read * 2 >= lines ? 85 : 40;
}

static int http_first_ts(const char *buf, size_t len, sat_ts_ns *ts)
{
    int lines, read;
    sample(NULL, buf, len, &lines, &read, ts);
    return read ? SAT_OK : SAT_E_FORMAT;
}

int sat_http_log_first_ts(const char *def, const char *buf, size_t len, sat_ts_ns *ts)
{
    int lines, read;
    sample(def, buf, len, &lines, &read, ts);
    return read ? SAT_OK : SAT_E_FORMAT;
}

int sat_http_log_format_check(const char *def, sat_diag *diag)
{
    http_state s;
    memset(&s, 0, sizeof s);
    int rc = user_matchers(def, &s, diag);
    free_given(&s);
    if (rc < 0)
        return diag && diag->code ? diag->code : SAT_E_USAGE;
    return SAT_OK;
}

const sat_log_format sat_fmt_http = {
    "http",
    "HTTP access logs: nginx, Apache httpd, Tomcat (standard formats detected; "
    "--log-format for the server's own)",
    http_sniff,
    http_first_ts,
    http_create,
    http_line,
    http_finish,
    http_destroy,
    1,
    NULL,
};
