/*
 * http_format_int.h - (private to the format compiler and matcher,
 * parse/http/http_format*.c and http_match.c) the compiled format, and the token
 * list the syntax front-ends fill:
 *   http_format.c        presets, telling the syntaxes apart, the common back
 *                        end (which time the line is read by, duplicates, how
 *                        each field ends), the public API;
 *   http_format_nginx.c  nginx log_format bodies ($variables);
 *   http_format_pct.c    Apache LogFormat and Tomcat AccessLogValve patterns
 *                        (%-directives);
 *   http_match.c         matching a line against a compiled format.
 */
#ifndef SAT_PARSE_HTTP_FORMAT_INT_H
#define SAT_PARSE_HTTP_FORMAT_INT_H

#include "http_int.h"

/* How a field's span ends in the line. */
enum hf_scan {
    HF_SCAN_TEXT = 0, /* at the first occurrence of the literal after it (a '"'
                         escaped by a backslash does not count); the line's end
                         for the last field */
    HF_SCAN_NUMBER,   /* digits and '.', or a single "-" */
    HF_SCAN_CLF,      /* "[01/Dec/2026:16:45:44 +0000]" or without the brackets */
    HF_SCAN_ISO,      /* "2026-12-01T16:45:44+00:00" */
    HF_SCAN_LIST,     /* nginx upstream lists: "a, b : c" */
    HF_SCAN_PATH,     /* a path right before a query (%U%q): also ends at '?' */
    HF_SCAN_QUERY     /* %q: "?..." up to the literal after it, or empty */
};

#define HF_MAX_ITEMS 96
#define HF_LIT_MAX 4096

typedef struct hf_item {
    uint8_t field;    /* enum sat_http_field (SAT_HF_IGNORE when not used) */
    uint8_t scan;     /* enum hf_scan */
    uint16_t lit_len; /* the literal after the field (0: none) */
    uint32_t lit_off; /* into lits */
    char name[24];    /* as written ("%I", "$request_time"), for the reason of a
                         line that does not match */
} hf_item;

struct sat_http_format {
    sat_http_facts facts;
    uint32_t lead_off, lead_len; /* the literal before the first field */
    size_t n;
    hf_item items[HF_MAX_ITEMS];
    size_t nlits;
    char lits[HF_LIT_MAX];
};

/* ---- what a front-end hands the back end ------------------------------------------- */
typedef struct hf_token {
    int field;       /* enum sat_http_field */
    int scan;        /* enum hf_scan */
    int is_end;      /* a time field holding the response's end */
    int rank;        /* a time field's precision: 3 s, 5 ms, 6 us */
    int at;          /* its offset in the definition, for messages */
    char name[48];   /* as written ("$msec", "%{begin:msec}t"), for messages */
} hf_token;

typedef struct hf_build {
    sat_http_format *f;
    sat_diag *diag;
    hf_token tok[HF_MAX_ITEMS];
    size_t ntok;
    /* literal text gathered before each token (lead = before token 0) */
    uint32_t lit_off[HF_MAX_ITEMS + 1];
    uint32_t lit_len[HF_MAX_ITEMS + 1];
    int syntax; /* enum sat_http_syntax */
    int tomcat9; /* Tomcat 9 and older units */
} hf_build;

/* Literal text (the current gap before the next field). -1 with diag on overflow. */
int hf_lit(hf_build *b, const char *p, size_t n);
/* One field. name/at for messages. -1 with diag on overflow. */
int hf_field(hf_build *b, int field, int scan, int is_end, int rank, const char *name,
             size_t name_len, int at);

/* Front-ends: def (NUL-terminated) into b's tokens; 0, or -1 with b->diag. */
int sat_hf_nginx(hf_build *b, const char *def);
int sat_hf_pct(hf_build *b, const char *def, int syntax);
/* For telling syntaxes apart: 1 if def's %-directives are Tomcat's own
 * (%F, %{...}r, ...), 2 if Apache's own (%>s, %k, %{...}x, ...), 3 if both, 0
 * neither. */
int sat_hf_pct_flavour(const char *def);

#endif
