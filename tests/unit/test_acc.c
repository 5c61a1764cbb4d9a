/*
 * test_acc.c - accumulators (analyze/acc.c): a record merged from parts
 * equals the record of one pass, field kind by field kind; a keyed table
 * with a cap merged from random splits keeps the same keys, records and
 * "(other)" as one pass over all rows (the property every analyzer's merge
 * stands on); once a part reaches the cap, the merge keeps the same keys
 * and the same total of rows (acc.h says why it cannot do more).
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/acc.h"
#include "check.h"

typedef struct rec {
    uint64_t count, codes[4];
    int64_t sum_ns, max_ns, min_ns;
    uint64_t bits;
    int64_t first_ts;
    int64_t first_conn; /* goes with first_ts */
    int64_t last_ts;
    sat_qsketch etimes;
} rec;

static const sat_acc_field rec_fields[] = {
    SAT_ACC(SAT_ACC_COUNT, rec, count),
    SAT_ACC_N(SAT_ACC_COUNT, rec, codes, 4),
    SAT_ACC(SAT_ACC_SUM, rec, sum_ns),
    SAT_ACC(SAT_ACC_MAX, rec, max_ns),
    SAT_ACC(SAT_ACC_MIN, rec, min_ns),
    SAT_ACC(SAT_ACC_BITS, rec, bits),
    SAT_ACC_X(SAT_ACC_FIRST, rec, first_ts, sizeof(int64_t)),
    SAT_ACC(SAT_ACC_LAST, rec, last_ts),
    SAT_ACC(SAT_ACC_SKETCH, rec, etimes),
};
static const sat_rec_desc rec_desc = {sizeof(rec), rec_fields,
                                      sizeof rec_fields / sizeof rec_fields[0], NULL};

typedef struct row {
    int key;
    int64_t ts, conn, ns;
    int code;
} row;

static void add(rec *r, const row *w)
{
    r->count++;
    r->codes[w->code]++;
    r->sum_ns += w->ns;
    sat_acc_max(&r->max_ns, w->ns);
    sat_acc_min(&r->min_ns, w->ns);
    r->bits |= 1u << w->code;
    sat_acc_first(&r->first_ts, w->ts, &w->conn, sizeof w->conn);
    sat_acc_last(&r->last_ts, w->ts, NULL, 0);
    sat_qsketch_add(&r->etimes, w->ns);
}

static void feed(sat_keyed *k, const row *rows, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        char key[16];
        int n = snprintf(key, sizeof key, "k%d", rows[i].key);
        rec *r = (rec *)sat_keyed_at(k, key, (size_t)n, NULL);
        if (r)
            add(r, &rows[i]);
    }
}

static int same_q(sat_qsketch *a, sat_qsketch *b, double q)
{
    double x = sat_qsketch_quantile(a, q), y = sat_qsketch_quantile(b, q);
    return x == y || (isnan(x) && isnan(y));
}

static int same_rec(rec *a, rec *b)
{

    return a->count == b->count && !memcmp(a->codes, b->codes, sizeof a->codes) &&
           a->sum_ns == b->sum_ns && a->max_ns == b->max_ns && a->min_ns == b->min_ns &&
           a->bits == b->bits && a->first_ts == b->first_ts && a->first_conn == b->first_conn &&
           a->last_ts == b->last_ts && a->etimes.n == b->etimes.n &&
           same_q(&a->etimes, &b->etimes, 0.5) && same_q(&a->etimes, &b->etimes, 0.99);
}

static int same_table(sat_keyed *a, sat_keyed *b)
{
    if (sat_keyed_n(a) != sat_keyed_n(b) || a->folded_rows != b->folded_rows)
        return 0;
    for (size_t i = 0; i < sat_keyed_n(a); i++) {
        if (strcmp(sat_keyed_key(a, i), sat_keyed_key(b, i)) ||
            !same_rec((rec *)sat_keyed_rec(a, i), (rec *)sat_keyed_rec(b, i)))
            return 0;
    }
    return same_rec((rec *)a->other, (rec *)b->other);
}

static int by_count_desc(const void *a, const void *b)
{
    uint64_t x = ((const rec *)a)->count, y = ((const rec *)b)->count;
    return (x < y) - (x > y);
}

int main(void)
{
    enum { NROWS = 5000 };
    row *rows = (row *)calloc(NROWS, sizeof *rows);
    srand(12345);
    for (int i = 0; i < NROWS; i++) {
        /* skewed keys, times not in order (as in a merged set of logs) */
        rows[i].key = rand() % 7 == 0 ? rand() % 400 : rand() % 12;
        rows[i].ts = 1000 + rand() % 100000;
        rows[i].conn = i;
        rows[i].ns = (int64_t)(rand() % 1000000) - 10;
        rows[i].code = rand() % 4;
    }
    for (int trial = 0; trial < 40; trial++) {
        size_t cap = trial % 4 == 0 ? 0 : trial % 4 == 1 ? 1000 : (size_t)(5 + rand() % 100);
        sat_keyed one, merged;
        sat_keyed_init(&one, &rec_desc, cap);
        sat_keyed_init(&merged, &rec_desc, cap);
        feed(&one, rows, 0, NROWS);
        /* 2..5 parts at random cut points */
        size_t nparts = 2 + (size_t)(rand() % 4), at = 0;
        for (size_t p = 0; p < nparts; p++) {
            size_t end = p + 1 == nparts ? NROWS : at + (size_t)(rand() % (NROWS - at + 1));
            sat_keyed part;
            sat_keyed_init(&part, &rec_desc, cap);
            feed(&part, rows, at, end);
            CHECK_EQ_INT(sat_keyed_merge(&merged, &part), SAT_OK);
            sat_keyed_free(&part);
            at = end;
        }
        int capped = one.folded_rows != 0;
        if (!capped) {
            int same = same_table(&one, &merged);
            CHECK(same);
            if (!same)
                fprintf(stderr, "trial %d (cap %zu, %zu parts) differs\n", trial, cap, nparts);
        } else {
            uint64_t rows_one = one.folded_rows, rows_merged = merged.folded_rows;
            CHECK_EQ_INT(sat_keyed_n(&one), sat_keyed_n(&merged));
            for (size_t i = 0; i < sat_keyed_n(&one) && i < sat_keyed_n(&merged); i++) {
                CHECK_EQ_STR(sat_keyed_key(&one, i), sat_keyed_key(&merged, i));
                rows_one += sat_keyed_rows(&one, i);
                rows_merged += sat_keyed_rows(&merged, i);
            }
            CHECK_EQ_INT(rows_one, NROWS);
            CHECK_EQ_INT(rows_merged, NROWS);
        }
        if (cap)
            CHECK(sat_keyed_n(&one) <= cap);
        sat_keyed_free(&one);
        sat_keyed_free(&merged);
    }
    /* sorted: by the order asked, ties by key bytes */
    sat_keyed k;
    sat_keyed_init(&k, &rec_desc, 0);
    feed(&k, rows, 0, NROWS);
    size_t n;
    size_t *idx = sat_keyed_sorted(&k, by_count_desc, &n);
    CHECK(idx != NULL && n == sat_keyed_n(&k));
    for (size_t i = 1; idx && i < n; i++) {
        const rec *a = (const rec *)sat_keyed_rec(&k, idx[i - 1]);
        const rec *b = (const rec *)sat_keyed_rec(&k, idx[i]);
        CHECK(a->count > b->count ||
              (a->count == b->count &&
               strcmp(sat_keyed_key(&k, idx[i - 1]), sat_keyed_key(&k, idx[i])) < 0));
    }
    free(idx);
    sat_keyed_free(&k);
    free(rows);
    return CHECK_DONE();
}
