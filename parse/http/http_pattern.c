/*
 * http_pattern.c - a user's PCRE2 pattern as a matcher of access log lines
 * (http_pattern.h): the named groups are mapped once, at compile time, to
 * the fields of http_int.h; a match puts each matched group's span into its
 * field, and the row builder does the rest as for any compiled format.
 *
 * The pattern is searched in the line (PCRE2 semantics: anchor it with ^ if
 * it must start there). JIT-compiled when PCRE2 has a JIT for this machine;
 * the interpreter otherwise, with the same results. Each matcher has its
 * own match data and a match context whose limits bound the work one line
 * may cost (a pattern that backtracks exponentially rejects that line).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "http_pattern.h"

/* Backtracking steps and nesting one line may take before it is rejected:
 * ample for any sane log pattern (a combined line is a few hundred steps). */
#define PATTERN_MATCH_LIMIT 1000000u
#define PATTERN_DEPTH_LIMIT 10000u

/* The kinds of a "time"/"end" group whose text tells its kind. */
#define FIELD_TIME_AUTO (-1)

struct sat_http_pattern {
    pcre2_code *code;
    uint32_t ngroups;
    int *field; /* per group number 0..ngroups: a field, FIELD_TIME_AUTO, or SAT_HF_IGNORE */
    sat_http_facts facts;
};

typedef struct pattern_matcher {
    const sat_http_pattern *p;
    sat_http_pattern *owned; /* p, when the matcher compiled it */
    pcre2_match_data *md;
    pcre2_match_context *mc;
} pattern_matcher;

/* The time fields by name suffix, for "time_*" and "end_*". */
static const struct {
    const char *suffix;
    int field;
} time_names[] = {
    {"", FIELD_TIME_AUTO},
    {"_clf", SAT_HF_TIME_CLF},
    {"_iso", SAT_HF_TIME_ISO},
    {"_epoch", SAT_HF_TIME_EPOCH_S},
    {"_epoch_ms", SAT_HF_TIME_EPOCH_MS},
    {"_epoch_us", SAT_HF_TIME_EPOCH_US},
    {"_frac_ms", SAT_HF_TIME_FRAC_MS},
    {"_frac_us", SAT_HF_TIME_FRAC_US},
};

/* The field a group name stands for, -2 if none; *end set for "end..." names. */
static int field_of_name(const char *name, int *end)
{
    *end = 0;
    for (int k = 0; k < 2; k++) {
        const char *stem = k ? "end" : "time";
        size_t sl = strlen(stem);
        if (strncmp(name, stem, sl) != 0)
            continue;
        for (size_t i = 0; i < sizeof time_names / sizeof time_names[0]; i++)
            if (strcmp(name + sl, time_names[i].suffix) == 0) {
                *end = k;
                return time_names[i].field;
            }
    }
    for (int f = SAT_HF_IGNORE + 1; f < SAT_HF__COUNT; f++) {
        if (f == SAT_HF_TIME_STRF ||
            (f >= SAT_HF_TIME_CLF && f <= SAT_HF_TIME_FRAC_US)) /* named above */
            continue;
        if (strcmp(name, sat_http_field_name(f)) == 0)
            return f;
    }
    return -2;
}

size_t sat_http_pattern_names(char *out, size_t cap)
{
    /* the time names as one family, so that the list fits one message */
    size_t n = (size_t)snprintf(out, cap, "time, end (and time_X, end_X for X = ");
    for (size_t i = 1; i < sizeof time_names / sizeof time_names[0]; i++)
        n += (size_t)snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%s",
                              i > 1 ? "," : "", time_names[i].suffix + 1);
    n += (size_t)snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, ")");
    for (int f = SAT_HF_IGNORE + 1; f < SAT_HF__COUNT; f++)
        if (f < SAT_HF_TIME_CLF || f > SAT_HF_TIME_FRAC_US)
            n += (size_t)snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, ", %s",
                                  sat_http_field_name(f));
    return n;
}

sat_http_pattern *sat_http_pattern_compile(const char *re, size_t len, sat_diag *d)
{
    int err = 0;
    PCRE2_SIZE erroff = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(re ? re : ""), re ? len : 0, 0, &err,
                                     &erroff, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        sat_diag_set(d, SAT_E_USAGE, "--pattern", "at offset %zu: %s", (size_t)erroff,
                     (const char *)msg);
        return NULL;
    }
    sat_http_pattern *p = calloc(1, sizeof *p);
    uint32_t ngroups = 0, namecount = 0, entry = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &ngroups);
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &namecount);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    if (p)
        p->field = calloc((size_t)ngroups + 1, sizeof *p->field);
    if (!p || !p->field) {
        sat_diag_set(d, SAT_E_NOMEM, "--pattern", "out of memory");
        pcre2_code_free(code);
        if (p)
            free(p);
        return NULL;
    }
    p->code = code;
    p->ngroups = ngroups;
    p->facts.syntax = SAT_HTTP_SYNTAX_PATTERN;
    snprintf(p->facts.name, sizeof p->facts.name, "pattern");
    int begin = 0, end_time = 0;
    /* the name table: entries of a 2-byte group number then the name, NUL-ended */
    for (uint32_t i = 0; i < namecount; i++) {
        PCRE2_SPTR e = table + (size_t)i * entry;
        uint32_t group = ((uint32_t)e[0] << 8) | e[1];
        const char *name = (const char *)e + 2;
        int is_end = 0;
        int f = field_of_name(name, &is_end);
        if (f == -2) {
            char names[512];
            sat_http_pattern_names(names, sizeof names);
            sat_diag_set(d, SAT_E_USAGE, "--pattern",
                         "the group name '%s' is no field; the names are: %s", name, names);
            sat_http_pattern_free(p);
            return NULL;
        }
        if (group > ngroups)
            continue;
        p->field[group] = f;
        int is_time = f == FIELD_TIME_AUTO || (f >= SAT_HF_TIME_CLF && f <= SAT_HF_TIME_EPOCH_US);
        if (is_time)
            *(is_end ? &end_time : &begin) = 1;
        if (f == FIELD_TIME_AUTO)
            p->facts.present |= SAT_HF_BIT(SAT_HF_TIME_CLF) | SAT_HF_BIT(SAT_HF_TIME_ISO) |
                                SAT_HF_BIT(SAT_HF_TIME_EPOCH_S) |
                                SAT_HF_BIT(SAT_HF_TIME_EPOCH_MS) |
                                SAT_HF_BIT(SAT_HF_TIME_EPOCH_US);
        else
            p->facts.present |= SAT_HF_BIT(f);
    }
    if (!begin && !end_time) {
        sat_diag_set(d, SAT_E_USAGE, "--pattern",
                     "no group gives the line's time: name one (?<time>...) (or end, "
                     "time_clf, time_iso, time_epoch, time_epoch_ms, time_epoch_us)");
        sat_http_pattern_free(p);
        return NULL;
    }
    /* with both, the start is the time taken: the end groups are not used */
    if (begin && end_time) {
        for (uint32_t i = 0; i < namecount; i++) {
            PCRE2_SPTR e = table + (size_t)i * entry;
            uint32_t group = ((uint32_t)e[0] << 8) | e[1];
            if (group <= ngroups && strncmp((const char *)e + 2, "end", 3) == 0)
                p->field[group] = SAT_HF_IGNORE;
        }
    }
    p->facts.time_is_end = !begin && end_time;
    /* JIT when the machine has one; the interpreter gives the same matches */
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    return p;
}

void sat_http_pattern_free(sat_http_pattern *p)
{
    if (!p)
        return;
    pcre2_code_free(p->code);
    free(p->field);
    free(p);
}

const sat_http_facts *sat_http_pattern_facts(const sat_http_pattern *p)
{
    return p ? &p->facts : NULL;
}

/* The kind of time a "time" group captured, by its text: CLF has '/'
 * ("01/Dec/2026:16:45:44 +0000"), ISO 8601 a '-' after the year; digits are
 * epoch seconds (with a fraction, or up to 11 digits), milliseconds (12-14)
 * or microseconds (15 and more). */
static int time_kind(const char *s, size_t n)
{
    if (memchr(s, '/', n))
        return SAT_HF_TIME_CLF;
    if (n > 4 && s[4] == '-')
        return SAT_HF_TIME_ISO;
    size_t digits = 0;
    for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (digits < n || digits <= 11)
        return SAT_HF_TIME_EPOCH_S;
    return digits <= 14 ? SAT_HF_TIME_EPOCH_MS : SAT_HF_TIME_EPOCH_US;
}

static int pattern_match(void *self, const char *line, size_t len, sat_http_caps *caps,
                         const char **why)
{
    pattern_matcher *m = self;
    const sat_http_pattern *p = m->p;
    int rc = pcre2_match(p->code, (PCRE2_SPTR)line, len, 0, 0, m->md, m->mc);
    if (rc < 0) {
        *why = rc == PCRE2_ERROR_NOMATCH ? "does not match the pattern"
               : rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
                       rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT
                   ? "the pattern's match limit was reached on this line"
                   : "the pattern could not be matched";
        return 0;
    }
    sat_http_caps_clear(caps);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    uint32_t pairs = pcre2_get_ovector_count(m->md);
    for (uint32_t g = 1; g <= p->ngroups && g < pairs; g++) {
        int f = p->field[g];
        if (f == SAT_HF_IGNORE || ov[2 * g] == PCRE2_UNSET || ov[2 * g + 1] < ov[2 * g])
            continue;
        const char *s = line + ov[2 * g];
        size_t n = ov[2 * g + 1] - ov[2 * g];
        if (f == FIELD_TIME_AUTO)
            f = time_kind(s, n);
        if (!caps->v[f].ptr) /* a duplicate name: the first group that matched */
            caps->v[f] = sat_str_make(s, n);
    }
    return 1;
}

static void pattern_matcher_free(void *self)
{
    pattern_matcher *m = self;
    if (!m)
        return;
    pcre2_match_data_free(m->md);
    pcre2_match_context_free(m->mc);
    sat_http_pattern_free(m->owned);
    free(m);
}

int sat_http_pattern_matcher(const sat_http_pattern *p, sat_http_matcher *out)
{
    memset(out, 0, sizeof *out);
    pattern_matcher *m = calloc(1, sizeof *m);
    if (!m)
        return SAT_E_NOMEM;
    m->p = p;
    m->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    m->mc = pcre2_match_context_create(NULL);
    if (!m->md || !m->mc) {
        pattern_matcher_free(m);
        return SAT_E_NOMEM;
    }
    pcre2_set_match_limit(m->mc, PATTERN_MATCH_LIMIT);
    pcre2_set_depth_limit(m->mc, PATTERN_DEPTH_LIMIT);
    out->self = m;
    out->match = pattern_match;
    out->free = pattern_matcher_free;
    out->facts = p->facts;
    return SAT_OK;
}

int sat_http_pattern_matcher_own(const char *re, size_t len, sat_http_matcher *out, sat_diag *d)
{
    memset(out, 0, sizeof *out);
    sat_http_pattern *p = sat_http_pattern_compile(re, len, d);
    if (!p)
        return d && d->code ? d->code : SAT_E_USAGE;
    int rc = sat_http_pattern_matcher(p, out);
    if (rc < 0) {
        sat_http_pattern_free(p);
        return sat_diag_set(d, rc, "--pattern", "out of memory");
    }
    ((pattern_matcher *)out->self)->owned = p;
    return SAT_OK;
}
