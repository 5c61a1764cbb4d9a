/*
 * check.h - the unit tests' tiny assertion kit: CHECK(cond) and friends
 * record a failure with file:line and keep going; CHECK_DONE() prints the
 * "N passed, N failed" line and returns the exit code for main.
 */
#ifndef SAT_TEST_CHECK_H
#define SAT_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
    do {                                                                     \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);      \
        if (check_a_ == check_b_) {                                          \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",        \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_);         \
        }                                                                    \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                   \
    do {                                                                     \
        const char *check_a_ = (a), *check_b_ = (b);                         \
        if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) {       \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",    \
                    __FILE__, __LINE__, #a, #b,                              \
                    check_a_ ? check_a_ : "(null)",                          \
                    check_b_ ? check_b_ : "(null)");                         \
        }                                                                    \
    } while (0)

/* A sat_str against a C string (absent never equals anything). */
#define CHECK_EQ_SSTR(s, cstr)                                               \
    do {                                                                     \
        sat_str check_s_ = (s);                                              \
        const char *check_c_ = (cstr);                                       \
        if (check_s_.ptr && strlen(check_c_) == check_s_.len &&              \
            memcmp(check_s_.ptr, check_c_, check_s_.len) == 0) {             \
            check_passed++;                                                  \
        } else {                                                             \
            check_failed++;                                                  \
            fprintf(stderr, "%s:%d: %s == \"%s\" failed: got %s%.*s%s\n",    \
                    __FILE__, __LINE__, #s, check_c_,                        \
                    check_s_.ptr ? "\"" : "(absent)",                        \
                    check_s_.ptr ? (int)check_s_.len : 0,                    \
                    check_s_.ptr ? check_s_.ptr : "",                        \
                    check_s_.ptr ? "\"" : "");                               \
        }                                                                    \
    } while (0)

#define CHECK_DONE()                                                         \
    (printf("%d passed, %d failed\n", check_passed, check_failed),          \
     check_failed ? 1 : 0)

#endif
