/*
 * result_read.c - the typed readers of results (satscope/result.h "typed
 * readers"): a value of the type asked at a path, or the caller's stand-in
 * when it is not there, absent, or of a unit that does not read as that
 * type. One rule, so that no reader of results keeps getters of its own.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "satscope/result.h"

/* The value at path when present (not absent), else NULL. */
static const sat_value *present(const sat_rnode *n, const char *path)
{
    const sat_value *v = n ? sat_rnode_val(n, path) : NULL;
    return v && !v->absent ? v : NULL;
}

int sat_get_has(const sat_rnode *n, const char *path) { return present(n, path) != NULL; }

uint64_t sat_get_count(const sat_rnode *n, const char *path, uint64_t absent)
{
    const sat_value *v = present(n, path);
    if (!v)
        return absent;
    if (v->unit == SAT_UNIT_COUNT || v->unit == SAT_UNIT_BYTES)
        return v->v.u;
    if (v->unit == SAT_UNIT_INT && v->v.i >= 0)
        return (uint64_t)v->v.i;
    return absent;
}

int64_t sat_get_int(const sat_rnode *n, const char *path, int64_t absent)
{
    const sat_value *v = present(n, path);
    if (!v)
        return absent;
    if (v->unit == SAT_UNIT_INT || v->unit == SAT_UNIT_TIME)
        return v->v.i;
    if (v->unit == SAT_UNIT_COUNT && v->v.u <= (uint64_t)INT64_MAX)
        return (int64_t)v->v.u;
    return absent;
}

double sat_get_num(const sat_rnode *n, const char *path, double absent)
{
    double x = sat_value_num(present(n, path));
    return isnan(x) ? absent : x;
}

double sat_get_dur(const sat_rnode *n, const char *path, double absent)
{
    const sat_value *v = present(n, path);
    return v && v->unit == SAT_UNIT_DURATION ? v->v.d : absent;
}

int64_t sat_get_time(const sat_rnode *n, const char *path, int64_t absent)
{
    const sat_value *v = present(n, path);
    return v && (v->unit == SAT_UNIT_TIME || v->unit == SAT_UNIT_INT) ? v->v.i : absent;
}

const char *sat_get_text(const sat_rnode *n, const char *path, const char *absent)
{
    const sat_value *v = present(n, path);
    return v && v->unit == SAT_UNIT_TEXT ? v->v.s : absent;
}

int sat_get_bool(const sat_rnode *n, const char *path, int absent)
{
    const sat_value *v = present(n, path);
    return v && v->unit == SAT_UNIT_BOOL ? v->v.i != 0 : absent;
}

static const sat_rnode *of_kind(const sat_rnode *n, const char *path, sat_rnode_kind k)
{
    const sat_rnode *c = n ? sat_rnode_get(n, path) : NULL;
    return c && sat_rnode_kind_of(c) == k ? c : NULL;
}

const sat_rnode *sat_get_table(const sat_rnode *n, const char *path)
{
    return of_kind(n, path, SAT_RN_TABLE);
}

const sat_rnode *sat_get_list(const sat_rnode *n, const char *path)
{
    return of_kind(n, path, SAT_RN_LIST);
}

const sat_rnode *sat_get_obj(const sat_rnode *n, const char *path)
{
    return of_kind(n, path, SAT_RN_OBJECT);
}

const char *sat_get_key(const sat_rnode *row, const char *col, char *buf, size_t n)
{
    const sat_value *v = present(row, col);
    if (!v)
        snprintf(buf, n, "-");
    else if (v->unit == SAT_UNIT_TEXT)
        snprintf(buf, n, "%s", v->v.s);
    else if (v->unit == SAT_UNIT_COUNT || v->unit == SAT_UNIT_BYTES)
        snprintf(buf, n, "%llu", (unsigned long long)v->v.u);
    else if (v->unit == SAT_UNIT_INT || v->unit == SAT_UNIT_TIME)
        snprintf(buf, n, "%lld", (long long)v->v.i);
    else
        snprintf(buf, n, "%.0f", sat_value_num(v));
    return buf;
}

const sat_rnode *sat_get_row(const sat_rnode *table, const char *col, const char *key)
{
    char buf[512];
    for (const sat_rnode *r = sat_rnode_first(table); r && key; r = sat_rnode_next(r)) {
        const char *t = sat_get_text(r, col, NULL);
        if (t ? !strcmp(t, key) : !strcmp(sat_get_key(r, col, buf, sizeof buf), key))
            return r;
    }
    return NULL;
}

int sat_put_copy(sat_rnode *o, const char *key, const sat_rnode *src, const char *path)
{
    const sat_value *v = src ? sat_rnode_val(src, path) : NULL;
    if (!v)
        return 0;
    sat_put_value(o, key, v);
    return 1;
}

sat_result *sat_result_set_get(const sat_result_set *s, const char *name)
{
    if (!s || !name)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->results[i] && strcmp(sat_result_command(s->results[i]), name) == 0)
            return s->results[i];
    return NULL;
}

const sat_rnode *sat_result_set_root(const sat_result_set *s, const char *name)
{
    sat_result *r = sat_result_set_get(s, name);
    return r ? sat_result_root(r) : NULL;
}
