/*
 * analyze_split.h - the rows of a collection split by server and local
 * calendar day, one analyzer set (sat_multi, analyze.h) per (server, day):
 * what the nightly digest reads (one page per server per day).
 *
 * A server is one input of the collection (a file, a rotated set, a
 * capture): LDAP rows name it (`server`), wire and crash rows name their
 * source (`source`), and the source rows say which server each source is, its
 * host name and the UTC offset its times were written with. A day is a
 * calendar day in that offset.
 *
 * The router is an analyzer itself (sat_split_analyzer, opts a
 * sat_split_opts), so it is collected in parallel parts and merged like any.
 * Source rows come at the end of their file, after the rows they name, so a
 * row cannot be put in its day when it arrives: rows go to a set per
 * (origin, UTC hour) made on demand, and finish merges the hours into days
 * once the sources are known (in time order, into the day's first hour).
 * An offset that is not a whole number of hours puts the hour that holds
 * local midnight in the day it begins in (the rows of that hour keep their
 * own times). Rows without a time of their own follow their parent: frames
 * their crash, a crash without a time its server's last day; sources and
 * rejects go to each day of their server their time range meets (every
 * day when it has none).
 *
 * Bounded: per origin only the hours of the last max_days + 1 days before
 * its newest row are kept (older ones are freed as newer rows arrive, their
 * rows counted as dropped), and finish keeps each server's last max_days
 * days, counting the others (sat_split_dropped). Sources, rejects, crashes
 * and frames are kept as copies until finish (a collection has few).
 *
 * Ownership: the split owns its sets; the member table is borrowed for its
 * life. Days live until sat_split_free.
 */
#ifndef SATSCOPE_ANALYZE_SPLIT_H
#define SATSCOPE_ANALYZE_SPLIT_H

#include "satscope/event.h"

struct sat_multi_opts;
struct sat_multi;

#define SAT_SPLIT_SLOT_S 3600     /* the routing slot: one UTC hour */
#define SAT_SPLIT_DAYS_DEFAULT 31 /* days kept per server when max_days is 0 */
/* The day of a server that has only undated crashes (a crash text without
 * times, a core whose time is unknown): named "undated", start_ts 0. */
#define SAT_SPLIT_UNDATED INT64_MIN

typedef struct sat_split_opts {
    const struct sat_multi_opts *set; /* the analyzers of each (server, day), borrowed */
    size_t max_days;                  /* days kept per server (the last); 0: default */
} sat_split_opts;

typedef struct sat_split sat_split;
sat_split *sat_split_create(const sat_split_opts *o); /* NULL: out of memory or no set */
void sat_split_free(sat_split *s);                    /* NULL ok */
sat_event_sink sat_split_sink(sat_split *s);
/* Merges the hours into days and finishes every day's set. */
int sat_split_finish(sat_split *s);
/* Merges the hours into days without finishing their sets (what a partial
 * keeps: their state, to be merged with other partials' and finished). */
int sat_split_assemble(sat_split *s);
/* Hour by hour; the copies of sources and the rest appended. */
int sat_split_merge(sat_split *into, const sat_split *from);
extern const struct sat_analyzer sat_split_analyzer; /* result NULL: see the days */

/* After finish: the days, by server (index order) then day. */
typedef struct sat_split_day {
    uint32_t server;         /* server index of the collection (UINT32_MAX: rows of a
                                source no source row named) */
    const char *host;        /* the host name its sources give, NULL if none */
    const char *path;        /* the path of its first source, NULL if none */
    int32_t utc_offset_s;    /* of its first source with a time range */
    int64_t day;             /* local days since 1970-01-01 */
    sat_ts_ns start_ts;      /* its local midnight, UTC */
    uint64_t rows;           /* rows routed to it */
    struct sat_multi *set;   /* finished; owned by the split */
} sat_split_day;
size_t sat_split_days(const sat_split *s);
const sat_split_day *sat_split_day_at(const sat_split *s, size_t i);
/* What the bound dropped: days (finish), and rows (of those days and of
 * hours freed while collecting). */
void sat_split_dropped(const sat_split *s, uint64_t *days, uint64_t *rows);
/* "2026-11-03" for a local day number ("undated" for SAT_SPLIT_UNDATED); buf >= 16. */
void sat_split_day_name(int64_t day, char *buf, size_t n);

/* ---- an analyzer fed only the rows a predicate keeps (analyze/filtered.c) ------
 * The same analyzer over a subset of the rows (the digest's unindexed
 * searches by filter shape): opts a sat_filtered_opts; its result is the
 * inner analyzer's (the result's command is "filtered"). */
typedef struct sat_filtered_opts {
    const struct sat_analyzer *a; /* borrowed */
    const void *opts;             /* a's options, borrowed */
    /* 1: give the row to a; tables it never sees (keep NULL: all rows) */
    int (*keep)(int table, const void *row);
} sat_filtered_opts;
extern const struct sat_analyzer sat_filtered_analyzer;

#endif /* SATSCOPE_ANALYZE_SPLIT_H */
