/*
 * test_row_strings.c - every string of every row survives wherever a row
 * outlives the buffers its strings point into: the pipe between threads
 * (collect/sink_pipe.c), a parsed chunk's rows kept until they are joined
 * (collect/parse_parallel.c) and sat_table_row_copy. Each of them finds the
 * string fields in the trace schema (sat_table_str_offsets), so the schema is
 * checked against event.h too: against a list of every sat_str member written
 * here, and, needing no list, by the rule that every field of a row struct
 * is a column of its table.
 *
 * For every table, a row whose strings point into a scratch buffer goes
 * through each copy, the scratch buffer is overwritten, and every string of
 * the copy must still read its own bytes: a field the copy misses fails here.
 */
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "collect/parse_parallel.h"
#include "satscope/collect.h"
#include "satscope/trace.h"

/* ---- the schema against event.h ------------------------------------------------- */

#define END SIZE_MAX
#define O(T, f) offsetof(T, f)

typedef struct expect {
    int table;
    size_t size;
    size_t str[24]; /* offsetof of every sat_str member, END after the last */
} expect;

/* Written from event.h: a sat_str member added there belongs here too, and in
 * schema.c (check_covered below catches the latter even when this list was
 * forgotten). */
static const expect expected[] = {
    {SAT_TABLE_SOURCE, sizeof(sat_source),
     {O(sat_source, path), O(sat_source, kind), O(sat_source, format),
      O(sat_source, compression), O(sat_source, server_name), O(sat_source, server_version),
      END}},
    {SAT_TABLE_REJECT, sizeof(sat_reject),
     {O(sat_reject, reason), O(sat_reject, excerpt), END}},
    {SAT_TABLE_LDAP_OP, sizeof(sat_ldap_op),
     {O(sat_ldap_op, dn), O(sat_ldap_op, filter), O(sat_ldap_op, filter_shape),
      O(sat_ldap_op, attrs), O(sat_ldap_op, method), O(sat_ldap_op, extra),
      O(sat_ldap_op, bind_dn), O(sat_ldap_op, client_ip), O(sat_ldap_op, text),
      O(sat_ldap_op, details), O(sat_ldap_op, sid), O(sat_ldap_op, entry_dns), END}},
    {SAT_TABLE_LDAP_CONN, sizeof(sat_ldap_conn),
     {O(sat_ldap_conn, client_ip), O(sat_ldap_conn, server_addr),
      O(sat_ldap_conn, tls_version), O(sat_ldap_conn, tls_cipher),
      O(sat_ldap_conn, client_cert), O(sat_ldap_conn, close_reason),
      O(sat_ldap_conn, bind_dn), END}},
    {SAT_TABLE_TCP_CONN, sizeof(sat_tcp_conn),
     {O(sat_tcp_conn, client_ip), O(sat_tcp_conn, server_ip), END}},
    {SAT_TABLE_TLS_HS, sizeof(sat_tls_hs),
     {O(sat_tls_hs, client_ip), O(sat_tls_hs, server_ip), O(sat_tls_hs, sni), END}},
    {SAT_TABLE_CRASH, sizeof(sat_crash),
     {O(sat_crash, host), O(sat_crash, exe), O(sat_crash, command), O(sat_crash, build_id),
      O(sat_crash, fingerprint), O(sat_crash, signature), O(sat_crash, build_key),
      O(sat_crash, missing), END}},
    {SAT_TABLE_FRAME, sizeof(sat_frame),
     {O(sat_frame, module), O(sat_frame, build_id), O(sat_frame, function),
      O(sat_frame, file), END}},
    {SAT_TABLE_HTTP_REQ, sizeof(sat_http_req),
     {O(sat_http_req, client_ip), O(sat_http_req, method), O(sat_http_req, path),
      O(sat_http_req, path_template), O(sat_http_req, protocol),
      O(sat_http_req, tls_protocol), O(sat_http_req, vhost), O(sat_http_req, user),
      O(sat_http_req, user_agent), END}},
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static int listed(const expect *e, size_t off)
{
    for (size_t i = 0; e->str[i] != END; i++)
        if (e->str[i] == off)
            return 1;
    return 0;
}

static int in_offsets(const uint16_t *off, size_t n, size_t want)
{
    for (size_t i = 0; i < n; i++)
        if (off[i] == want)
            return 1;
    return 0;
}

static void check_against_list(void)
{
    CHECK_EQ_INT(NEXPECTED, SAT_TABLE__COUNT);
    for (size_t k = 0; k < NEXPECTED; k++) {
        const expect *e = &expected[k];
        const sat_table_def *def = sat_table_get(e->table);
        CHECK(def != NULL);
        if (!def)
            continue;
        CHECK_EQ_INT(def->id, e->table);
        CHECK_EQ_INT(def->row_size, e->size);
        size_t n;
        const uint16_t *off = sat_table_str_offsets(e->table, &n);
        CHECK(off != NULL);
        size_t nlisted = 0;
        while (e->str[nlisted] != END)
            nlisted++;
        CHECK_EQ_INT(n, nlisted);
        for (size_t i = 0; i < nlisted; i++)
            if (!in_offsets(off, n, e->str[i])) {
                fprintf(stderr, "%s: the sat_str at offset %zu has no schema entry\n",
                        def->name, e->str[i]);
                CHECK(0);
            }
        for (size_t i = 0; i < n; i++)
            if (!listed(e, off[i])) {
                fprintf(stderr, "%s: the schema's string at offset %u is not in expected[] "
                                "(event.h's sat_str members)\n",
                        def->name, off[i]);
                CHECK(0);
            }
        /* the accessor gives exactly the STR columns, in column order */
        size_t j = 0;
        for (size_t c = 0; c < def->ncolumns; c++)
            if (def->columns[c].type == SAT_COL_STR) {
                CHECK(j < n && off[j] == def->columns[c].offset);
                j++;
            }
        CHECK_EQ_INT(j, n);
    }
    size_t n = 99;
    CHECK(sat_table_str_offsets(-1, &n) == NULL && n == 0);
    n = 99;
    CHECK(sat_table_str_offsets(SAT_TABLE__COUNT, &n) == NULL && n == 0);
}

static size_t col_width(uint8_t type)
{
    switch (type) {
    case SAT_COL_TS:
    case SAT_COL_I64: return 8;
    case SAT_COL_I32: return 4;
    case SAT_COL_U16: return 2;
    case SAT_COL_U8: return 1;
    case SAT_COL_STR: return sizeof(sat_str);
    default: return 0;
    }
}

/* Every field of a row struct is a column (schema.c says so), so every 8-byte
 * word of the struct holds a byte of some column: padding never fills one
 * (it is shorter than the alignment of what follows it, at most 8). A sat_str
 * of event.h that schema.c lacks leaves its pointer's word bare, whatever the
 * list above says. Columns must not overlap either. */
static void check_covered(void)
{
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *def = sat_table_get(t);
        if (!def)
            continue;
        unsigned char *used = calloc(def->row_size, 1);
        for (size_t c = 0; c < def->ncolumns; c++) {
            size_t off = def->columns[c].offset, w = col_width(def->columns[c].type);
            CHECK(w > 0 && off + w <= def->row_size);
            if (!w || off + w > def->row_size)
                continue;
            if (def->columns[c].type == SAT_COL_STR)
                CHECK(off % _Alignof(sat_str) == 0);
            for (size_t b = off; b < off + w; b++) {
                if (used[b]) {
                    fprintf(stderr, "%s.%s overlaps another column\n", def->name,
                            def->columns[c].name);
                    CHECK(0);
                }
                used[b] = 1;
            }
        }
        for (size_t word = 0; word + 8 <= def->row_size; word += 8) {
            int any = 0;
            for (size_t b = word; b < word + 8; b++)
                any |= used[b];
            if (!any) {
                fprintf(stderr, "%s: bytes %zu..%zu of the row belong to no column: a field "
                                "of event.h missing from trace/schema.c?\n",
                        def->name, word, word + 7);
                CHECK(0);
            }
        }
        free(used);
    }
}

/* ---- rows whose strings point into a scratch buffer ------------------------------- */

#define SCRATCH 8192
#define VARIANTS 3

/* The text of string j of table t's row in variant v, or NULL for absent:
 * variant 0 every string present and distinct, 1 absent and "" in turns (the
 * two must stay apart), 2 longer strings. */
static const char *str_text(int t, size_t j, int v, char *buf, size_t cap)
{
    if (v == 1) {
        if (j % 2 == 0)
            return NULL;
        buf[0] = '\0';
        return buf;
    }
    if (v == 2)
        snprintf(buf, cap, "%s field %zu: uid=u%zu,ou=people,dc=example,dc=com (%d)",
                 sat_table_get(t)->name, j, j * 7919, t);
    else
        snprintf(buf, cap, "t%d.s%zu", t, j);
    return buf;
}

/* Table t's row for variant v: its numbers a byte pattern, its strings the
 * texts above laid out in scratch. */
static void make_row(int t, int v, void *row, char *scratch)
{
    const sat_table_def *def = sat_table_get(t);
    unsigned char *b = row;
    for (size_t i = 0; i < def->row_size; i++)
        b[i] = (unsigned char)(i * 31 + (size_t)t * 7 + (size_t)v);
    size_t n;
    const uint16_t *off = sat_table_str_offsets(t, &n);
    size_t used = 0;
    for (size_t j = 0; j < n; j++) {
        char text[256];
        const char *s = str_text(t, j, v, text, sizeof text);
        sat_str *dst = (sat_str *)(void *)(b + off[j]);
        if (!s) {
            *dst = SAT_STR_NONE;
            continue;
        }
        size_t len = strlen(s);
        memcpy(scratch + used, s, len);
        *dst = sat_str_make(scratch + used, len);
        used += len + 1; /* a gap: no string reads its neighbour's bytes */
    }
}

/* The strings of `got` read what make_row wrote, without pointing into the
 * scratch buffer; the other bytes of the row are the pattern's. Returns the
 * number of differences (and says which). */
static int row_differs(int t, int v, const void *got, const char *scratch, const char *how)
{
    const sat_table_def *def = sat_table_get(t);
    unsigned char want[1024], have[1024];
    char wscratch[SCRATCH];
    if (def->row_size > sizeof want)
        return 1;
    make_row(t, v, want, wscratch);
    memcpy(have, got, def->row_size);
    size_t n;
    const uint16_t *off = sat_table_str_offsets(t, &n);
    int bad = 0;
    for (size_t j = 0; j < n; j++) {
        sat_str w, h;
        memcpy(&w, want + off[j], sizeof w);
        memcpy(&h, have + off[j], sizeof h);
        int same = (w.ptr == NULL) == (h.ptr == NULL) && sat_str_eq(w, h);
        if (h.ptr && h.ptr >= scratch && h.ptr < scratch + SCRATCH)
            same = 0; /* still the producer's bytes: not copied */
        if (!same) {
            const char *col = "?";
            for (size_t c = 0; c < def->ncolumns; c++)
                if (def->columns[c].offset == off[j])
                    col = def->columns[c].name;
            fprintf(stderr, "%s: %s.%s (variant %d) not copied: reads \"%.*s\"\n", how,
                    def->name, col, v, h.ptr ? (int)h.len : 6, h.ptr ? h.ptr : "absent");
            bad++;
        }
        /* sat_str's padding may hold anything once assigned */
        memset(want + off[j], 0, sizeof(sat_str));
        memset(have + off[j], 0, sizeof(sat_str));
    }
    if (memcmp(want, have, def->row_size) != 0) {
        fprintf(stderr, "%s: %s (variant %d): the numbers changed\n", how, def->name, v);
        bad++;
    }
    return bad;
}

/* ---- through the pipe between threads ---------------------------------------------- */

typedef struct pipe_seen {
    int next_t, next_v; /* the row due next */
    const char *scratch;
    int rows, bad;
} pipe_seen;

static int on_piped(void *ctx, int table, const void *row)
{
    pipe_seen *s = ctx;
    if (table != s->next_t)
        s->bad++;
    else
        s->bad += row_differs(table, s->next_v, row, s->scratch, "pipe");
    s->rows++;
    if (++s->next_v == VARIANTS) {
        s->next_v = 0;
        s->next_t++;
    }
    return SAT_OK;
}

static void check_pipe(void)
{
    static char scratch[SCRATCH];
    pipe_seen s;
    memset(&s, 0, sizeof s);
    s.scratch = scratch;
    sat_event_sink inner = {&s, SAT_TABLES_ALL, on_piped};
    sat_sink_pipe *p = sat_sink_pipe_create(&inner);
    CHECK(p != NULL);
    if (!p)
        return;
    sat_event_sink in = sat_sink_pipe_sink(p);
    int rc = SAT_OK;
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        for (int v = 0; v < VARIANTS; v++) {
            _Alignas(max_align_t) unsigned char row[1024];
            make_row(t, v, row, scratch);
            if (rc == SAT_OK)
                rc = sat_sink_emit(&in, t, row);
            /* the row was borrowed: its strings' bytes are gone now, and
             * the row itself too */
            memset(scratch, '#', sizeof scratch);
            memset(row, 0xa5, sizeof row);
        }
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(sat_sink_pipe_close(p), SAT_OK);
    CHECK_EQ_INT(s.rows, SAT_TABLE__COUNT * VARIANTS);
    CHECK_EQ_INT(s.bad, 0);
}

/* ---- a parsed chunk's rows (parse_parallel.c) and sat_table_row_copy ----------------- */

static void check_keep(void)
{
    /* apart: "" at one past a chunk's end counts as the chunk's */
    static char bufs[3][SCRATCH];
    char *scratch = bufs[0], *chunk = bufs[2];
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        for (int v = 0; v < VARIANTS; v++) {
            sat_arena arena;
            memset(&arena, 0, sizeof arena);
            _Alignas(max_align_t) unsigned char row[1024];
            make_row(t, v, row, scratch);
            CHECK_EQ_INT(sat_pp_keep_strings(t, row, chunk, SCRATCH, &arena), SAT_OK);
            memset(scratch, '#', SCRATCH);
            CHECK_EQ_INT(row_differs(t, v, row, scratch, "chunk"), 0);

            /* strings into the chunk's own bytes live as long as its rows:
             * they are left where they are */
            make_row(t, v, row, chunk);
            CHECK_EQ_INT(sat_pp_keep_strings(t, row, chunk, SCRATCH, &arena), SAT_OK);
            size_t n;
            const uint16_t *off = sat_table_str_offsets(t, &n);
            for (size_t j = 0; j < n; j++) {
                const sat_str *s = (const sat_str *)(const void *)(row + off[j]);
                CHECK(!s->ptr || (s->ptr >= chunk && s->ptr < chunk + SCRATCH));
            }
            sat_arena_free(&arena);

            make_row(t, v, row, scratch);
            void *copy = sat_table_row_copy(t, row);
            CHECK(copy != NULL);
            memset(scratch, '#', SCRATCH);
            if (copy)
                CHECK_EQ_INT(row_differs(t, v, copy, scratch, "sat_table_row_copy"), 0);
            free(copy);
        }
    sat_arena arena;
    memset(&arena, 0, sizeof arena);
    unsigned char row[16] = {0};
    CHECK_EQ_INT(sat_pp_keep_strings(SAT_TABLE__COUNT, row, chunk, SCRATCH, &arena),
                 SAT_E_USAGE);
    sat_arena_free(&arena);
}

int main(void)
{
    for (int t = 0; t < SAT_TABLE__COUNT; t++) /* the rows below fit 1 KiB */
        CHECK(sat_table_get(t) && sat_table_get(t)->row_size <= 1024);
    check_against_list();
    check_covered();
    check_pipe();
    check_keep();
    return CHECK_DONE();
}
