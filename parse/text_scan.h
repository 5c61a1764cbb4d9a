/*
 * text_scan.h - (internal to parse/) the bounded searches in a line that
 * several line readers share (crash_text*.c, fmt_openldap*.c): lines are not
 * NUL-terminated, so every search is bounded by [p, end).
 */
#ifndef SAT_PARSE_TEXT_SCAN_H
#define SAT_PARSE_TEXT_SCAN_H

#include <stddef.h>
#include <string.h>

/* 1 if [p, end) starts with lit. */
static inline int starts(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* The first lit (not empty) in [p, end), NULL if none: memchr for its first
 * byte, then compare. */
static inline const char *find(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    while (p < end && (size_t)(end - p) >= n) {
        const char *c = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!c)
            return NULL;
        if (memcmp(c + 1, lit + 1, n - 1) == 0)
            return c;
        p = c + 1;
    }
    return NULL;
}

#endif
