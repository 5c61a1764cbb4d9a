/*
 * dis_tls_hello.c - the hello bodies for the TLS stream dissector (dis_tls.c):
 * the ClientHello's session id, server_name (RFC 6066), session_ticket (RFC
 * 5077), pre_shared_key and supported_versions (RFC 8446, GREASE values of RFC
 * 8701 skipped), and the ServerHello's version, cipher, session id and
 * pre_shared_key, drafts before -22 included.
 */
#include "dis_tls_int.h"

static int is_grease(uint16_t v) { return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff); }

static int is_tls13ish(uint16_t v)
{
    return v == 0x0304 || (v >> 8) == 0x7f || v == 0x7e01 || v == 0x7e02;
}

/* Orders versions for "highest offered": drafts and the experiment sit
 * between 1.2 and 1.3. */
static uint32_t version_rank(uint16_t v)
{
    if (v <= 0x0304)
        return (uint32_t)v << 8;
    if ((v >> 8) == 0x7f)
        return (0x0303u << 8) + 0x80u + (v & 0x7fu);
    if ((v >> 8) == 0x7e)
        return (0x0303u << 8) + (v & 0x7fu);
    return 0;
}

/* ---- hello parsing ------------------------------------------------------------------ */
void sat_dt_parse_client_hello(tls_state *s, const uint8_t *b, size_t n)
{
    sat_cursor c = sat_cursor_make(b, n);
    uint16_t legacy = sat_cursor_be16(&c);
    uint32_t best = version_rank(legacy);
    uint16_t best_v = legacy;
    sat_cursor_skip(&c, 32);
    uint8_t sid_len = sat_cursor_u8(&c);
    const uint8_t *sid = sat_cursor_bytes(&c, sid_len);
    if (c.err)
        goto out;
    s->ch_sid_len = sid_len <= 32 ? sid_len : 32;
    memcpy(s->ch_sid, sid, s->ch_sid_len);
    if (sid_len)
        s->offered |= SAT_TLS_RESUME_SESSION_ID;
    sat_cursor_skip(&c, sat_cursor_be16(&c)); /* cipher suites */
    sat_cursor_skip(&c, sat_cursor_u8(&c));   /* compression methods */
    if (c.err || sat_cursor_left(&c) < 2)
        goto out; /* no extensions (SSLv3, old TLS) */
    uint16_t ext_total = sat_cursor_be16(&c);
    sat_cursor ex = sat_cursor_make(c.p + c.pos,
                                    ext_total <= sat_cursor_left(&c) ? ext_total : sat_cursor_left(&c));
    while (sat_cursor_left(&ex) >= 4) {
        uint16_t type = sat_cursor_be16(&ex);
        uint16_t len = sat_cursor_be16(&ex);
        const uint8_t *e = sat_cursor_bytes(&ex, len);
        if (!e)
            break;
        sat_cursor ec = sat_cursor_make(e, len);
        switch (type) {
        case EXT_SERVER_NAME: {
            sat_cursor_be16(&ec); /* list length */
            while (sat_cursor_left(&ec) >= 3) {
                uint8_t nt = sat_cursor_u8(&ec);
                uint16_t nl = sat_cursor_be16(&ec);
                const uint8_t *name = sat_cursor_bytes(&ec, nl);
                if (!name)
                    break;
                if (nt == 0 && !s->sni_present) {
                    s->sni_present = 1;
                    s->sni_len = (uint16_t)(nl <= TLS_SNI_MAX ? nl : TLS_SNI_MAX);
                    memcpy(s->sni, name, s->sni_len);
                    break;
                }
            }
            break;
        }
        case EXT_SESSION_TICKET:
            if (len > 0)
                s->offered |= SAT_TLS_RESUME_TICKET;
            break;
        case EXT_PRE_SHARED_KEY:
            s->offered |= SAT_TLS_RESUME_PSK;
            break;
        case EXT_SUPPORTED_VERSIONS: {
            uint8_t l = sat_cursor_u8(&ec);
            for (unsigned i = 0; i + 1 < l && sat_cursor_left(&ec) >= 2; i += 2) {
                uint16_t v = sat_cursor_be16(&ec);
                if (is_grease(v))
                    continue;
                if (version_rank(v) > best) {
                    best = version_rank(v);
                    best_v = v;
                }
            }
            break;
        }
        default:
            break;
        }
    }
out:
    s->offered_version = best_v;
}

void sat_dt_parse_server_hello(tls_state *s, const uint8_t *b, size_t n)
{
    sat_cursor c = sat_cursor_make(b, n);
    uint16_t legacy = sat_cursor_be16(&c);
    uint16_t selected = 0;
    sat_cursor_skip(&c, 32);
    if ((legacy >> 8) == 0x7f && (legacy & 0xff) < 22) {
        /* drafts before -22: version in place, no session id or compression */
        s->cipher = sat_cursor_be16(&c);
        s->sh_sid_len = 0;
    } else {
        uint8_t sid_len = sat_cursor_u8(&c);
        const uint8_t *sid = sat_cursor_bytes(&c, sid_len);
        if (sid) {
            s->sh_sid_len = sid_len <= 32 ? sid_len : 32;
            memcpy(s->sh_sid, sid, s->sh_sid_len);
        }
        s->cipher = sat_cursor_be16(&c);
        sat_cursor_u8(&c); /* compression */
    }
    s->version = legacy;
    if (!c.err && sat_cursor_left(&c) >= 2) {
        uint16_t ext_total = sat_cursor_be16(&c);
        size_t avail = sat_cursor_left(&c);
        sat_cursor ex = sat_cursor_make(c.p + c.pos, ext_total <= avail ? ext_total : avail);
        while (sat_cursor_left(&ex) >= 4) {
            uint16_t type = sat_cursor_be16(&ex);
            uint16_t len = sat_cursor_be16(&ex);
            const uint8_t *e = sat_cursor_bytes(&ex, len);
            if (!e)
                break;
            if (type == EXT_SUPPORTED_VERSIONS && len >= 2)
                selected = (uint16_t)((e[0] << 8) | e[1]);
            else if (type == EXT_PRE_SHARED_KEY)
                s->sh_psk = 1;
        }
    }
    if (selected)
        s->version = selected;
    s->is13 = (uint8_t)is_tls13ish(s->version);
}
