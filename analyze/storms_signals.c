/*
 * storms_signals.c - what the storms analyzer's signals and kinds of failure
 * are, said once: each signal's name (the JSON's signal_name), its words in
 * a table and in a sentence (for LDAP operations, HTTP requests, or both),
 * the unit of its values, whether it is a cause or an effect, and the
 * smallest rise of it that counts; each kind's name and meaning. The chain
 * (storms_chain.c) reads the causes and floors from here, the result
 * (storms_result.c) writes the words and units into the signals and
 * failures tables, so that every report reads them from the result.
 */
#include "storms_internal.h"

/* The load and latency signals count LDAP operations and HTTP requests alike:
 * their words are those of the inputs (ST_WORDS_LDAP .. ST_WORDS_BOTH); NULL
 * takes the LDAP words (a signal that reads the same either way). */
const st_signal_info st_signals[SAT_SIG__COUNT] = {
    [SAT_SIG_UNINDEXED] = {"unindexed", {"unindexed searches"}, {"unindexed searches"},
                           SAT_UNIT_COUNT, 1, 1, 2.0},
    [SAT_SIG_OPS] = {"ops",
                     {"operations", "requests", "operations + requests"},
                     {"the operation rate", "the request rate",
                      "the rate of operations and requests"},
                     SAT_UNIT_COUNT, 1, 0, 10.0},
    /* a full handshake that redoes its client's failed one is the failures'
     * doing (the mechanism), not a new demand: left out */
    [SAT_SIG_FULL_HS_SHARE] = {"full_hs_share", {"full-handshake share"},
                               {"the share of full TLS handshakes (leaving out those that redo "
                                "a failed one)"},
                               SAT_UNIT_RATIO, 1, 0, 0.2},
    [SAT_SIG_ETIME_P90] = {"etime_p90_s",
                           {"etime p90", "response time p90", "etime/response p90"},
                           {"the etime p90", "the response time p90",
                            "the etime / response time p90"},
                           SAT_UNIT_DURATION, 0, 0, 0.05},
    [SAT_SIG_WTIME_MEAN] = {"wtime_mean_s", {"wtime mean (queue)"},
                            {"the queue wait (wtime mean)"}, SAT_UNIT_DURATION, 0, 1, 0.01},
    [SAT_SIG_CONN_OPENS] = {"conn_opens", {"connections opened"}, {"connections opened"},
                            SAT_UNIT_COUNT, 1, 0, 5.0},
    [SAT_SIG_HS_ANSWER_P90] = {"hs_answer_p90_s", {"handshake answer p90"},
                               {"the time the server took to answer TLS handshakes (p90)"},
                               SAT_UNIT_DURATION, 0, 0, 0.05},
    [SAT_SIG_HEAVY_CLIENT] = {"heavy_client_ops",
                              {"ops of one client", "requests of one client",
                               "load of one client"},
                              {"the operations of one client", "the requests of one client",
                               "the operations and requests of one client"},
                              SAT_UNIT_COUNT, 1, 0, 10.0},
    [SAT_SIG_SERVICE_TIME] = {"service_time", {"service time (optime mean)"},
                              {"the work per operation (optime, without the queue wait)"},
                              SAT_UNIT_DURATION, 1, 1, 0.0002},
    [SAT_SIG_LONG_SEARCHES] = {"long_searches", {"long searches (work >= 1 s)"},
                               {"searches taking a second or more of work"}, SAT_UNIT_COUNT, 1, 1,
                               1.0},
};

/* The groups of failure kinds a reader knows (a chart stacks them): who
 * gave up or was turned away, and how. */
#define G_GAVE_UP "abandons and time limits"
#define G_REFUSED "busy and unavailable answers"
#define G_CLOSES "abrupt closes"
#define G_TLS "TLS handshakes given up or failed"
#define G_LEFT "clients that left waiting or retried"
#define G_UNANSWERED "connections never answered"
#define G_HTTP_SERVER "HTTP 502, 503, 504"
#define G_HTTP_CLIENT "HTTP 408, 499, slow"

const st_kind_info st_kinds[SAT_STORM_KIND__COUNT] = {
    [SAT_STORM_ABANDON] = {"abandon", "abandoned operations", "abandoned operation", G_GAVE_UP},
    [SAT_STORM_ERR_TIMELIMIT] = {"time_limit", "time limits (err=3)", "time limit (err=3)", G_GAVE_UP},
    [SAT_STORM_ERR_ADMINLIMIT] = {"admin_limit", "admin limits (err=11)", "admin limit (err=11)", G_GAVE_UP},
    [SAT_STORM_ERR_BUSY] = {"busy", "busy answers (err=51)", "busy answer (err=51)", G_REFUSED},
    [SAT_STORM_ERR_UNAVAILABLE] = {"unavailable", "unavailable answers (err=52)", "unavailable answer (err=52)", G_REFUSED},
    [SAT_STORM_ERR_OTHER] = {"other_error", "other errors", "other error", G_REFUSED},
    [SAT_STORM_CLOSE_A1] = {"close_A1", "client aborts (A1)", "client abort (A1)", G_CLOSES},
    [SAT_STORM_CLOSE_B1] = {"close_B1", "unclean client closes (B1)", "unclean client close (B1)", G_CLOSES},
    [SAT_STORM_CLOSE_B4] = {"close_B4", "answers the server could not send (B4)", "answer the server could not send (B4)", G_CLOSES},
    [SAT_STORM_CLOSE_T1] = {"close_T1", "idle timeouts (T1)", "idle timeout (T1)", G_CLOSES},
    [SAT_STORM_CLOSE_T2] = {"close_T2", "I/O block timeouts (T2)", "I/O block timeout (T2)", G_CLOSES},
    [SAT_STORM_CLOSE_T3] = {"close_T3", "paged search time limits (T3)", "paged search time limit (T3)", G_CLOSES},
    [SAT_STORM_TLS_INCOMPLETE] = {"tls_incomplete", "TLS handshakes given up", "TLS handshake given up", G_TLS},
    [SAT_STORM_TLS_FAILED] = {"tls_failed", "failed TLS handshakes", "failed TLS handshake", G_TLS},
    [SAT_STORM_RST_CLIENT] = {"rst_client", "client resets", "client reset", G_LEFT},
    [SAT_STORM_SYN_RETRY] = {"syn_retry", "SYN retries", "SYN retry", G_UNANSWERED},
    [SAT_STORM_FIN_WAITING] = {"fin_waiting", "clients hanging up with a request unanswered", "client hanging up with a request unanswered", G_LEFT},
    [SAT_STORM_RETRIED] = {"retried", "connections given up for a retry", "connection given up for a retry", G_LEFT},
    [SAT_STORM_CLOSED_WAITING] = {"closed_waiting", "connections closed while waiting", "connection closed while waiting", G_LEFT},
    [SAT_STORM_SYN_UNANSWERED] = {"syn_unanswered", "connection attempts never answered", "connection attempt never answered", G_UNANSWERED},
    [SAT_STORM_HTTP_408] = {"http_408", "request timeouts (HTTP 408)", "request timeout (HTTP 408)", G_HTTP_CLIENT},
    [SAT_STORM_HTTP_499] = {"http_499", "requests the client gave up on (HTTP 499)", "request the client gave up on (HTTP 499)", G_HTTP_CLIENT},
    [SAT_STORM_HTTP_502] = {"http_502", "bad gateway answers (HTTP 502)", "bad gateway answer (HTTP 502)", G_HTTP_SERVER},
    [SAT_STORM_HTTP_503] = {"http_503", "service unavailable answers (HTTP 503)", "service unavailable answer (HTTP 503)", G_HTTP_SERVER},
    [SAT_STORM_HTTP_504] = {"http_504", "gateway timeouts (HTTP 504)", "gateway timeout (HTTP 504)", G_HTTP_SERVER},
    [SAT_STORM_SLOW] = {"slow", "slow answers (past the slow threshold)", "slow answer (past the slow threshold)", G_HTTP_CLIENT},
};

/* What can keep a storm going after its trigger was back: each is named only
 * when it rose (storms_chain.c find_mechanism). */
const st_mech_info st_mechanisms[ST_MECH__COUNT] = {
    [ST_MECH_RETRIES] = {"retries", "clients retrying what failed", SAT_UNIT_COUNT, 2.0},
    [ST_MECH_FULL_HANDSHAKES] = {"full_handshakes", "full TLS handshakes (sessions not resumed, failed ones redone)",
                                 SAT_UNIT_RATIO, 0.2},
    [ST_MECH_REFUSED] = {"refused_connections", "connection attempts the server did not answer",
                         SAT_UNIT_COUNT, 2.0},
    [ST_MECH_RECONNECTS] = {"reconnects", "clients reconnecting", SAT_UNIT_COUNT, 5.0},
    [ST_MECH_OFFERED_LOAD] = {"offered_load", "the load offered (operations and requests)",
                              SAT_UNIT_COUNT, 10.0},
};

const char *sat_storm_kind_name(int k)
{
    return k >= 0 && k < SAT_STORM_KIND__COUNT ? st_kinds[k].name : "?";
}

const char *sat_storm_signal_name(int s)
{
    return s >= 0 && s < SAT_SIG__COUNT ? st_signals[s].name : "?";
}

const char *st_signal_label(int s, int words)
{
    const st_signal_info *si = &st_signals[s];
    return si->label[words] ? si->label[words] : si->label[ST_WORDS_LDAP];
}

const char *st_signal_meaning(int s, int words)
{
    const st_signal_info *si = &st_signals[s];
    return si->meaning[words] ? si->meaning[words] : si->meaning[ST_WORDS_LDAP];
}
