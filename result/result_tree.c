/*
 * result_tree.c - the result tree every analyzer builds and report/ renders
 * (satscope/result.h): nodes in one arena, children kept in insertion order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/result.h"

struct sat_rnode {
    uint8_t kind; /* sat_rnode_kind */
    const char *key;
    const char *note;
    const char *label; /* how a person reads the key (text forms only) */
    sat_value val;
    sat_rnode *first, *last, *next;
    size_t nchild;
    sat_result *owner;
    const sat_rnode *table; /* a row: the table whose columns it fills */
    sat_col *cols;          /* a table: its columns */
    size_t ncols;
    int64_t window_ns;
    uint8_t compact;
};

struct sat_result {
    sat_arena arena;
    int status;
    const char *command;
    sat_rnode *root;
    const sat_rnode *main_table;
    /* sat_result_tables' answer, rebuilt on each call */
    const sat_rnode **tables;
    const char **paths;
    size_t ntables, tcap, pcap;
};

static void fail(sat_result *r, int st)
{
    if (r && r->status == SAT_OK)
        r->status = st;
}

static const char *copy_str(sat_result *r, const char *s, size_t n)
{
    char *p = sat_arena_strdup(&r->arena, s, n);
    if (!p)
        fail(r, SAT_E_NOMEM);
    return p;
}

static sat_rnode *new_node(sat_result *r, int kind, const char *key)
{
    sat_rnode *n = (sat_rnode *)sat_arena_alloc(&r->arena, sizeof *n);
    if (!n) {
        fail(r, SAT_E_NOMEM);
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->owner = r;
    if (key) {
        n->key = copy_str(r, key, strlen(key));
        if (!n->key)
            return NULL;
    }
    return n;
}

sat_result *sat_result_new(const char *command)
{
    sat_result *r = (sat_result *)calloc(1, sizeof *r);
    if (!r)
        return NULL;
    /* small chunks: a digest holds hundreds of small results (the fleet lines
     * of its quiet days), each of which would otherwise keep 64 KiB */
    r->arena.chunk_size = 8192;
    r->command = command ? copy_str(r, command, strlen(command)) : "";
    r->root = new_node(r, SAT_RN_OBJECT, NULL);
    if (!r->root || !r->command) {
        sat_result_free(r);
        return NULL;
    }
    return r;
}

void sat_result_free(sat_result *r)
{
    if (!r)
        return;
    sat_arena_free(&r->arena);
    free(r->tables);
    free(r->paths);
    free(r);
}

sat_rnode *sat_result_root(sat_result *r) { return r ? r->root : NULL; }
const char *sat_result_command(const sat_result *r) { return r ? r->command : ""; }
int sat_result_status(const sat_result *r) { return r ? r->status : SAT_E_NOMEM; }

/* ---- building ---------------------------------------------------------------- */

/* Appends child to parent, checking that keys are given in objects and
 * rows only. */
static sat_rnode *attach(sat_rnode *parent, int kind, const char *key)
{
    if (!parent)
        return NULL;
    sat_result *r = parent->owner;
    if (parent->kind == SAT_RN_VALUE || parent->kind == SAT_RN_TABLE ||
        (parent->kind == SAT_RN_LIST) != (key == NULL)) {
        fail(r, SAT_E_USAGE);
        return NULL;
    }
    sat_rnode *n = new_node(r, kind, key);
    if (!n)
        return NULL;
    if (parent->last)
        parent->last->next = n;
    else
        parent->first = n;
    parent->last = n;
    parent->nchild++;
    return n;
}

sat_rnode *sat_obj(sat_rnode *parent, const char *key)
{
    return attach(parent, SAT_RN_OBJECT, key);
}

sat_rnode *sat_list(sat_rnode *parent, const char *key)
{
    return attach(parent, SAT_RN_LIST, key);
}

sat_rnode *sat_table(sat_rnode *parent, const char *key, const sat_col *cols, size_t ncols)
{
    sat_rnode *t = attach(parent, SAT_RN_TABLE, key);
    if (!t)
        return NULL;
    sat_result *r = t->owner;
    t->cols = (sat_col *)sat_arena_alloc(&r->arena, (ncols ? ncols : 1) * sizeof *t->cols);
    if (!t->cols) {
        fail(r, SAT_E_NOMEM);
        return NULL;
    }
    for (size_t i = 0; i < ncols; i++) {
        t->cols[i] = cols[i];
        t->cols[i].name = copy_str(r, cols[i].name, strlen(cols[i].name));
        if (cols[i].title)
            t->cols[i].title = copy_str(r, cols[i].title, strlen(cols[i].title));
    }
    t->ncols = ncols;
    return t;
}

void sat_table_set_window(sat_rnode *table, int64_t window_ns)
{
    if (table && table->kind == SAT_RN_TABLE)
        table->window_ns = window_ns;
}

sat_rnode *sat_table_row(sat_rnode *table)
{
    if (!table)
        return NULL;
    sat_result *r = table->owner;
    if (table->kind != SAT_RN_TABLE) {
        fail(r, SAT_E_USAGE);
        return NULL;
    }
    sat_rnode *row = new_node(r, SAT_RN_OBJECT, NULL);
    if (!row)
        return NULL;
    row->table = table;
    if (table->last)
        table->last->next = row;
    else
        table->first = row;
    table->last = row;
    table->nchild++;
    return row;
}

static const sat_col *col_of(const sat_rnode *table, const char *name)
{
    for (size_t i = 0; i < table->ncols; i++)
        if (strcmp(table->cols[i].name, name) == 0)
            return &table->cols[i];
    return NULL;
}

void sat_put_value(sat_rnode *o, const char *key, const sat_value *v)
{
    if (!o)
        return;
    sat_result *r = o->owner;
    if (o->table) {
        /* a row: only its table's columns, in the column's unit */
        const sat_col *c = key ? col_of(o->table, key) : NULL;
        if (!c || c->unit != v->unit) {
            fail(r, SAT_E_USAGE);
            return;
        }
    }
    sat_rnode *n = attach(o, SAT_RN_VALUE, key);
    if (!n)
        return;
    n->val = *v;
    if (v->unit == SAT_UNIT_TEXT && !v->absent) {
        n->val.v.s = copy_str(r, v->v.s, strlen(v->v.s));
        if (!n->val.v.s)
            n->val.absent = 1;
    }
}

static void put(sat_rnode *o, const char *key, int unit, int absent, int decimals,
                sat_value v)
{
    v.unit = (uint8_t)unit;
    v.absent = (uint8_t)(absent != 0);
    v.decimals = (uint8_t)(decimals < 0 ? 0 : decimals > 12 ? 12 : decimals);
    sat_put_value(o, key, &v);
}

void sat_put_text(sat_rnode *o, const char *key, const char *s)
{
    sat_value v = {0};
    v.v.s = s;
    put(o, key, SAT_UNIT_TEXT, s == NULL, 0, v);
}

void sat_put_textn(sat_rnode *o, const char *key, const char *s, size_t n)
{
    if (!o)
        return;
    if (!s) {
        sat_put_text(o, key, NULL);
        return;
    }
    /* the stored text ends at a NUL byte, as the CSV and text forms would */
    const char *z = (const char *)memchr(s, '\0', n);
    const char *c = copy_str(o->owner, s, z ? (size_t)(z - s) : n);
    if (c)
        sat_put_text(o, key, c);
}

void sat_put_count(sat_rnode *o, const char *key, uint64_t x)
{
    sat_value v = {0};
    v.v.u = x;
    put(o, key, SAT_UNIT_COUNT, 0, 0, v);
}

void sat_put_int(sat_rnode *o, const char *key, int64_t x)
{
    sat_value v = {0};
    v.v.i = x;
    put(o, key, SAT_UNIT_INT, 0, 0, v);
}

void sat_put_time(sat_rnode *o, const char *key, int64_t ts_ns)
{
    sat_value v = {0};
    v.v.i = ts_ns;
    put(o, key, SAT_UNIT_TIME, ts_ns == 0, 0, v);
}

static void put_double(sat_rnode *o, const char *key, int unit, double x, int decimals)
{
    sat_value v = {0};
    v.v.d = x;
    put(o, key, unit, !isfinite(x), decimals, v);
}

void sat_put_dur(sat_rnode *o, const char *key, double s, int decimals)
{
    put_double(o, key, SAT_UNIT_DURATION, s, decimals);
}
void sat_put_ratio(sat_rnode *o, const char *key, double x, int decimals)
{
    put_double(o, key, SAT_UNIT_RATIO, x, decimals);
}
void sat_put_rate(sat_rnode *o, const char *key, double x, int decimals)
{
    put_double(o, key, SAT_UNIT_RATE, x, decimals);
}
void sat_put_num(sat_rnode *o, const char *key, double x, int decimals)
{
    put_double(o, key, SAT_UNIT_NUMBER, x, decimals);
}

void sat_put_bytes(sat_rnode *o, const char *key, uint64_t x)
{
    sat_value v = {0};
    v.v.u = x;
    put(o, key, SAT_UNIT_BYTES, 0, 0, v);
}

void sat_put_bool(sat_rnode *o, const char *key, int x)
{
    sat_value v = {0};
    v.v.i = x != 0;
    put(o, key, SAT_UNIT_BOOL, 0, 0, v);
}

void sat_put_absent(sat_rnode *o, const char *key, sat_unit unit)
{
    sat_value v = {0};
    put(o, key, unit, 1, 0, v);
}

void sat_put_note(sat_rnode *o, const char *note)
{
    if (!o || !o->last || !note)
        return;
    o->last->note = copy_str(o->owner, note, strlen(note));
}

void sat_put_label(sat_rnode *o, const char *label)
{
    if (!o || !o->last || !label)
        return;
    o->last->label = copy_str(o->owner, label, strlen(label));
}

void sat_set_compact(sat_rnode *n)
{
    if (n)
        n->compact = 1;
}

int sat_rnode_copy(sat_rnode *parent, const char *key, const sat_rnode *src)
{
    if (!parent || !src)
        return SAT_E_USAGE;
    sat_rnode *n = NULL;
    switch (src->kind) {
    case SAT_RN_VALUE:
        sat_put_value(parent, key, &src->val);
        sat_put_note(parent, src->note);
        sat_put_label(parent, src->label);
        return parent->owner->status;
    case SAT_RN_OBJECT:
        /* a table's row is made by its table (below): its values by column */
        n = parent->kind == SAT_RN_TABLE ? sat_table_row(parent) : sat_obj(parent, key);
        break;
    case SAT_RN_LIST: n = sat_list(parent, key); break;
    case SAT_RN_TABLE:
        n = sat_table(parent, key, src->cols, src->ncols);
        sat_table_set_window(n, src->window_ns);
        break;
    }
    if (!n)
        return parent->owner->status ? parent->owner->status : SAT_E_NOMEM;
    n->compact = src->compact;
    for (const sat_rnode *c = src->first; c; c = c->next)
        if (sat_rnode_copy(n, c->key, c) != SAT_OK)
            break;
    return parent->owner->status;
}

/* ---- reading ----------------------------------------------------------------- */

sat_rnode_kind sat_rnode_kind_of(const sat_rnode *n) { return (sat_rnode_kind)n->kind; }
const char *sat_rnode_key(const sat_rnode *n) { return n->key; }
const char *sat_rnode_note(const sat_rnode *n) { return n->note; }
const char *sat_rnode_label(const sat_rnode *n) { return n->label; }
const sat_rnode *sat_rnode_first(const sat_rnode *n) { return n ? n->first : NULL; }
const sat_rnode *sat_rnode_next(const sat_rnode *n) { return n ? n->next : NULL; }
size_t sat_rnode_count(const sat_rnode *n) { return n ? n->nchild : 0; }
int sat_rnode_compact(const sat_rnode *n) { return n && (n->compact || n->table); }

const sat_value *sat_rnode_value(const sat_rnode *n)
{
    return n && n->kind == SAT_RN_VALUE ? &n->val : NULL;
}

/* The child of o keyed exactly by the len bytes of key. */
static const sat_rnode *child_named(const sat_rnode *o, const char *key, size_t len)
{
    for (const sat_rnode *c = o->kind == SAT_RN_OBJECT ? o->first : NULL; c; c = c->next)
        if (c->key && strlen(c->key) == len && memcmp(c->key, key, len) == 0)
            return c;
    return NULL;
}

const sat_rnode *sat_rnode_get(const sat_rnode *n, const char *path)
{
    while (n && path && *path) {
        /* a key with dots in it (a row's "trigger.onset_ts") is itself first */
        const sat_rnode *whole = child_named(n, path, strlen(path));
        if (whole)
            return whole;
        const char *dot = strchr(path, '.');
        if (!dot)
            return NULL;
        n = child_named(n, path, (size_t)(dot - path));
        path = dot + 1;
    }
    return n;
}

const sat_value *sat_rnode_val(const sat_rnode *n, const char *path)
{
    return sat_rnode_value(sat_rnode_get(n, path));
}

const sat_col *sat_table_cols(const sat_rnode *table, size_t *ncols)
{
    if (!table || table->kind != SAT_RN_TABLE) {
        *ncols = 0;
        return NULL;
    }
    *ncols = table->ncols;
    return table->cols;
}

int64_t sat_table_window(const sat_rnode *table) { return table ? table->window_ns : 0; }

const sat_value *sat_row_get(const sat_rnode *row, const char *name)
{
    for (const sat_rnode *c = row ? row->first : NULL; c; c = c->next)
        if (c->kind == SAT_RN_VALUE && c->key && strcmp(c->key, name) == 0)
            return &c->val;
    return NULL;
}

/* ---- sections ---------------------------------------------------------------- */

static int add_table(sat_result *r, const sat_rnode *t, const char *path)
{
    if (SAT_GROW(r->tables, r->tcap, r->ntables + 1) < 0 ||
        SAT_GROW(r->paths, r->pcap, r->ntables + 1) < 0)
        return SAT_E_NOMEM;
    r->tables[r->ntables] = t;
    r->paths[r->ntables] = path;
    r->ntables++;
    return SAT_OK;
}

static int walk_tables(sat_result *r, const sat_rnode *o, const char *prefix)
{
    for (const sat_rnode *c = o->first; c; c = c->next) {
        if (!c->key || (c->kind != SAT_RN_TABLE && c->kind != SAT_RN_OBJECT))
            continue;
        size_t pl = prefix ? strlen(prefix) + 1 : 0, kl = strlen(c->key);
        char *path = (char *)sat_arena_alloc(&r->arena, pl + kl + 1);
        if (!path)
            return SAT_E_NOMEM;
        if (prefix) {
            memcpy(path, prefix, pl - 1);
            path[pl - 1] = '.';
        }
        memcpy(path + pl, c->key, kl + 1);
        int st = c->kind == SAT_RN_TABLE ? add_table(r, c, path) : walk_tables(r, c, path);
        if (st)
            return st;
    }
    return SAT_OK;
}

const sat_rnode *const *sat_result_tables(sat_result *r, const char *const **paths, size_t *n)
{
    r->ntables = 0;
    if (walk_tables(r, r->root, NULL)) {
        fail(r, SAT_E_NOMEM);
        r->ntables = 0;
    }
    *n = r->ntables;
    if (paths)
        *paths = (const char *const *)r->paths;
    return (const sat_rnode *const *)r->tables;
}

void sat_result_set_main(sat_result *r, const sat_rnode *table)
{
    if (r)
        r->main_table = table;
}

const sat_rnode *sat_result_main(sat_result *r)
{
    if (r->main_table)
        return r->main_table;
    size_t n;
    const sat_rnode *const *t = sat_result_tables(r, NULL, &n);
    return n ? t[0] : NULL;
}

double sat_value_num(const sat_value *v)
{
    if (!v || v->absent)
        return NAN;
    switch (v->unit) {
    case SAT_UNIT_COUNT:
    case SAT_UNIT_BYTES: return (double)v->v.u;
    case SAT_UNIT_INT:
    case SAT_UNIT_TIME: return (double)v->v.i;
    case SAT_UNIT_BOOL: return v->v.i ? 1 : 0;
    case SAT_UNIT_DURATION:
    case SAT_UNIT_RATIO:
    case SAT_UNIT_RATE:
    case SAT_UNIT_NUMBER: return v->v.d;
    default: return NAN;
    }
}
