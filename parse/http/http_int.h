/*
 * http_int.h - (internal to parse/) the contract shared by everything that
 * reads an HTTP access-log line into an http_req row (event.h):
 *
 *   http_format.c    the format compiler: an nginx log_format body, an Apache
 *                    LogFormat or a Tomcat AccessLogValve pattern (told apart
 *                    by syntax), or a preset name, into a compiled format;
 *   http_match.c     the line matcher of a compiled format (no regex: the
 *                    literals and each field's own scanner, bounded by the line);
 *   http_row.c       the row builder: the spans a matcher found -> sat_http_req
 *                    (times, units, the request line, upstream lists, flags);
 *   http_path.c      the path template ("/item/1234?x=1" -> "/item/{n}");
 *   http_time.c      the timestamps (CLF, ISO 8601, epoch, strftime subsets);
 *   http_extras.c    the key=value fields appended to a preset (` rt=0.012 cs=HIT`);
 *   fmt_http.c       the sat_log_format entry "http" (sniff, create, line);
 *   http_pattern.c   a user's PCRE2 pattern with named groups (another matcher
 *                    of the same captures).
 *
 * A matcher (compiled format or PCRE2 pattern) fills one sat_http_caps per
 * line: one span per field it found, SAT_STR_NONE for the others; the row
 * builder turns them into a row whatever the syntax was, with the format's
 * facts (sat_http_facts: which time the line holds, begin or end).
 *
 * Ownership: spans and the row's strings point into the line (valid for the
 * line's call) or into the caller's sat_http_scratch (valid until its next use).
 */
#ifndef SAT_PARSE_HTTP_INT_H
#define SAT_PARSE_HTTP_INT_H

#include "satscope/parse.h"

/* ---- what one part of a line holds ---------------------------------------------
 * Numbers and "-": a "-" (or an empty span) is "not known" for every field but
 * SAT_HF_BYTES_CLF, where CLF's "-" means 0 bytes. */
enum sat_http_field {
    SAT_HF_IGNORE = 0,     /* logged, not used (%l, %I, an unknown variable) */
    SAT_HF_CLIENT,         /* $remote_addr, %h, %a, %{c}a: an address (a port after
                              the last ':' of "a.b.c.d:port" / "[v6]:port" is split off) */
    SAT_HF_CLIENT_PORT,    /* $remote_port, %{remote}p */
    SAT_HF_USER,           /* $remote_user, %u ("-" none) */
    /* the line's time: which one (begin or end) is in sat_http_facts.time_is_end */
    SAT_HF_TIME_CLF,       /* "01/Dec/2026:16:45:44 +0000", with or without [ ] */
    SAT_HF_TIME_ISO,       /* $time_iso8601: "2026-12-01T16:45:44+00:00" (fraction ok) */
    SAT_HF_TIME_EPOCH_S,   /* $msec "1796143544.592", %{sec}t: seconds, fraction ok */
    SAT_HF_TIME_EPOCH_MS,  /* %{msec}t, Tomcat %{begin:msec}t: whole milliseconds */
    SAT_HF_TIME_EPOCH_US,  /* %{usec}t: whole microseconds */
    SAT_HF_TIME_STRF,      /* %{format}t: strftime(3) fields of facts.strf */
    SAT_HF_TIME_FRAC_MS,   /* %{msec_frac}t: 3 digits added to the time */
    SAT_HF_TIME_FRAC_US,   /* %{usec_frac}t: 6 digits added to the time */
    /* the request */
    SAT_HF_REQUEST,        /* $request, %r: "GET /a?b HTTP/1.1" (split by the builder) */
    SAT_HF_METHOD,         /* $request_method, %m */
    SAT_HF_TARGET,         /* $request_uri: path and query */
    SAT_HF_PATH,           /* $uri, %U: path without query */
    SAT_HF_QUERY,          /* $args / $query_string (no '?'), %q ("?a=b" or "") */
    SAT_HF_PROTOCOL,       /* $server_protocol, %H */
    SAT_HF_STATUS,         /* $status, %s, %>s */
    SAT_HF_BYTES,          /* $body_bytes_sent, $bytes_sent, %B, %O: "-" not known */
    SAT_HF_BYTES_CLF,      /* %b: CLF bytes, "-" = 0 */
    /* response time, each unit its own field so that the builder never guesses */
    SAT_HF_RT_S,           /* $request_time "0.123", Tomcat 9 %T: seconds, fraction ok */
    SAT_HF_RT_MS,          /* %{ms}T, Tomcat 9 %D: whole milliseconds */
    SAT_HF_RT_US,          /* %D, %{us}T, Tomcat 10 %D: whole microseconds */
    SAT_HF_RT_WHOLE_S,     /* %T (Apache, Tomcat 10): whole seconds (SAT_HTTPF_RT_COARSE) */
    SAT_HF_UPSTREAM_S,     /* $upstream_response_time: "0.010, 0.020 : 0.005" summed,
                              "-" entries skipped, all "-" = not known */
    /* TLS and the connection */
    SAT_HF_TLS_PROTOCOL,   /* $ssl_protocol, %{SSL_PROTOCOL}x: "TLSv1.3", "-" none */
    SAT_HF_TLS_REUSED,     /* $ssl_session_reused: "r" resumed, "." new, "-"/"" none */
    SAT_HF_TLS_RESUMED,    /* %{SSL_SESSION_RESUMED}x: "Resumed" / "Initial", "-" none */
    SAT_HF_CONN,           /* $connection: the connection's serial number */
    SAT_HF_CONN_REQUESTS,  /* $connection_requests: 1 for the first request */
    SAT_HF_KEEPALIVE,      /* %k: 0 for the first request (conn_request = %k + 1) */
    /* who and from where */
    SAT_HF_VHOST,          /* $host, $server_name, %v, %V, %{Host}i */
    SAT_HF_USER_AGENT,     /* $http_user_agent, %{User-Agent}i */
    SAT_HF_REFERER,        /* $http_referer, %{Referer}i (matched, not kept in a row) */
    SAT_HF__COUNT
};
_Static_assert(SAT_HF__COUNT <= 64, "sat_http_facts.present is 64 bits");
#define SAT_HF_BIT(f) (1ull << (unsigned)(f))

/* Stable name of a field ("client", "time_clf", ...; "?" out of range): the
 * names httpconf's PCRE2 groups map to are its own (docs/http.md). */
const char *sat_http_field_name(int f);

/* ---- captures: one span per field ------------------------------------------------ */
typedef struct sat_http_caps {
    sat_str v[SAT_HF__COUNT]; /* SAT_STR_NONE: the line did not hold the field */
    /* what a preset read after its last field (http_extras.c): the tail, and the
     * SAT_HF_BIT()s of the fields its keys gave; SAT_STR_NONE / 0 without one */
    sat_str tail;
    uint64_t extra_present;
    /* a line not matched: how far the matcher got (bytes), and the reason naming
     * the format's field where it stopped ("... at field 10 of 12 (%I)") */
    size_t fail_at;
    char why[112];
} sat_http_caps;

static inline void sat_http_caps_clear(sat_http_caps *c)
{
    memset(c->v, 0, sizeof c->v);
    c->tail = SAT_STR_NONE;
    c->extra_present = 0;
    c->fail_at = 0;
    c->why[0] = '\0';
}

/* ---- what a format says about its lines ------------------------------------------ */
enum sat_http_syntax {
    SAT_HTTP_SYNTAX_NGINX = 1, /* `$var` log_format body */
    SAT_HTTP_SYNTAX_APACHE,    /* mod_log_config LogFormat %-directives */
    SAT_HTTP_SYNTAX_TOMCAT,    /* AccessLogValve pattern (Tomcat 10: %D in us) */
    SAT_HTTP_SYNTAX_PATTERN    /* a user's PCRE2 pattern */
};

#define SAT_HTTP_STRF_MAX 64
typedef struct sat_http_facts {
    int syntax;          /* enum sat_http_syntax */
    int time_is_end;     /* the line's time field is the response's end (nginx's
                            $time_local/$msec/$time_iso8601, Apache %{end:..}t):
                            ts = time - response time (event.h) */
    uint64_t present;    /* SAT_HF_BIT()s of the fields a line can hold */
    int two_readings;    /* %-directives that Apache and Tomcat both write (no
                            directive only one of them has), read as Apache's:
                            "tomcat:" + the definition is the other reading */
    int extras;          /* a preset: key=value fields after its last one are read
                            (http_extras.c), not a reason to reject the line */
    char strf[SAT_HTTP_STRF_MAX]; /* SAT_HF_TIME_STRF: the strftime format ("" none) */
    char name[32];       /* the source row's format: "http-combined", "nginx-custom",
                            ... (fmt_http.c's opening comment lists them) */
} sat_http_facts;

/* What a source of these facts can carry (fields.h): SAT_FIELDS_DECLARED |
 * SAT_FIELDS_HTTP_SOURCE | the SAT_FIELD_BIT()s of the fields present. */
uint32_t sat_http_source_fields(const sat_http_facts *f);

/* ---- the row builder ----------------------------------------------------------------
 * Scratch space for the strings a row holds that are not in the line: the
 * path template. One per parser state; the row's strings into it are valid
 * until the next build with it. */
#define SAT_HTTP_TEMPLATE_MAX 1024
typedef struct sat_http_scratch {
    char tmpl[SAT_HTTP_TEMPLATE_MAX];
    char why[96]; /* a reason that names a value (a time past the plausible bound) */
} sat_http_scratch;

/* Builds *out from the captures: every field of sat_http_req but source and
 * server (the caller's), absent ones as event.h spells them. Returns SAT_OK, or
 * SAT_E_FORMAT with *why set to a short stable reason ("bad status", "bad
 * time", "no time"), or to one in scratch->why naming a response or upstream
 * time past the plausible bound (sat_parse_dur_check), for a line to reject. A row without a usable time is
 * rejected: every analysis needs it. */
int sat_http_row_build(const sat_http_caps *caps, const sat_http_facts *facts,
                       sat_http_scratch *scratch, sat_http_req *out, const char **why);

/* ---- pieces the builder is made of, shared with tests ------------------------------ */
/* http_path.c: the template of a request target into out (at most cap-1 bytes
 * and a NUL; a longer template is cut at a segment boundary and ends in
 * "/..."). Returns its length. The query and fragment are dropped; a segment
 * that is a number -> {n}, a UUID -> {uuid}, a hex id (0x..., or >= 8 hex
 * digits with enough decimal digits: http_path.c) -> {hex}, a digit-heavy
 * mixed id -> {id}. */
size_t sat_http_path_template(const char *path, size_t len, char *out, size_t cap);
/* 1 when a path's last segment ends in a static file's extension (the one
 * list, http_path.c: .css .js .png .woff2 ...; any case), the query aside. */
int sat_http_path_is_static(const char *path, size_t len);

/* http_time.c: the time spans -> UTC ns and the offset written (seconds east).
 * Each returns 0, or -1 when the span is not such a time. */
int sat_http_time_clf(const char *p, size_t n, sat_ts_ns *ts, int32_t *off);
int sat_http_time_iso(const char *p, size_t n, sat_ts_ns *ts, int32_t *off);
int sat_http_time_strf(const char *fmt, const char *p, size_t n, sat_ts_ns *ts, int32_t *off);
/* 1 when every conversion of fmt is one sat_http_time_strf reads. */
int sat_http_strf_supported(const char *fmt);

/* http_extras.c: the tail [p, end) of a line a preset matched up to p, read
 * into caps (caps->tail, the fields of its known keys that `present`, the
 * format's own, lacks: caps->extra_present). 0, or -1 when the tail is not
 * blank-separated tokens (an unclosed quote). */
int sat_http_extras_read(const char *p, const char *end, uint64_t present, sat_http_caps *caps);
/* The keys of a tail's key=value tokens, ','-joined into out ("rt,urt,cs"; the
 * whole keys that fit in cap-1 bytes). Returns the length written. */
size_t sat_http_extras_names(sat_str tail, char *out, size_t cap);

/* ---- a matcher: what fills the captures of one line ------------------------------
 * A compiled format (http_match.c) or a PCRE2 pattern (http_pattern.c). match
 * returns 1 with caps filled, or 0 with *why set (the reject reason: "does not
 * match the format"). State is per parser (not shared between threads). */
typedef struct sat_http_matcher {
    void *self;
    int (*match)(void *self, const char *line, size_t len, sat_http_caps *caps,
                 const char **why);
    void (*free)(void *self);
    sat_http_facts facts;
} sat_http_matcher;

/* ---- compiled formats (http_format.c) --------------------------------------------- */
typedef struct sat_http_format sat_http_format;

/* Compiles def: a preset name (http_format.c lists them: "combined", "common",
 * "nginx-combined", "apache-common", "tomcat-combined", ...), or a definition
 * in one of the three syntaxes, told apart by syntax ('$' variables: nginx;
 * %-directives: Apache, or Tomcat when it uses Tomcat's own directives), or
 * forced with a prefix "nginx:", "apache:", "tomcat:" (Tomcat 10 units),
 * "tomcat9:" (Tomcat 9 and older: %D in ms, %T in seconds with ms).
 * NULL with diag set (what is wrong, and where in def) when it does not
 * compile; the result is immutable and may be shared by threads. */
sat_http_format *sat_http_format_compile(const char *def, sat_diag *diag);
void sat_http_format_free(sat_http_format *f); /* NULL is fine */
/* The definition of preset `name` (with its syntax prefix) and its source
 * format name, or NULL; the i-th preset's name, NULL past the last. */
const char *sat_http_preset_def(const char *name, const char **source);
const char *sat_http_preset_name(size_t i);
const sat_http_facts *sat_http_format_facts(const sat_http_format *f);
/* Matches one line (no newline) against f. 1 with caps filled, 0 with *why. */
int sat_http_format_match(const sat_http_format *f, const char *line, size_t len,
                          sat_http_caps *caps, const char **why);
/* def compiled into a matcher that owns it (m->free(m->self) frees it):
 * SAT_OK, or the compiler's status with diag set (m cleared). */
int sat_http_format_matcher(const char *def, sat_http_matcher *m, sat_diag *diag);


/* ---- small scanners over [p, end), shared by the http_*.c files ---------------------- */
static inline int hx_digit(char c) { return (unsigned)(unsigned char)(c - '0') <= 9u; }

/* n decimal digits exactly at p (n <= 9), or -1. */
static inline int hx_fixed(const char *p, const char *end, int n)
{
    int v = 0;
    if (end - p < n)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!hx_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* A whole span of decimal digits (at most 18) -> *out; 0, or -1 if it is not one. */
static inline int hx_uint(const char *p, size_t n, int64_t *out)
{
    int64_t v = 0;
    if (n == 0 || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!hx_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* A span that is "-" (or empty): the server had no value. */
static inline int hx_dash(sat_str s) { return s.len == 0 || (s.len == 1 && s.ptr[0] == '-'); }

#endif /* SAT_PARSE_HTTP_INT_H */
