/*
 * test_timefmt.c - the digit runs every timestamp and duration parser reads
 * (parse/timefmt.h): sat_digits8, a word at a time, against the plain
 * byte-by-byte reading it replaces, on every single-byte change of digit
 * strings (each byte value at each position) and on random strings; and
 * sat_fraction_ns on fractions of each length, with a non-digit at each
 * place, each read from a buffer of its exact size (the sanitizer build sees
 * any byte read past it).
 */
#include "check.h"
#include "parse/timefmt.h"

#include <stdlib.h>

/* the reading sat_digits8 must give: -1 unless all eight are digits */
static int64_t digits8_bytewise(const char *p)
{
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

static void test_digits8(void)
{
    const char *bases[] = {"00000000", "12345678", "99999999", "90817263", "00000001"};
    unsigned bad = 0;
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        CHECK_EQ_INT(sat_digits8(bases[b]), digits8_bytewise(bases[b]));
        for (int pos = 0; pos < 8; pos++)
            for (int c = 0; c < 256; c++) {
                char s[8];
                memcpy(s, bases[b], 8);
                s[pos] = (char)c;
                if (sat_digits8(s) != digits8_bytewise(s))
                    bad++;
            }
    }
    CHECK_EQ_INT((int)bad, 0);
    /* random bytes, and random strings of digits with a few others */
    unsigned x = 12345;
    bad = 0;
    for (int n = 0; n < 200000; n++) {
        char s[8];
        for (int i = 0; i < 8; i++) {
            x = x * 1103515245u + 12345u;
            unsigned r = x >> 16;
            s[i] = n & 1 ? (char)(r & 0xff) : (r % 23 ? (char)('0' + r % 10) : (char)(r & 0xff));
        }
        if (sat_digits8(s) != digits8_bytewise(s))
            bad++;
    }
    CHECK_EQ_INT((int)bad, 0);
    CHECK_EQ_INT(sat_digits8("00000042"), 42);
    CHECK_EQ_INT(sat_digits8("1234567:"), -1);
    CHECK_EQ_INT(sat_digits8("/2345678"), -1);
}

/* sat_fraction_ns on s from a heap copy of exactly its length */
static int64_t frac(const char *s, int *digits, size_t *used)
{
    size_t n = strlen(s);
    char *b = malloc(n ? n : 1);
    if (!b)
        abort();
    memcpy(b, s, n);
    int64_t ns = -1;
    const char *e = sat_fraction_ns(b, b + n, &ns, digits);
    *used = (size_t)(e - b);
    free(b);
    return ns;
}

static void test_fraction(void)
{
    int d;
    size_t u;
    CHECK_EQ_INT(frac("005852070", &d, &u), 5852070);
    CHECK_EQ_INT(d, 9);
    CHECK_EQ_INT(frac("000245400 +0000]", &d, &u), 245400);
    CHECK_EQ_INT((int)u, 9);
    CHECK_EQ_INT(frac("0011", &d, &u), 1100000);
    CHECK_EQ_INT(d, 4);
    CHECK_EQ_INT(frac("1234567891234", &d, &u), 123456789); /* digits past nine dropped */
    CHECK_EQ_INT(d, 13);
    CHECK_EQ_INT((int)u, 13);
    CHECK_EQ_INT(frac("", &d, &u), 0);
    CHECK_EQ_INT(d, 0);
    /* each length 1..12 of "987654321987", then a non-digit at each place */
    const char *all = "987654321987";
    for (size_t len = 1; len <= 12; len++) {
        char s[16];
        memcpy(s, all, len);
        s[len] = '\0';
        int64_t want = 0;
        for (size_t i = 0; i < 9; i++)
            want = want * 10 + (i < len ? all[i] - '0' : 0);
        CHECK_EQ_INT(frac(s, &d, &u), want);
        CHECK_EQ_INT(d, (int)len);
        for (size_t cut = 0; cut < len; cut++) {
            char t[16];
            memcpy(t, s, len + 1);
            t[cut] = ' ';
            int64_t w = 0;
            for (size_t i = 0; i < 9; i++)
                w = w * 10 + (i < cut ? all[i] - '0' : 0);
            CHECK_EQ_INT(frac(t, &d, &u), w);
            CHECK_EQ_INT(d, (int)cut);
            CHECK_EQ_INT((int)u, (int)cut);
        }
    }
}

int main(void)
{
    test_digits8();
    test_fraction();
    return CHECK_DONE();
}
