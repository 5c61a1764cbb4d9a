/*
 * result.h - the one shape of every analyzer's results (DESIGN.md "Results"):
 * a tree of named sections that report/ renders without knowing which
 * analyzer built it (one JSON writer, one CSV writer, one text table printer).
 *
 * A result is a tree of nodes, kept in the order they were added:
 *  - an object (a summary: named values, each with a unit and an optional
 *    note, and named child sections),
 *  - a list (values or objects without names),
 *  - a table: a name, columns with a type/unit, rows. A time series is a
 *    table whose first column is a time and that says its window length.
 * Values carry a unit, which fixes how each form writes them (docs/output.md):
 *
 *   unit       C value     JSON                      CSV            text
 *   TEXT       const char* string                    field          as is
 *   COUNT      uint64_t    integer                   integer        integer
 *   INT        int64_t     integer (ids, codes)      integer        integer
 *   TIME       ns (int64)  RFC 3339 UTC string       same           UTC time
 *   DURATION   seconds     number, key ends _s       number         161 us, 4.46 s
 *   BYTES      uint64_t    integer, key ends _bytes  integer        1.23 MiB
 *   RATIO      double 0..1 number                    number         45.5%
 *   RATE       per second  number                    number         3 significant
 *   NUMBER     double      number                    number         3 significant
 *   BOOL       int         true/false                true/false     yes/no
 *
 * Absent is NULL in JSON, an empty CSV field and "-" in text; a double that
 * is not finite and a TIME of 0 are absent too.
 *
 * Builders never fail loudly: out of memory sets a sticky error that
 * sat_result_status() returns (check it once, before rendering); builder
 * calls on a NULL node do nothing, so a failed allocation does not need a
 * check at every call. Keys and texts are copied into the result's arena.
 * Ownership: the result owns every node; nodes live until sat_result_free.
 */
#ifndef SATSCOPE_RESULT_H
#define SATSCOPE_RESULT_H

#include "satscope/base.h"

typedef enum sat_unit {
    SAT_UNIT_NONE = 0, /* (nodes that are not values) */
    SAT_UNIT_TEXT,
    SAT_UNIT_COUNT,
    SAT_UNIT_INT,
    SAT_UNIT_TIME,
    SAT_UNIT_DURATION,
    SAT_UNIT_BYTES,
    SAT_UNIT_RATIO,
    SAT_UNIT_RATE,
    SAT_UNIT_NUMBER,
    SAT_UNIT_BOOL
} sat_unit;

typedef enum sat_rnode_kind {
    SAT_RN_VALUE,
    SAT_RN_OBJECT,
    SAT_RN_LIST,
    SAT_RN_TABLE
} sat_rnode_kind;

typedef struct sat_value {
    uint8_t unit;     /* sat_unit */
    uint8_t absent;   /* 1: null / empty / "-" */
    uint8_t decimals; /* JSON and CSV digits after the point (doubles) */
    union {
        const char *s;
        uint64_t u;
        int64_t i;
        double d;
    } v;
} sat_value;

/* A table column. name is the JSON key and the CSV header; a name with a dot
 * ("sender.pid") is a field of a nested object in JSON ({"sender": {"pid":
 * ..}}) and keeps its dotted name in CSV. title is the text header (NULL:
 * name). */
typedef struct sat_col {
    const char *name;
    uint8_t unit;     /* sat_unit */
    uint8_t decimals; /* JSON/CSV digits for doubles */
    const char *title;
} sat_col;

typedef struct sat_rnode sat_rnode; /* opaque */
typedef struct sat_result sat_result;

/* A new result for `command` ("etime"): its root is an empty object. NULL
 * when out of memory. */
sat_result *sat_result_new(const char *command);
void sat_result_free(sat_result *r); /* NULL ok */
sat_rnode *sat_result_root(sat_result *r);
const char *sat_result_command(const sat_result *r);
/* SAT_OK or SAT_E_NOMEM (sticky, from any builder call). */
int sat_result_status(const sat_result *r);

/* ---- building ------------------------------------------------------------------
 * In an object, key names the child; in a list, key must be NULL. A row of
 * a table is an object (sat_table_row) whose values are put by column name:
 * the column gives the unit, so put a value of the column's unit. */
sat_rnode *sat_obj(sat_rnode *parent, const char *key);
sat_rnode *sat_list(sat_rnode *parent, const char *key);
/* cols are copied. */
sat_rnode *sat_table(sat_rnode *parent, const char *key, const sat_col *cols, size_t ncols);
/* Makes a table a time series: its first column is the window's start
 * (TIME) and each window is window_ns long (charts and text use it; the
 * document puts its window length as a value where it wants it). */
void sat_table_set_window(sat_rnode *table, int64_t window_ns);
sat_rnode *sat_table_row(sat_rnode *table);

void sat_put_text(sat_rnode *o, const char *key, const char *s); /* NULL: absent */
void sat_put_textn(sat_rnode *o, const char *key, const char *s, size_t n);
void sat_put_count(sat_rnode *o, const char *key, uint64_t v);
void sat_put_int(sat_rnode *o, const char *key, int64_t v);
void sat_put_time(sat_rnode *o, const char *key, int64_t ts_ns); /* 0: absent */
void sat_put_dur(sat_rnode *o, const char *key, double s, int decimals); /* NAN: absent */
void sat_put_bytes(sat_rnode *o, const char *key, uint64_t v);
void sat_put_ratio(sat_rnode *o, const char *key, double v, int decimals);
void sat_put_rate(sat_rnode *o, const char *key, double v, int decimals);
void sat_put_num(sat_rnode *o, const char *key, double v, int decimals);
void sat_put_bool(sat_rnode *o, const char *key, int v);
/* The value at path of src (an object's path or a row's column) put into o
 * under key, as it is: its unit, absent or not (no note). Nothing when src
 * has no value there. 1 when put. */
int sat_put_copy(sat_rnode *o, const char *key, const sat_rnode *src, const char *path);
/* A copy of src (a value with its note and label, or an object, list or
 * table with everything under it) put into parent under key (NULL in a list
 * or a table, whose row it then is). SAT_OK, or the result's failure. */
int sat_rnode_copy(sat_rnode *parent, const char *key, const sat_rnode *src);
/* An absent value of `unit`. */
void sat_put_absent(sat_rnode *o, const char *key, sat_unit unit);
/* Any value (the typed puts above are shorthands). */
void sat_put_value(sat_rnode *o, const char *key, const sat_value *v);
/* A note on the last value put in o (text shows it beside the value). */
void sat_put_note(sat_rnode *o, const char *note);
/* The label a person reads for the last value put in o ("failed after SH"),
 * in the text, HTML and PDF forms; JSON and CSV keep the key. Without one,
 * the forms read the key as words (sat_key_label). */
void sat_put_label(sat_rnode *o, const char *label);

/* A layout hint for JSON: write this object or list on one line (short maps
 * such as counts by close code). Table rows are always on one line. */
void sat_set_compact(sat_rnode *n);

/* ---- reading ---------------------------------------------------------------------
 * Walking the tree: */
sat_rnode_kind sat_rnode_kind_of(const sat_rnode *n);
const char *sat_rnode_key(const sat_rnode *n); /* NULL in lists */
const sat_value *sat_rnode_value(const sat_rnode *n); /* SAT_RN_VALUE only, else NULL */
const char *sat_rnode_note(const sat_rnode *n);       /* NULL if none */
const char *sat_rnode_label(const sat_rnode *n);      /* NULL if none */
/* Children in the order added (objects, lists, a table's rows). */
const sat_rnode *sat_rnode_first(const sat_rnode *n);
const sat_rnode *sat_rnode_next(const sat_rnode *n);
size_t sat_rnode_count(const sat_rnode *n);
int sat_rnode_compact(const sat_rnode *n);
/* The child of an object named key (first match), NULL if none. A dotted
 * path ("tcp.by_end") walks objects; a key that holds dots itself (a row's
 * column "trigger.onset_ts") is found whole first. */
const sat_rnode *sat_rnode_get(const sat_rnode *n, const char *path);
/* The value at path (sat_rnode_get), NULL if there is none or it is no value. */
const sat_value *sat_rnode_val(const sat_rnode *n, const char *path);
/* A value as a double: counts, bytes, ints, bools (0/1), durations, ratios,
 * rates and numbers as they are, a TIME in nanoseconds since the epoch; NAN
 * when absent, NULL or text. */
double sat_value_num(const sat_value *v);
/* Tables. */
const sat_col *sat_table_cols(const sat_rnode *table, size_t *ncols);
int64_t sat_table_window(const sat_rnode *table); /* 0 if not a series */
/* The value of column `name` in a row, NULL if the row has none. */
const sat_value *sat_row_get(const sat_rnode *row, const char *name);

/* ---- typed readers (result/result_read.c) -----------------------------------------
 * One rule for absent values: a reader returns the value at `path` of n (an
 * object's dotted path, or a row's column by name) when it is there, is not
 * absent and its unit reads as the type asked; otherwise it returns `absent`,
 * the caller's stand-in (NAN, 0, NULL, -1: whatever "not known" is where it is
 * used). sat_get_has tells the two apart when the stand-in could be a value.
 *   count  COUNT, BYTES, an INT >= 0
 *   int    INT, TIME, a COUNT up to INT64_MAX
 *   num    every numeric unit as sat_value_num reads it (durations in seconds,
 *          ratios 0..1, bools 0/1, a TIME in ns)
 *   dur    DURATION, in seconds
 *   time   TIME (or INT), ns since the epoch
 *   text   TEXT
 *   bool   BOOL, 0 or 1 */
int sat_get_has(const sat_rnode *n, const char *path);
uint64_t sat_get_count(const sat_rnode *n, const char *path, uint64_t absent);
int64_t sat_get_int(const sat_rnode *n, const char *path, int64_t absent);
double sat_get_num(const sat_rnode *n, const char *path, double absent);
double sat_get_dur(const sat_rnode *n, const char *path, double absent);
int64_t sat_get_time(const sat_rnode *n, const char *path, int64_t absent);
const char *sat_get_text(const sat_rnode *n, const char *path, const char *absent);
int sat_get_bool(const sat_rnode *n, const char *path, int absent);
/* The table, list or object at path; NULL when there is none of that kind. */
const sat_rnode *sat_get_table(const sat_rnode *n, const char *path);
const sat_rnode *sat_get_list(const sat_rnode *n, const char *path);
const sat_rnode *sat_get_obj(const sat_rnode *n, const char *path);
/* A row's key column as text: a text as it is, a count or an integer in
 * decimal, "-" when absent. buf >= 32; returns buf. */
const char *sat_get_key(const sat_rnode *row, const char *col, char *buf, size_t n);
/* The first row of table whose key column col reads as key (sat_get_key),
 * NULL if none. */
const sat_rnode *sat_get_row(const sat_rnode *table, const char *col, const char *key);

/* A set of finished analyzers' results, by analyzer name (the report builds
 * one per server and day; `satscope chart` one for its inputs). Borrowed. */
typedef struct sat_result_set {
    sat_result *const *results; /* borrowed */
    size_t n;
} sat_result_set;
/* The result of analyzer `name` in the set, NULL if none. */
sat_result *sat_result_set_get(const sat_result_set *s, const char *name);
/* Its root, NULL if none. */
const sat_rnode *sat_result_set_root(const sat_result_set *s, const char *name);

/* Every table of the result that is a section (a table reached from the root
 * through objects only, not inside a row or a list), in document order, with
 * its path ("ops", "tcp.windows"); *n set. The array is owned by r. */
const sat_rnode *const *sat_result_tables(sat_result *r, const char *const **paths, size_t *n);
/* The table `--csv` alone prints (default: the first of sat_result_tables). */
void sat_result_set_main(sat_result *r, const sat_rnode *table);
const sat_rnode *sat_result_main(sat_result *r);

#endif /* SATSCOPE_RESULT_H */
