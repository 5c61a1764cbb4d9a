/*
 * filter_shape.c - the "shape" of an LDAP search filter (RFC 4515 string
 * form): every assertion value becomes '*', attribute names and matching-rule
 * parts are lower-cased, operators (=, ~=, >=, <=, extensible :dn:rule:=) and
 * the &, |, ! nesting are kept, whitespace outside values is dropped. Filters
 * that differ only in their values share a shape, which is what an operator
 * groups slow searches by.
 *
 * A single forward scan, no recursion and no allocation: a malformed filter
 * (unbalanced parentheses, missing '=') is shaped as far as it goes, and the
 * scan never reads past len. Output is snprintf-like (see parse.h).
 */
#include "satscope/parse.h"

typedef struct shape_out {
    char *out;
    size_t cap, n;
} shape_out;

static inline void put(shape_out *o, char c)
{
    if (o->cap && o->n < o->cap - 1)
        o->out[o->n] = c;
    o->n++;
}

static inline int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t sat_filter_shape(const char *f, size_t len, char *out, size_t cap)
{
    shape_out o = {out, cap, 0};
    size_t i = 0;
    while (i < len) {
        char c = f[i];
        if (is_ws(c)) {
            i++;
            continue;
        }
        if (c == '(' || c == ')' || c == '&' || c == '|' || c == '!') {
            put(&o, c);
            i++;
            continue;
        }
        /* an item: attribute description up to '=' (the operator's first
         * char, if any, is just before it) */
        size_t eq = i;
        while (eq < len && f[eq] != '=' && f[eq] != '(' && f[eq] != ')')
            eq++;
        for (size_t k = i; k < eq; k++) {
            char a = f[k];
            if (is_ws(a))
                continue;
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            put(&o, a);
        }
        i = eq;
        if (i >= len || f[i] != '=')
            continue; /* malformed: no '=' before ')' or the end */
        put(&o, '=');
        i++;
        /* the value: up to the first unescaped ')' */
        while (i < len && f[i] != ')') {
            if (f[i] == '\\' && i + 1 < len)
                i++;
            i++;
        }
        put(&o, '*');
    }
    if (cap)
        out[o.n < cap ? o.n : cap - 1] = '\0';
    return o.n;
}
