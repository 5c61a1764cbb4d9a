/*
 * sections.h - (internal to report/) each analyzer's sections: what its
 * command prints and what a report shows of it, built once from its result
 * (satscope/result.h) into a document (report_doc.h). `satscope storms`
 * prints every section of the storms builder; the post-mortem embeds the
 * same sections (or those it names) inside its own. A builder reads the
 * result with the typed readers only, writes times in sentences on the
 * context's clock (a command's RFC 3339 UTC, a report's local time), and
 * says in words what a signal, a kind or a figure means in one place: its
 * own file (the storms builder's words are the post-mortem's too).
 *
 * Registering a builder: report/sections/section_<analyzer>.c defines a
 * const sec_builder; one line in the table of sections.c.
 */
#ifndef SAT_REPORT_SECTIONS_H
#define SAT_REPORT_SECTIONS_H

#include "doc_int.h"

typedef struct sec_ctx {
    rd_clock clock;          /* times in sentences and tables */
    const char *const *only; /* the ids of the builder's sections wanted (those it
                                writes into top), NULL-ended, "storm-*" any id
                                with that start; NULL: all */
    const sat_rnode *top;    /* where build writes its sections (its parent) */
} sec_ctx;

typedef struct sec_builder {
    const char *analyzer; /* "storms" */
    /* One line of what the result holds ("1 storm in A .. B"): the command's
     * first line after "satscope NAME: ". */
    void (*lead)(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n);
    /* Writes the result's sections into parent (a page, or a section of a
     * report: then they are its parts). */
    void (*build)(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent);
    /* The paths of the result's tables --csv NAME accepts, the main one first,
     * NULL-ended (what the command knows before the result exists). */
    const char *const *csv_tables;
} sec_builder;

const sec_builder *sec_find(const char *analyzer);

/* A new section of parent, unless parent is the builder's top and c does not
 * want id (c->only): NULL then, and every builder helper does nothing on a
 * NULL section, so an unwanted section costs one test (a part of a wanted
 * section is always there). title is printf-like; NULL: an untitled group. */
sat_rnode *sec_section(const sec_ctx *c, sat_rnode *parent, const char *id, const char *title,
                       ...) SAT_PRINTF(4, 5);
/* A time on the context's clock ("14:20:20", "2025-06-09T14:20:20Z"). */
void sec_time(const sec_ctx *c, char *buf, size_t n, int64_t ts_ns);
/* The value at path of src into the values object vals, with its note,
 * under key (NULL: the last part of path) and label (NULL: the key as
 * words). Nothing when src has no such value. */
void sec_copy(sat_rnode *vals, const sat_rnode *src, const char *path, const char *key,
              const char *label);
/* A value formatted on the clock ("-" when absent). */
void sec_fmt(const sec_ctx *c, char *buf, size_t n, const sat_rnode *src, const char *path);

#endif
