/*
 * test_rfc3339.c - the one RFC 3339 reader (parse/rfc3339.c, parse.h
 * sat_parse_rfc3339) and the command line's time options read through it
 * (cli_common.c): fractions, zones, the flags' liberties, fields out of
 * range, every truncation of a valid time (each read from a buffer of its
 * exact size, so that the sanitizer build sees any byte read past it).
 */
#include "check.h"
#include "cli.h"
#include "satscope/parse.h"

#include <stdlib.h>

#define NS 1000000000LL
#define T_2025_06_09_142410 1749479050LL /* 2025-06-09T14:24:10Z */

static sat_ts_ns ts;
static int32_t off;
static size_t used;

/* s read from a heap copy of exactly its length (no NUL after it) */
static int rd(const char *s, unsigned flags)
{
    size_t n = strlen(s);
    char *b = malloc(n ? n : 1);
    if (!b)
        abort();
    memcpy(b, s, n);
    ts = -1;
    off = -1;
    used = 0;
    int rc = sat_parse_rfc3339(b, n, flags, &ts, &off, &used);
    free(b);
    return rc;
}

static void test_default(void)
{
    CHECK_EQ_INT(rd("2025-06-09T14:24:10Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(off, 0);
    CHECK_EQ_INT(used, 20);
    CHECK_EQ_INT(rd("2025-06-09t14:24:10z", 0), SAT_E_FORMAT); /* 't' only with LOWER_T */
    CHECK_EQ_INT(rd("2025-06-09T14:24:10z", 0), SAT_OK);
    CHECK_EQ_INT(rd("2025-06-09 14:24:10Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    /* offsets: the instant is UTC, the offset kept */
    CHECK_EQ_INT(rd("2025-06-09T16:24:10+02:00", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(off, 7200);
    CHECK_EQ_INT(rd("2025-06-09T09:54:10-0430", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(off, -(4 * 3600 + 30 * 60));
    CHECK_EQ_INT(rd("2025-06-09T14:24:10-00:00", 0), SAT_OK);
    CHECK_EQ_INT(off, 0);
    /* fractions: nanoseconds, the first nine digits kept, later ones dropped */
    CHECK_EQ_INT(rd("2025-06-09T14:24:10.5Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 500000000);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10.123456789+00:00", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 123456789);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10.1234567899999Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 123456789);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10,5Z", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10,5Z", SAT_TIME_DECIMAL_COMMA), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 500000000);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10.Z", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10.Z", SAT_TIME_EMPTY_FRACTION), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    /* a zone is required by default */
    CHECK_EQ_INT(rd("2025-06-09T14:24:10", 0), SAT_E_TRUNCATED);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10 ", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10", SAT_TIME_ZONE_OPTIONAL), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(off, 0);
    /* the whole span, nothing after */
    CHECK_EQ_INT(rd("2025-06-09T14:24:10Z ", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+02:00x", 0), SAT_E_FORMAT);
}

static void test_ranges(void)
{
    CHECK_EQ_INT(rd("2025-13-09T14:24:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-00-09T14:24:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-32T14:24:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-00T14:24:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-09T24:24:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-09T14:60:10Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:61Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+24:00", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+02:60", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("1969-12-31T23:59:59Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("2262-01-01T00:00:00Z", 0), SAT_E_CORRUPT);
    CHECK_EQ_INT(rd("1970-01-01T00:00:00Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, 0);
    CHECK_EQ_INT(rd("2261-12-31T23:59:59Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, 9214646399LL * NS);
    /* a leap second and days past the month's end carry, as timegm's do */
    CHECK_EQ_INT(rd("2025-06-09T14:24:60Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, (T_2025_06_09_142410 + 50) * NS);
    CHECK_EQ_INT(rd("2025-02-30T00:00:00Z", 0), SAT_OK);
    CHECK_EQ_INT(ts, 1740873600LL * NS); /* 2025-03-02 */
    /* not digits */
    CHECK_EQ_INT(rd("2025-06-09T14:2x:10Z", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("2025/06/09T14:24:10Z", 0), SAT_E_FORMAT);
    CHECK_EQ_INT(rd("+2025-06-09T14:24:10Z", 0), SAT_E_FORMAT);
}

/* Every proper prefix of a valid time is refused (and read within its bytes). */
static void test_truncated(void)
{
    static const char *const whole[] = {"2025-06-09T14:24:10.123456789+02:00",
                                        "2025-06-09 14:24:10Z", "2025-06-09T14:24:10-0500"};
    for (size_t k = 0; k < sizeof whole / sizeof whole[0]; k++) {
        char cut[64];
        size_t n = strlen(whole[k]);
        for (size_t i = 0; i < n; i++) {
            memcpy(cut, whole[k], i);
            cut[i] = '\0';
            int rc = rd(cut, 0);
            /* "...10.1" and the like are whole times with a shorter
             * fraction: only the zone is missing */
            CHECK(rc == SAT_E_TRUNCATED);
        }
        CHECK_EQ_INT(rd(whole[k], 0), SAT_OK);
    }
    CHECK_EQ_INT(rd("", 0), SAT_E_TRUNCATED);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+02", 0), SAT_E_TRUNCATED);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+02:0", 0), SAT_E_TRUNCATED);
}

/* The heads of log lines: what the time took, what follows left alone. */
static void test_prefix(void)
{
    const unsigned syslog = SAT_TIME_PREFIX | SAT_TIME_EMPTY_FRACTION; /* OpenLDAP's */
    CHECK_EQ_INT(rd("2024-05-01T12:00:00.123456+02:00 host slapd[1]: conn=1", syslog), SAT_OK);
    CHECK_EQ_INT(used, 32);
    CHECK_EQ_INT(off, 7200);
    CHECK_EQ_INT(rd("2024-05-01T12:00:00 host slapd[1]:", syslog), SAT_E_FORMAT); /* no zone */

    /* crash reports in any log: no zone is UTC; "+hh" alone is a zone; what
     * makes no zone is left to the line */
    const unsigned crash = SAT_TIME_PREFIX | SAT_TIME_ZONE_OPTIONAL | SAT_TIME_ZONE_FREE |
                           SAT_TIME_DECIMAL_COMMA;
    CHECK_EQ_INT(rd("2025-06-09 14:24:10,250 kernel: x", crash), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 250000000);
    CHECK_EQ_INT(used, 23);
    CHECK_EQ_INT(rd("2025-06-09T16:24:10+02 x", crash), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(used, 22);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+15:00 x", crash), SAT_OK); /* past +14: no zone */
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(off, 0);
    CHECK_EQ_INT(used, 19);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+02: x", crash), SAT_OK); /* a cut offset: no zone */
    CHECK_EQ_INT(used, 19);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10. x", crash), SAT_OK); /* '.' alone: not the time's */
    CHECK_EQ_INT(used, 19);

    /* 389's JSON local_time: blanks before the zone */
    const unsigned json = SAT_TIME_ZONE_OPTIONAL | SAT_TIME_ZONE_BLANKS | SAT_TIME_DECIMAL_COMMA |
                          SAT_TIME_EMPTY_FRACTION;
    CHECK_EQ_INT(rd("2025-06-09T09:24:10.000000001 -0500", json), SAT_OK);
    CHECK_EQ_INT(ts, T_2025_06_09_142410 * NS + 1);
    CHECK_EQ_INT(off, -5 * 3600);
    CHECK_EQ_INT(rd("2025-06-09T09:24:10 -0500", 0), SAT_E_FORMAT);
}

/* The command line's options, read as strptime(3) read them. */
static void test_cli(void)
{
    sat_ts_ns t = 0;
    /* --crash-time: a zone required, "+hh:mm" only; lowercase t and z */
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:10Z", &t), 0);
    CHECK_EQ_INT(t, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09t16:24:10.5+02:00", &t), 0);
    CHECK_EQ_INT(t, T_2025_06_09_142410 * NS + 500000000);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09 14:24:10z", &t), 0);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-6-9T14:24:10Z", &t), 0); /* strptime's short fields */
    CHECK_EQ_INT(t, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(sat_cli_parse_rfc3339(" 2025-06-09T 14:24:10Z", &t), 0); /* and its blanks */
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:10", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T16:24:10+0200", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:10.Z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:10,5Z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24Z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:61Z", &t), 0); /* strptime: to 61 */
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-06-09T14:24:62Z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("2025-13-09T14:24:10Z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("1970-01-01T00:00:00Z", &t), -1); /* not after 1970 */
    CHECK_EQ_INT(sat_cli_parse_rfc3339("1970-01-01T00:00:01+05:00", &t), 0);
    CHECK_EQ_INT(t, (1 - 5 * 3600) * NS);
    CHECK_EQ_INT(sat_cli_parse_rfc3339("9999-12-31T23:59:59Z", &t), -1); /* past int64 ns */
    /* --from / --to: epoch seconds, the date alone, no seconds, no zone or Z */
    CHECK_EQ_INT(sat_cli_parse_time("1749479050", &t), 0);
    CHECK_EQ_INT(t, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(sat_cli_parse_time("99999999999", &t), -1); /* past int64 ns */
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09", &t), 0);
    CHECK_EQ_INT(t, 1749427200LL * NS);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09Z", &t), 0);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14:00", &t), 0);
    CHECK_EQ_INT(t, 1749477600LL * NS);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09 14:00Z", &t), 0);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09 14:24:10", &t), 0);
    CHECK_EQ_INT(t, T_2025_06_09_142410 * NS);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14:24:10Z", &t), 0);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14:24:10+02:00", &t), -1); /* no offsets */
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14:24:10.5", &t), -1);     /* no fraction */
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09t14:24", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14:24:10z", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09T14", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_time("2025-06-09 ", &t), -1);
    CHECK_EQ_INT(sat_cli_parse_time("", &t), -1);
    /* the flags straight: the date alone only with RANGE_FORMS */
    CHECK_EQ_INT(rd("2025-06-09", SAT_TIME_STRPTIME | SAT_TIME_RANGE_FORMS), SAT_OK);
    CHECK_EQ_INT(rd("2025-06-09", SAT_TIME_STRPTIME), SAT_E_TRUNCATED);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+29:59", SAT_TIME_STRPTIME), SAT_OK);
    CHECK_EQ_INT(rd("2025-06-09T14:24:10+30:00", SAT_TIME_STRPTIME), SAT_E_CORRUPT);
}

int main(void)
{
    test_default();
    test_ranges();
    test_truncated();
    test_prefix();
    test_cli();
    return CHECK_DONE();
}
