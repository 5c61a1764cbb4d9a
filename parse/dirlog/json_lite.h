/*
 * json_lite.h - (internal to parse/) a small, tolerant, allocation-free JSON
 * reader for log objects (RFC 8259 syntax, plus trailing commas before '}' or
 * ']' as found in 389-DS's own design-doc examples). No DOM: an iterator walks
 * one object's or array's members in place; nested values are returned as raw
 * spans that can be iterated in turn. Strings are returned raw (between the
 * quotes) and decoded on demand with sat_json_unescape.
 *
 * Every read is bounded by the span given; nesting is capped at
 * SAT_JSON_MAX_DEPTH so hostile input cannot recurse or loop without end.
 */
#ifndef SAT_JSON_LITE_H
#define SAT_JSON_LITE_H

#include <stddef.h>
#include <stdint.h>

#define SAT_JSON_MAX_DEPTH 64

enum sat_json_type {
    SAT_JSON_INVALID = 0,
    SAT_JSON_STRING,
    SAT_JSON_NUMBER,
    SAT_JSON_TRUE,
    SAT_JSON_FALSE,
    SAT_JSON_NULL,
    SAT_JSON_OBJECT,
    SAT_JSON_ARRAY
};

/* A value seen in place. STRING: ptr/len are the raw bytes between the quotes
 * (escapes not decoded, has_escape says whether any). OBJECT/ARRAY: the whole
 * span including the brackets. Others: the literal text. Borrowed from the
 * buffer being iterated. */
typedef struct sat_json_value {
    int type; /* enum sat_json_type */
    const char *ptr;
    size_t len;
    int has_escape;
} sat_json_value;

/* Iterator over one object or array. */
typedef struct sat_json_iter {
    const char *p;
    size_t len, pos;
    int err;   /* sticky: nonzero once the input is malformed */
    int first; /* no member read yet */
    char close; /* '}' or ']' */
} sat_json_iter;

/* Starts iterating the object (or array) that begins, after optional
 * whitespace, at buf[0]. Returns 0, or -1 when buf does not start one. */
int sat_json_object_begin(sat_json_iter *it, const char *buf, size_t len);
int sat_json_array_begin(sat_json_iter *it, const char *buf, size_t len);

/* Next member: 1 with *key (a STRING) and *val set, 0 at the closing brace,
 * -1 on malformed input (it->err set). */
int sat_json_object_next(sat_json_iter *it, sat_json_value *key, sat_json_value *val);
/* Next element of an array: 1 / 0 / -1 as above. */
int sat_json_array_next(sat_json_iter *it, sat_json_value *val);

/* Offset just past the closing bracket once *_next returned 0. */
static inline size_t sat_json_iter_end(const sat_json_iter *it) { return it->pos; }

/* Decodes a STRING value's escapes (\" \\ \/ \b \f \n \r \t \uXXXX with
 * surrogate pairs, to UTF-8; a lone surrogate becomes U+FFFD) into out.
 * Returns the decoded length (never more than v->len), or -1 if out (cap
 * bytes) is too small or an escape is malformed. */
long sat_json_unescape(const sat_json_value *v, char *out, size_t cap);

/* Key comparison against a NUL-terminated literal (raw bytes, no escapes). */
int sat_json_key_is(const sat_json_value *k, const char *lit);

/* Integer from a NUMBER, or from a STRING holding one ("2" as 389 logs
 * target_op). Returns 0 and sets *out, or -1. Fractions are refused. */
int sat_json_to_i64(const sat_json_value *v, int64_t *out);

/* Decimal seconds ("0.000164202", from a STRING or NUMBER) to nanoseconds,
 * digits past the 9th truncated. Returns 0 and sets *ns, or -1. */
int sat_json_seconds_to_ns(const sat_json_value *v, int64_t *ns);

#endif
