/*
 * dis_tls_row.c - the end of a connection for the TLS stream dissector
 * (dis_tls.c): its first handshake classified as full, resumed, failed or
 * incomplete (the rules of dis_tls.c's opening comment) and written as one
 * sat_tls_hs row (event.h).
 */
#include "dis_tls_int.h"

int sat_dt_tls_end(void *st, int how, sat_ts_ns ts)
{
    tls_state *s = (tls_state *)st;
    (void)how;
    (void)ts;
    if (!s || s->emitted)
        return SAT_OK;
    s->emitted = 1;
    if (!s->ch_seen && !s->sh_seen)
        return SAT_OK; /* no handshake seen: nothing to say */

    sat_tls_hs h;
    memset(&h, 0, sizeof h);
    h.ts = s->ts;
    h.server_hello_ts = s->sh_seen ? s->sh_ts : 0;
    h.done_ts = s->done ? s->done_ts : 0;
    h.source = s->flow.source;
    h.flow = s->flow.flow;
    h.client_ip = s->flow.client_ip;
    h.server_ip = s->flow.server_ip;
    h.client_port = s->flow.client_port;
    h.server_port = s->flow.server_port;
    h.sni = s->sni_present ? sat_str_make(s->sni, s->sni_len) : SAT_STR_NONE;
    h.offered_version = s->offered_version;
    h.version = s->sh_seen ? s->version : 0;
    h.cipher = s->sh_seen ? s->cipher : 0;
    h.offered = s->offered;
    h.flags = s->flags;
    h.alert = s->failed ? s->alert : SAT_ABSENT;
    h.resumed_by = SAT_TLS_RESUME_NONE;

    if (s->failed) {
        h.outcome = SAT_TLS_FAILED;
    } else if (!s->sh_seen) {
        h.outcome = SAT_TLS_INCOMPLETE;
    } else if (s->version == 0x0002) {
        h.outcome = s->v2_resumed ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (s->v2_resumed)
            h.resumed_by = SAT_TLS_RESUME_SESSION_ID;
    } else if (s->is13) {
        h.outcome = s->sh_psk ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (s->sh_psk)
            h.resumed_by = SAT_TLS_RESUME_PSK;
    } else {
        int echo = s->ch_seen && s->ch_sid_len > 0 && s->ch_sid_len == s->sh_sid_len &&
                   memcmp(s->ch_sid, s->sh_sid, s->ch_sid_len) == 0;
        int resumed = s->full_evidence ? 0 : s->abbreviated ? 1 : echo;
        h.outcome = resumed ? SAT_TLS_RESUMED : SAT_TLS_FULL;
        if (resumed) {
            if (!s->ch_seen)
                h.resumed_by = s->sh_sid_len ? SAT_TLS_RESUME_SESSION_ID : SAT_TLS_RESUME_TICKET;
            else if (s->offered & SAT_TLS_RESUME_TICKET)
                h.resumed_by = SAT_TLS_RESUME_TICKET;
            else
                h.resumed_by = SAT_TLS_RESUME_SESSION_ID;
        }
    }
    h.duration = (s->ch_seen && s->done && s->done_ts >= s->ts) ? s->done_ts - s->ts : SAT_ABSENT;
    if (!s->ctx.sink)
        return SAT_OK;
    return sat_sink_emit(s->ctx.sink, SAT_TABLE_TLS_HS, &h);
}
