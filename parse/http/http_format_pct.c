/*
 * http_format_pct.c - the %-directive syntaxes: Apache httpd's LogFormat
 * (mod_log_config, "Custom Log Formats") and Tomcat's AccessLogValve pattern
 * (AbstractAccessLogValve). A directive is
 *   %[!][status,...][<|>][{arg}]letter        (%% is a '%'; %{arg}^ti / ^to)
 * the status conditions and </> modifiers are skipped (a condition not met
 * logs "-", which every field reads as unknown).
 *
 * Where the two differ in meaning, the compiler was told which one it reads:
 *   %D     Apache: microseconds; Tomcat 10: microseconds; Tomcat 9-: ms
 *   %T     Apache, Tomcat 10: whole seconds; Tomcat 9-: seconds, ms resolution
 *   %{x}T  Apache: x = s, ms, us; Tomcat 10.1: s, ms, us, fracsec (seconds
 *          with a fraction)
 *   %{x}t  Apache: strftime(3); Tomcat: SimpleDateFormat (converted here);
 *          both: begin: / end: prefixes and sec, msec, usec (Apache),
 *          msec_frac, usec_frac (Apache)
 *   %I     Apache: bytes received; Tomcat: the thread's name (both skipped)
 *   %b     both: bytes of the body, "-" for none (CLF)
 * %t with no argument is the request's start in both.
 */
#include "http_format_int.h"

#include <strings.h>

typedef struct directive {
    char letter;      /* 0 for a literal run */
    char two;         /* Apache's %{..}^ti: 't' with letter '^' */
    int mods;         /* had < or > */
    const char *arg;  /* NULL: none */
    size_t arg_len;
    int at;           /* offset of the '%' */
    size_t len;       /* bytes of the whole directive */
} directive;

/* The directive at p ('%' there); 0, or -1 if it is cut. */
static int lex(const char *p, directive *d)
{
    const char *s = p;
    memset(d, 0, sizeof *d);
    p++;
    while (*p == '!' || *p == ',' || hx_digit(*p))
        p++;
    while (*p == '<' || *p == '>') {
        d->mods = 1;
        p++;
    }
    if (*p == '{') {
        const char *e = strchr(p, '}');
        if (!e)
            return -1;
        d->arg = p + 1;
        d->arg_len = (size_t)(e - p - 1);
        p = e + 1;
    }
    if (!*p)
        return -1;
    d->letter = *p++;
    if (d->letter == '^' && *p == 't' && (p[1] == 'i' || p[1] == 'o')) {
        d->two = p[1];
        p += 2;
    }
    d->len = (size_t)(p - s);
    return 0;
}

static int arg_is(const directive *d, const char *s)
{
    return d->arg && strlen(s) == d->arg_len && strncasecmp(d->arg, s, d->arg_len) == 0;
}

/* A %{...}t argument that is one of the named times (begin:/end: stripped). */
static int named_time(const char *a, size_t n)
{
    static const char *const names[] = {"sec", "msec", "usec", "msec_frac", "usec_frac"};
    for (size_t i = 0; i < 5; i++)
        if (strlen(names[i]) == n && !memcmp(a, names[i], n))
            return 1;
    return 0;
}

int sat_hf_pct_flavour(const char *def)
{
    int out = 0;
    for (const char *p = def; (p = strchr(p, '%')) != NULL;) {
        if (p[1] == '%') {
            p += 2;
            continue;
        }
        directive d;
        if (lex(p, &d) < 0)
            break;
        p += d.len;
        if (d.mods || d.two || strchr("kfLPROVe", d.letter) ||
            (d.arg && strchr("xenC", d.letter)) || (d.arg && d.letter == 'a' && arg_is(&d, "c")))
            out |= 2;
        if (d.letter == 'F' || (d.arg && strchr("rsc", d.letter)))
            out |= 1;
        if (d.arg && d.letter == 't') {
            const char *a = d.arg;
            size_t n = d.arg_len;
            if (n >= 6 && !memcmp(a, "begin:", 6))
                a += 6, n -= 6;
            else if (n >= 4 && !memcmp(a, "end:", 4))
                a += 4, n -= 4;
            if (n && !named_time(a, n))
                out |= memchr(a, '%', n) ? 2 : 1;
        }
    }
    return out;
}

/* ---- SimpleDateFormat -> the strftime subset of http_time.c ------------------------- */
static int sdf_to_strf(const char *a, size_t n, char *out, size_t cap)
{
    size_t o = 0;
#define PUT(s)                                                                             \
    do {                                                                                   \
        size_t l_ = strlen(s);                                                             \
        if (o + l_ >= cap)                                                                 \
            return -1;                                                                     \
        memcpy(out + o, s, l_);                                                            \
        o += l_;                                                                           \
    } while (0)
    for (size_t i = 0; i < n;) {
        char c = a[i];
        size_t k = i;
        if (c == '\'') { /* quoted text; '' is a quote */
            i++;
            if (i < n && a[i] == '\'') {
                PUT("'");
                i++;
                continue;
            }
            while (i < n && a[i] != '\'') {
                char lit[3] = {a[i], 0, 0};
                if (a[i] == '%')
                    lit[1] = '%';
                PUT(lit);
                i++;
            }
            i++;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            char lit[3] = {c, 0, 0};
            if (c == '%')
                lit[1] = '%';
            PUT(lit);
            i++;
            continue;
        }
        while (k < n && a[k] == c)
            k++;
        size_t run = k - i;
        i = k;
        switch (c) {
        case 'y': PUT(run == 2 ? "%y" : "%Y"); break;
        case 'M': PUT(run >= 4 ? "%B" : run == 3 ? "%b" : "%m"); break;
        case 'd': PUT("%d"); break;
        case 'H': PUT("%H"); break;
        case 'h': PUT("%I"); break;
        case 'a': PUT("%p"); break;
        case 'm': PUT("%M"); break;
        case 's': PUT("%S"); break;
        case 'S':
            if (run != 3)
                return -1;
            PUT("%L");
            break;
        case 'E': PUT(run >= 4 ? "%A" : "%a"); break;
        case 'Z': case 'X': case 'x': PUT("%z"); break;
        case 'z': PUT("%Z"); break;
        case 'D': PUT("%j"); break;
        default: return -1;
        }
    }
    out[o] = '\0';
    return 0;
#undef PUT
}

/* ---- one directive -> a field -------------------------------------------------------- */
static int header_field(const directive *d)
{
    if (arg_is(d, "Referer"))
        return SAT_HF_REFERER;
    if (arg_is(d, "User-Agent"))
        return SAT_HF_USER_AGENT;
    if (arg_is(d, "Host"))
        return SAT_HF_VHOST;
    return SAT_HF_IGNORE;
}

/* %{...}t: field, scan, is_end, rank; the strftime format into facts. -1 bad. */
static int time_field(hf_build *b, const directive *d, int *field, int *scan, int *is_end,
                      int *rank)
{
    *is_end = 0;
    *field = SAT_HF_TIME_CLF;
    *scan = HF_SCAN_CLF;
    *rank = 3;
    if (!d->arg)
        return 0;
    const char *a = d->arg;
    size_t n = d->arg_len;
    if (n >= 6 && !memcmp(a, "begin", 5) && a[5] == ':')
        a += 6, n -= 6;
    else if (n == 5 && !memcmp(a, "begin", 5))
        n = 0;
    else if (n >= 4 && !memcmp(a, "end:", 4))
        a += 4, n -= 4, *is_end = 1;
    else if (n == 3 && !memcmp(a, "end", 3))
        n = 0, *is_end = 1;
    if (n == 0)
        return 0;
    static const struct {
        const char *name;
        int field, rank;
    } named[] = {{"sec", SAT_HF_TIME_EPOCH_S, 3},      {"msec", SAT_HF_TIME_EPOCH_MS, 5},
                 {"usec", SAT_HF_TIME_EPOCH_US, 6},    {"msec_frac", SAT_HF_TIME_FRAC_MS, 0},
                 {"usec_frac", SAT_HF_TIME_FRAC_US, 0}};
    for (size_t i = 0; i < 5; i++)
        if (strlen(named[i].name) == n && !memcmp(a, named[i].name, n)) {
            *field = named[i].field;
            *rank = named[i].rank;
            *scan = HF_SCAN_NUMBER;
            return 0;
        }
    char strf[SAT_HTTP_STRF_MAX];
    if (b->syntax == SAT_HTTP_SYNTAX_TOMCAT) {
        if (sdf_to_strf(a, n, strf, sizeof strf) < 0)
            return -1;
    } else {
        if (n >= sizeof strf)
            return -1;
        memcpy(strf, a, n);
        strf[n] = '\0';
        if (!sat_http_strf_supported(strf))
            return -1;
    }
    if (b->f->facts.strf[0] && strcmp(b->f->facts.strf, strf)) {
        *field = SAT_HF_IGNORE; /* a second strftime time: skipped, read as text */
        *scan = HF_SCAN_TEXT;
        return 0;
    }
    memcpy(b->f->facts.strf, strf, sizeof strf);
    *field = SAT_HF_TIME_STRF;
    *scan = HF_SCAN_TEXT;
    *rank = strstr(strf, "%L") ? 5 : 3;
    return 0;
}

static int rt_field(hf_build *b, const directive *d, int *field)
{
    int tomcat = b->syntax == SAT_HTTP_SYNTAX_TOMCAT;
    if (!d->arg || arg_is(d, "s"))
        *field = tomcat && b->tomcat9 ? SAT_HF_RT_S : SAT_HF_RT_WHOLE_S;
    else if (arg_is(d, "ms"))
        *field = SAT_HF_RT_MS;
    else if (arg_is(d, "us"))
        *field = SAT_HF_RT_US;
    else if (tomcat && arg_is(d, "fracsec"))
        *field = SAT_HF_RT_S;
    else
        return -1;
    return 0;
}

int sat_hf_pct(hf_build *b, const char *def, int syntax)
{
    int tomcat = syntax == SAT_HTTP_SYNTAX_TOMCAT;
    const char *p = def, *lit = def;
    while (*p) {
        if (*p != '%' && !(*p == '\\' && !tomcat && (p[1] == '"' || p[1] == '\\'))) {
            p++;
            continue;
        }
        if (hf_lit(b, lit, (size_t)(p - lit)) < 0)
            return -1;
        if (*p == '\\') { /* Apache's \" and \\ in a definition taken as written */
            if (hf_lit(b, p + 1, 1) < 0)
                return -1;
            p += 2;
            lit = p;
            continue;
        }
        if (p[1] == '%') {
            if (hf_lit(b, "%", 1) < 0)
                return -1;
            p += 2;
            lit = p;
            continue;
        }
        directive d;
        int at = (int)(p - def);
        if (lex(p, &d) < 0) {
            sat_diag_set(b->diag, SAT_E_USAGE, "", "directive cut short at offset %d: '%s'", at,
                         p);
            return -1;
        }
        int field = SAT_HF_IGNORE, scan = HF_SCAN_TEXT, is_end = 0, rank = 0, bad = 0;
        switch (d.letter) {
        case 'a':
            if (tomcat && arg_is(&d, "local"))
                break;
            field = SAT_HF_CLIENT;
            break;
        case 'h': field = SAT_HF_CLIENT; break;
        case 'A': case 'l': case 'f': case 'L': case 'R': case 'X': case 'S': case 'e':
        case 'n': case 'o': case 'C': case 'c': break;
        case 'P': case 'I': scan = tomcat && d.letter == 'I' ? HF_SCAN_TEXT : HF_SCAN_NUMBER;
            if (d.letter == 'P' && d.arg)
                scan = HF_SCAN_TEXT; /* %{tid}P, %{hextid}P */
            break;
        case 'b': field = SAT_HF_BYTES_CLF; scan = HF_SCAN_NUMBER; break;
        case 'B': case 'O': field = SAT_HF_BYTES; scan = HF_SCAN_NUMBER; break;
        case 'D': field = tomcat && b->tomcat9 ? SAT_HF_RT_MS : SAT_HF_RT_US;
            scan = HF_SCAN_NUMBER; break;
        case 'F': scan = HF_SCAN_NUMBER; break;
        case 'T': bad = rt_field(b, &d, &field); scan = HF_SCAN_NUMBER; break;
        case 'H': field = SAT_HF_PROTOCOL; break;
        case 'i': field = header_field(&d); break;
        case 'k': field = SAT_HF_KEEPALIVE; scan = HF_SCAN_NUMBER; break;
        case 'm': field = SAT_HF_METHOD; break;
        case 'p':
            if (arg_is(&d, "remote"))
                field = SAT_HF_CLIENT_PORT;
            scan = HF_SCAN_NUMBER;
            break;
        case 'q': field = SAT_HF_QUERY; scan = HF_SCAN_QUERY; break;
        case 'r':
            if (d.arg) /* Tomcat's %{attribute}r */
                break;
            field = SAT_HF_REQUEST;
            break;
        case 's':
            if (d.arg) /* Tomcat's %{attribute}s (session) */
                break;
            field = SAT_HF_STATUS;
            scan = HF_SCAN_NUMBER;
            break;
        case 't': bad = time_field(b, &d, &field, &scan, &is_end, &rank); break;
        case 'u': field = SAT_HF_USER; break;
        case 'U': field = SAT_HF_PATH; break;
        case 'v': case 'V': field = SAT_HF_VHOST; break;
        case 'x':
            if (arg_is(&d, "SSL_PROTOCOL"))
                field = SAT_HF_TLS_PROTOCOL;
            else if (arg_is(&d, "SSL_SESSION_RESUMED"))
                field = SAT_HF_TLS_RESUMED;
            break;
        case '^': if (!d.two) bad = 1; break;
        default: bad = 1;
        }
        if (bad) {
            sat_diag_set(b->diag, SAT_E_USAGE, "",
                         "%s directive '%.*s' at offset %d is not one satscope reads",
                         tomcat ? "Tomcat" : "Apache", (int)d.len, p, at);
            return -1;
        }
        if (hf_field(b, field, scan, is_end, rank, p, d.len, at) < 0)
            return -1;
        p += d.len;
        lit = p;
    }
    return hf_lit(b, lit, (size_t)(p - lit));
}
