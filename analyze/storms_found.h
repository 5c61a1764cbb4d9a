/*
 * storms_found.h - (private to analyze/) the storms a finished storms
 * analyzer found: the record of one storm, and the accessor another analyzer
 * that runs a storms analyzer on the same rows reads them by (the crashes
 * analyzer: which storm a crash fell in). Everyone else reads the storms
 * from the result (sat_storms_result).
 *
 * A storm's counts summed over its windows are named once, in
 * ST_STORM_COUNTS: the list gives the fields of every window (st_win.sc) and
 * of the storm, the sum of a storm's windows (one sat_rec_merge each) and
 * the storms table's columns (sat_rec_cols, sat_rec_row).
 *
 * Ownership: the storms are the analyzer's, valid until its next finish,
 * merge or free.
 */
#ifndef SAT_ANALYZE_STORMS_FOUND_H
#define SAT_ANALYZE_STORMS_FOUND_H

#include "satscope/analyze.h"

#include "acc.h"

/* What a storm sums of its windows, X(field, key, text heading, note), in the
 * order the storms table writes them: connections opened (LDAP, TCP, and
 * the first requests of HTTP connections: the reconnects), TLS handshakes
 * full and all (full or resumed), connections that retried an unanswered
 * one (captures). */
#define ST_STORM_COUNTS(X)                                                                   \
    X(opens, "conn_opens", "opened", NULL)                                                   \
    X(hs_full, "full_handshakes", "full", NULL)                                              \
    X(hs, "handshakes", NULL, NULL)                                                          \
    /* of the full ones, those of a client whose previous handshake did not      \
     * finish: redone because of the failure, not asked for anew */               \
    X(hs_redone, NULL, NULL, NULL)                                                           \
    X(retries, "retries", NULL, NULL)                                                        \
    /* of those, how many the clients' own rate of connections explains: for     \
     * each failure, the chance that its client opened its next connection        \
     * within the retry window anyway (millionths; storms_classify.c) */          \
    X(retries_chance_u, NULL, NULL, NULL)
typedef struct st_counts {
    ST_STORM_COUNTS(SAT_COUNTER_FIELD)
} st_counts;
extern const sat_rec_desc st_counts_desc;

/* A signal looked at before a storm (the chain, storms_chain.c). */
typedef struct st_sig {
    int rose;                /* above max(2 x base, base + its floor) before/at the start */
    double base;             /* median of the 30 windows before the lead-up; NAN: none */
    double before;           /* the highest of the 3 windows before the start + the first */
    double during;           /* the highest during the storm; NAN if no value */
    sat_ts_ns onset_ts;      /* first window above the threshold (0 none) */
    sat_ts_ns back_ts;       /* first of 3 windows in a row back at or below it (0 never) */
    sat_ts_ns unseen_ts;     /* never back, and no value from here to the end of the inputs
                                (3 windows or more: nothing answered that could give one);
                                0 otherwise */
} st_sig;

/* What can keep a storm going after its trigger is back (the result's
 * mechanism), in the order the chain names them: the most direct first. */
enum {
    ST_MECH_RETRIES,         /* connections given up and retried at once (retries) */
    ST_MECH_FULL_HANDSHAKES, /* the full-handshake share (sessions not resumed) */
    ST_MECH_REFUSED,         /* connection attempts never answered or repeated (SYN) */
    ST_MECH_RECONNECTS,      /* connections opened */
    ST_MECH_OFFERED_LOAD,    /* operations and requests per window */
    ST_MECH__COUNT
};
/* A mechanism's figures (the chain's find_mechanism): per window, its
 * baseline median, its mean while the trigger was up and after it was back. */
typedef struct st_mech_fig {
    int rose;
    double before, during, after;
} st_mech_fig;

typedef struct st_client {
    const char *client;
    uint64_t events;         /* failures of this client during the storm */
} st_client;

/* One storm. (Named sat_storm for the crashes analyzer's code, which reads
 * start_ts, end_ts, events and sustained.) */
typedef struct sat_storm {
    sat_ts_ns start_ts, end_ts, peak_ts; /* window starts; end_ts = end of the last */
    uint64_t events, peak_events;
    uint64_t clients;        /* distinct; estimated (4096-bit linear count) past 100,000
                                clients or 250,000 client-windows */
    uint64_t kinds[SAT_STORM_KIND__COUNT];
    st_counts sc;            /* summed over its windows */
    double expected;         /* baseline failures per window */
    const st_client *top;
    size_t ntop;
    st_sig sig[SAT_SIG__COUNT];
    int trigger;             /* the risen cause with the earliest onset; -1 none */
    int sustained;           /* failures went on past the trigger's back_ts for longer
                                than the drain time (storms_chain.c) */
    int untold;              /* whether it outlived the trigger cannot be told: the storm
                                went on to the end of the inputs with the trigger never back */
    int mechanism;           /* ST_MECH_* that rose after the trigger was back (sustained),
                                else while it was up; -1 none */
    st_mech_fig mech[ST_MECH__COUNT];     /* by ST_MECH_* (storms_internal.h) */
    double sustained_s;      /* how long they stayed high past it (0 if not) */
    int ongoing;             /* still high in the last window of the input */
    const char *heavy_client;/* the busiest client of the lead-up (SAT_SIG_HEAVY_CLIENT),
                                NULL if none */
    sat_dur_ns window;       /* the step of its period */
    size_t period;           /* index into the analyzer's periods */
    const char *server;      /* the one server it belongs to (its period's); NULL: the
                                inputs cannot tell */
} sat_storm;

/* The storms found, in time order (the crashes analyzer's view names this
 * type: analyze_crashes.h). */
struct sat_storms_view {
    const sat_storm *storms;
    size_t nstorms;
};

/* The storms a finished analyzer found (borrowed, see above). */
const sat_storms_view *st_storms_found(const sat_storms *s);

#endif
