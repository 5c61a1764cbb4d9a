/*
 * storms_servers.c - each storm belongs to one server. The analyzer a caller
 * holds is a router: each row goes to the sub-analyzer of its server key,
 *   a log's rows (ldap_op, ldap_conn, http_req)   its server (input set)
 *   a capture's rows (tcp_conn, tls_hs)           the server side's address and port
 * and the sub of a log keeps the server addresses its connections were
 * accepted on (389: "to 10.0.0.5"; OpenLDAP: "(IP=0.0.0.0:636)"; a capture's
 * LDAP rows: "127.0.0.1:389"). At finish the subs are told apart into
 * servers (st_groups): a capture's server is a log's when the log accepted
 * connections on its address and port (the address alone when the log
 * names no port; the port when it names a wildcard address); two logs
 * that name the same address are one server; a capture no log names is the
 * server of the one directory log that names no address at all, if there
 * is exactly one (the inputs cannot tell it apart; else it is a server of
 * its own). The subs of each server are merged into one analyzer
 * (st_merge_plain: exact; a server of one sub is that sub, finished in
 * place) and finished: its own series of windows, storms and chains. The storms and periods found are then listed together, in
 * time order, each with its server.
 *
 * Exactness: the subs are keyed by their server key and merged key by key
 * (sat_storms_merge); the servers are made at finish from the keys in
 * their byte order, never from the order rows came in. Bounded: at most
 * ST_SUBS_MAX keys (a capture of a port scan names a server per port); the
 * rows of keys past the cap go to one sub ("O", its server null), and which
 * keys those are depends on the order the keys came in: only past the cap
 * does a merge of parts differ from one pass.
 */
#include "storms_internal.h"

/* ---- server keys --------------------------------------------------------------------- */
/* A log's key: 'L' then its server index, big-endian (the keys' byte order
 * is the servers' order). */
static size_t log_key(char *k, uint32_t server)
{
    k[0] = 'L';
    k[1] = (char)(server >> 24);
    k[2] = (char)(server >> 16);
    k[3] = (char)(server >> 8);
    k[4] = (char)server;
    return 5;
}

/* A capture's key: 'W' then "ip:port" ("[ip]:port" for IPv6). */
static size_t wire_key(char *k, size_t cap, sat_str ip, uint16_t port)
{
    size_t n = ip.ptr ? (ip.len < 64 ? ip.len : 64) : 0;
    int v6 = n && memchr(ip.ptr, ':', n) != NULL;
    int w = snprintf(k, cap, v6 ? "W[%.*s]:%u" : "W%.*s:%u", (int)n, n ? ip.ptr : "",
                     (unsigned)port);
    return w > 0 && (size_t)w < cap ? (size_t)w : cap - 1;
}

/* The sub of key, made on first use; past ST_SUBS_MAX keys, the one sub of
 * servers not told apart ("O"). NULL when out of memory. */
static sat_storms *sub_at(sat_storms *s, const char *key, size_t len)
{
    const uint32_t *found = (const uint32_t *)sat_strtab_find(&s->subkeys, key, len);
    if (!found && s->nsubs >= ST_SUBS_MAX) {
        key = "O";
        len = 1;
        found = (const uint32_t *)sat_strtab_find(&s->subkeys, key, len);
    }
    if (found)
        return s->subs[*found];
    sat_storms *sub = NULL;
    if (SAT_GROW(s->subs, s->subs_cap, s->nsubs + 1) != SAT_OK ||
        !(sub = st_create(&s->opts_in, 0))) {
        s->nomem = 1;
        return NULL;
    }
    int is_new, capped;
    uint32_t *id = (uint32_t *)sat_strtab_upsert(&s->subkeys, key, len, &is_new, &capped);
    if (!id) {
        sat_storms_free(sub);
        s->nomem = 1;
        return NULL;
    }
    *id = (uint32_t)s->nsubs;
    s->subs[s->nsubs++] = sub;
    return sub;
}

static void count_in(sat_storms *s, sat_keyed *t, const void *key, size_t len)
{
    int folded;
    st_server *r = (st_server *)sat_keyed_at(t, key, len, &folded);
    if (r)
        r->sources++;
    else
        s->nomem = 1;
}

/* An input: its time range and server (the servers' inputs), HTTP logs'
 * fields, which servers are captures (their LDAP rows are the wire's). */
static int on_source(sat_storms *s, const sat_source *src)
{
    st_http_source(s, src);
    char key[4 + 4096];
    size_t n = src->path.ptr ? (src->path.len < 4096 ? src->path.len : 4096) : 0;
    memcpy(key, &src->id, 4);
    if (n)
        memcpy(key + 4, src->path.ptr, n);
    st_srcid *r = (st_srcid *)sat_keyed_at(&s->src_ids, key, 4 + n, NULL);
    if (!r) {
        s->nomem |= s->src_ids.nomem;
    } else {
        if (src->first_ts > 0)
            sat_acc_min(&r->first_ts, src->first_ts);
        if (src->last_ts > 0)
            sat_acc_max(&r->last_ts, src->last_ts);
        sat_acc_max(&r->server, src->server);
    }
    if (src->kind.len == 4 && !memcmp(src->kind.ptr, "pcap", 4))
        count_in(s, &s->wire_servers, &src->server, sizeof src->server);
    return SAT_OK;
}

static int route(void *ctx, int table, const void *row)
{
    sat_storms *s = (sat_storms *)ctx;
    char key[96];
    size_t len;
    uint32_t source = UINT32_MAX;
    const sat_ldap_conn *conn = NULL;
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(s, (const sat_source *)row);
    case SAT_TABLE_LDAP_OP: {
        uint32_t server = ((const sat_ldap_op *)row)->server;
        if (s->last_log_sub && server == s->last_log_server)
            return st_on_row(s->last_log_sub, table, row);
        len = log_key(key, server);
        sat_storms *sub = sub_at(s, key, len);
        if (!sub)
            return SAT_OK;
        s->last_log_sub = sub;
        s->last_log_server = server;
        return st_on_row(sub, table, row);
    }
    case SAT_TABLE_LDAP_CONN:
        conn = (const sat_ldap_conn *)row;
        len = log_key(key, conn->server);
        break;
    case SAT_TABLE_HTTP_REQ:
        len = log_key(key, ((const sat_http_req *)row)->server);
        break;
    case SAT_TABLE_TLS_HS: {
        const sat_tls_hs *h = (const sat_tls_hs *)row;
        len = wire_key(key, sizeof key, h->server_ip, h->server_port);
        source = h->source;
        break;
    }
    case SAT_TABLE_TCP_CONN: {
        const sat_tcp_conn *c = (const sat_tcp_conn *)row;
        len = wire_key(key, sizeof key, c->server_ip, c->server_port);
        source = c->source;
        break;
    }
    default:
        return SAT_OK;
    }
    sat_storms *sub = sub_at(s, key, len);
    if (!sub)
        return SAT_OK;
    if (source != UINT32_MAX)
        count_in(sub, &sub->wire_sources, &source, sizeof source);
    if (conn && conn->server_addr.ptr && conn->server_addr.len)
        count_in(sub, &sub->addrs, conn->server_addr.ptr,
                 conn->server_addr.len < 128 ? conn->server_addr.len : 128);
    return st_on_row(sub, table, row);
}

sat_event_sink sat_storms_sink(sat_storms *s)
{
    sat_event_sink k = {s,
                        SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_TLS_HS) | SAT_TABLE_BIT(SAT_TABLE_TCP_CONN) |
                            SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ),
                        s && s->router ? route : st_on_row};
    return k;
}

/* ---- addresses -------------------------------------------------------------------- */
/* An address as logged: "10.0.0.5", "10.0.0.5:636", "[::1]:389", "::1";
 * 0 for what is not an IP address (a socket path, "local"). port -1: none. */
static int split_addr(const char *a, size_t n, sat_str *ip, long *port)
{
    *port = -1;
    if (!n || a[0] == '/' || (n == 5 && !memcmp(a, "local", 5)))
        return 0;
    const char *end = a + n, *p = NULL;
    if (a[0] == '[') {
        const char *e = (const char *)memchr(a, ']', n);
        if (!e)
            return 0;
        *ip = sat_str_make(a + 1, (size_t)(e - a - 1));
        p = e + 1 < end && e[1] == ':' ? e + 2 : NULL;
    } else {
        const char *c = (const char *)memchr(a, ':', n);
        if (c && !memchr(c + 1, ':', (size_t)(end - c - 1))) {
            *ip = sat_str_make(a, (size_t)(c - a));
            p = c + 1;
        } else {
            *ip = sat_str_make(a, n); /* IPv4 without a port, or IPv6 */
        }
    }
    if (p && p < end) {
        long v = 0;
        for (; p < end && *p >= '0' && *p <= '9' && v <= 65535; p++)
            v = v * 10 + (*p - '0');
        if (p == end && v <= 65535)
            *port = v;
    }
    return 1;
}

static int wildcard(sat_str ip)
{
    static const char *const any[] = {"", "0.0.0.0", "::", "*", "0:0:0:0:0:0:0:0"};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        if (ip.len == strlen(any[i]) && !memcmp(ip.ptr, any[i], ip.len))
            return 1;
    return 0;
}

static int same_ip(sat_str a, sat_str b)
{
    if (a.len != b.len)
        return 0;
    for (size_t i = 0; i < a.len; i++) {
        char x = a.ptr[i], y = b.ptr[i];
        if ((x >= 'A' && x <= 'F' ? x + 32 : x) != (y >= 'A' && y <= 'F' ? y + 32 : y))
            return 0;
    }
    return 1;
}

/* Whether a log's address names the server (ip, port) of a capture, or of
 * another log (port -1: not logged). */
static int names(const char *a, size_t n, sat_str ip, long port)
{
    sat_str aip;
    long aport;
    if (!split_addr(a, n, &aip, &aport))
        return 0;
    if (aport >= 0 && port >= 0 && aport != port)
        return 0;
    if (wildcard(aip) || wildcard(ip))
        return aport >= 0 && aport == port; /* a wildcard listener: by its port */
    return same_ip(aip, ip);
}

/* ---- the servers ------------------------------------------------------------------ */
typedef struct sv_sub {
    const char *key;
    size_t len;
    sat_storms *sub;
    uint32_t server;   /* a log's */
    int capture;       /* a log key whose server is a capture (its LDAP rows) */
    int ldap;          /* a log key with LDAP rows */
    int has_ip;        /* a log key whose connections name an IP address */
    int matched_log;   /* a capture key named by a log */
    sat_str ip;        /* a capture key's */
    long port;
    size_t up;         /* union-find */
} sv_sub;

static size_t top(sv_sub *v, size_t i)
{
    while (v[i].up != i)
        i = v[i].up = v[v[i].up].up;
    return i;
}

static void join(sv_sub *v, size_t a, size_t b)
{
    a = top(v, a);
    b = top(v, b);
    if (a != b) /* the first in key order leads: the group's order */
        v[a < b ? b : a].up = a < b ? a : b;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : an < bn ? -1 : an > bn;
}

static int cmp_key(const void *x, const void *y)
{
    const sv_sub *a = (const sv_sub *)x, *b = (const sv_sub *)y;
    return cmp_bytes(a->key, a->len, b->key, b->len);
}

/* Whether log sub l names the capture key w (or, w a log too, an address of it). */
static int log_names(const sv_sub *l, sat_str ip, long port)
{
    const sat_keyed *a = &l->sub->addrs;
    for (size_t i = 0; i < sat_keyed_n(a); i++)
        if (names(sat_keyed_key(a, i), sat_keyed_len(a, i), ip, port))
            return 1;
    return 0;
}

static int logs_share(const sv_sub *x, const sv_sub *y)
{
    const sat_keyed *a = &x->sub->addrs;
    for (size_t i = 0; i < sat_keyed_n(a); i++) {
        sat_str ip;
        long port;
        if (split_addr(sat_keyed_key(a, i), sat_keyed_len(a, i), &ip, &port) && !wildcard(ip) &&
            log_names(y, ip, port))
            return 1;
    }
    return 0;
}

/* The subs told apart into servers: v[i].up leads to the first sub of its
 * server (v sorted by key). */
static void st_groups(const sat_storms *s, sv_sub *v, size_t n)
{
    size_t nlog_bare = 0, bare = 0;
    for (size_t i = 0; i < n; i++) {
        sv_sub *x = &v[i];
        x->up = i;
        x->port = -1;
        if (x->key[0] == 'L' && x->len == 5) {
            x->server = (uint32_t)(unsigned char)x->key[1] << 24 |
                        (uint32_t)(unsigned char)x->key[2] << 16 |
                        (uint32_t)(unsigned char)x->key[3] << 8 | (unsigned char)x->key[4];
            x->capture = sat_keyed_n(&s->wire_servers) &&
                         sat_strtab_find(&s->wire_servers.tab, &x->server, sizeof x->server);
            x->ldap = x->sub->t.rows.ldap_ops || x->sub->t.rows.ldap_conns;
            const sat_keyed *a = &x->sub->addrs;
            for (size_t k = 0; k < sat_keyed_n(a) && !x->has_ip; k++) {
                sat_str ip;
                long port;
                x->has_ip = split_addr(sat_keyed_key(a, k), sat_keyed_len(a, k), &ip, &port);
            }
            if (!x->capture && x->ldap && !x->has_ip) {
                nlog_bare++;
                bare = i;
            }
        } else if (x->key[0] == 'W') {
            split_addr(x->key + 1, x->len - 1, &x->ip, &x->port);
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            sv_sub *l = &v[i], *w = &v[j];
            if (l->key[0] != 'L' || !l->has_ip)
                continue;
            if (w->key[0] == 'W' && log_names(l, w->ip, w->port)) {
                join(v, i, j);
                w->matched_log |= !l->capture;
            } else if (w->key[0] == 'L' && j > i && w->has_ip && logs_share(l, w)) {
                join(v, i, j);
            }
        }
    if (nlog_bare == 1) /* the inputs cannot tell: the one log that names no address */
        for (size_t j = 0; j < n; j++)
            if (v[j].key[0] == 'W' && !v[j].matched_log)
                join(v, bare, j);
}

/* A server's name: its capture key's address when it has one, else the
 * address its log's connections name most (a specific one before a
 * wildcard); NULL: none (a log that names no address, HTTP logs). */
static const char *server_name(sat_storms *s, const sv_sub *v, size_t n, size_t lead)
{
    const char *w = NULL, *best = NULL;
    size_t nw = 0, wlen = 0, blen = 0;
    uint64_t bn = 0;
    int bwild = 1;
    for (size_t i = 0; i < n; i++) {
        if (top((sv_sub *)v, i) != lead)
            continue;
        if (v[i].key[0] == 'W') {
            nw++;
            w = v[i].key + 1;
            wlen = v[i].len - 1;
        } else if (v[i].key[0] == 'L') {
            const sat_keyed *a = &v[i].sub->addrs;
            for (size_t k = 0; k < sat_keyed_n(a); k++) {
                const char *ak = sat_keyed_key(a, k);
                size_t al = sat_keyed_len(a, k);
                sat_str ip;
                long port;
                if (!split_addr(ak, al, &ip, &port))
                    continue;
                int wild = wildcard(ip);
                uint64_t c = ((const st_server *)sat_keyed_rec(a, k))->sources;
                int better = !best || wild < bwild ||
                             (wild == bwild &&
                              (c > bn || (c == bn && cmp_bytes(ak, al, best, blen) < 0)));
                if (better) {
                    best = ak;
                    blen = al;
                    bn = c;
                    bwild = wild;
                }
            }
        }
    }
    if (nw == 1)
        return sat_arena_strdup(&s->found.arena, w, wlen);
    return best ? sat_arena_strdup(&s->found.arena, best, blen) : NULL;
}

void st_free_groups(sat_storms *s)
{
    for (size_t i = 0; i < s->ngroups; i++)
        if (s->groups[i].owned)
            sat_storms_free(s->groups[i].g);
    free(s->groups);
    s->groups = NULL;
    s->ngroups = 0;
}

/* One server: its subs merged into one analyzer, which has its inputs (their
 * time ranges: the periods' inputs) and the captures' servers. A server of one
 * sub (the usual case: one log) is finished in place, not copied: a copy would
 * hold every window, dedup key and kept connection twice at the peak. */
static int make_group(sat_storms *s, st_group *gr, const sv_sub *v, size_t n, size_t lead)
{
    size_t members = 0, only = lead;
    for (size_t i = 0; i < n; i++)
        if (top((sv_sub *)v, i) == lead) {
            members++;
            only = i;
        }
    sat_storms *g = members == 1 ? v[only].sub : st_create(&s->opts_in, 0);
    if (!g)
        return SAT_E_NOMEM;
    gr->g = g;
    gr->owned = members != 1;
    int rc = SAT_OK;
    for (size_t i = 0; i < n && rc == SAT_OK && gr->owned; i++)
        if (top((sv_sub *)v, i) == lead)
            rc = st_merge_plain(g, v[i].sub);
    if (rc == SAT_OK && sat_keyed_merge(&g->wire_servers, &s->wire_servers) < 0)
        rc = SAT_E_NOMEM;
    const char **in = rc == SAT_OK ? (const char **)sat_arena_alloc(
                                         &s->found.arena,
                                         (sat_keyed_n(&s->src_ids) + 1) * sizeof *in)
                                   : NULL;
    if (rc == SAT_OK && !in)
        rc = SAT_E_NOMEM;
    for (size_t k = 0; rc == SAT_OK && k < sat_keyed_n(&s->src_ids); k++) { /* as read */
        const char *key = sat_keyed_key(&s->src_ids, k);
        size_t klen = sat_keyed_len(&s->src_ids, k);
        const st_srcid *r = (const st_srcid *)sat_keyed_rec(&s->src_ids, k);
        uint32_t id;
        memcpy(&id, key, 4);
        int mine = 0;
        for (size_t i = 0; i < n && !mine; i++) {
            if (top((sv_sub *)v, i) != lead)
                continue;
            if (v[i].key[0] == 'L')
                mine = v[i].server == (uint32_t)r->server;
            else if (v[i].key[0] == 'W')
                mine = sat_strtab_find(&v[i].sub->wire_sources.tab, &id, sizeof id) != NULL;
        }
        if (!mine)
            continue;
        if (!(in[gr->ninputs++] = sat_arena_strdup(&s->found.arena, key + 4, klen - 4)))
            rc = SAT_E_NOMEM;
        else if (r->first_ts > 0 && r->first_ts != SAT_ACC_NONE_MIN)
            st_keep_source(g, key + 4, klen - 4, r->first_ts, r->last_ts);
    }
    gr->inputs = in;
    if (rc == SAT_OK)
        rc = st_finish_plain(g);
    return rc;
}

static int cmp_period(const void *x, const void *y)
{
    const st_period_found *a = (const st_period_found *)x, *b = (const st_period_found *)y;
    if (a->start_ts != b->start_ts)
        return a->start_ts < b->start_ts ? -1 : 1;
    return a->first_storm < b->first_storm ? -1 : a->first_storm > b->first_storm;
}

static int cmp_storm(const void *x, const void *y)
{
    const sat_storm *a = (const sat_storm *)x, *b = (const sat_storm *)y;
    if (a->start_ts != b->start_ts)
        return a->start_ts < b->start_ts ? -1 : 1;
    return a->period < b->period ? -1 : a->period > b->period;
}

/* The servers' periods and storms listed together, in time order (a server
 * before another at the same time: the servers' order), each with its
 * server. */
static int list_found(sat_storms *s)
{
    st_found *fd = &s->found;
    size_t np = 0, ns = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        np += s->groups[i].g->found.nperiods;
        ns += s->groups[i].g->found.storms.nstorms;
    }
    st_period_found *vp = (st_period_found *)sat_arena_alloc(&fd->arena, (np + 1) * sizeof *vp);
    sat_storm *st = (sat_storm *)sat_arena_alloc(&fd->arena, (ns + 1) * sizeof *st);
    size_t *to = (size_t *)malloc((np + 1) * sizeof *to);
    if (!vp || !st || !to) {
        free(to);
        return SAT_E_NOMEM;
    }
    size_t p = 0, k = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        const st_found *gf = &s->groups[i].g->found;
        for (size_t j = 0; j < gf->nperiods; j++) {
            vp[p + j] = gf->periods[j];
            vp[p + j].server = s->groups[i].server;
            vp[p + j].first_storm = p + j; /* its index until sorted */
        }
        for (size_t j = 0; j < gf->storms.nstorms; j++) {
            st[k] = gf->storms.storms[j];
            st[k].period += p;
            st[k++].server = s->groups[i].server;
        }
        p += gf->nperiods;
    }
    qsort(vp, np, sizeof *vp, cmp_period);
    for (size_t j = 0; j < np; j++)
        to[vp[j].first_storm] = j;
    for (size_t j = 0; j < ns; j++)
        st[j].period = to[st[j].period];
    qsort(st, ns, sizeof *st, cmp_storm);
    for (size_t j = 0; j < np; j++)
        vp[j].first_storm = ns;
    for (size_t j = ns; j-- > 0;)
        vp[st[j].period].first_storm = j;
    free(to);
    fd->periods = vp;
    fd->nperiods = np;
    fd->storms.storms = st;
    fd->storms.nstorms = ns;
    fd->window = np ? vp[0].window : s->ngroups ? s->groups[0].g->found.window : 0;
    for (size_t j = 0; j < np; j++) {
        fd->nwindows += vp[j].nwindows;
        if (vp[j].busiest_events > fd->busiest_events) {
            fd->busiest_events = vp[j].busiest_events;
            fd->busiest_ts = vp[j].busiest_ts;
            fd->busiest_window = vp[j].window;
        }
    }
    return SAT_OK;
}

int sat_storms_finish(sat_storms *s)
{
    if (!s)
        return SAT_E_USAGE;
    if (!s->router)
        return st_finish_plain(s);
    s->last_log_sub = NULL; /* finish merges subs into servers */
    st_free_groups(s);
    st_found *fd = &s->found;
    sat_arena_free(&fd->arena);
    memset(fd, 0, sizeof *fd);
    fd->arena.chunk_size = (size_t)64 << 10;
    fd->window = s->ser[0].window;
    s->tall = s->t;
    size_t n = s->nsubs;
    sv_sub *v = (sv_sub *)calloc(n + 1, sizeof *v);
    s->groups = (st_group *)calloc(n + 1, sizeof *s->groups);
    if (!v || !s->groups) {
        free(v);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        v[i].key = sat_strtab_key(&s->subkeys, i);
        v[i].len = sat_strtab_len(&s->subkeys, i);
        v[i].sub = s->subs[*(const uint32_t *)sat_strtab_val(&s->subkeys, i)];
    }
    qsort(v, n, sizeof *v, cmp_key);
    st_groups(s, v, n);
    int rc = SAT_OK;
    for (size_t i = 0; i < n && rc == SAT_OK; i++) {
        if (top(v, i) != i)
            continue;
        st_group *gr = &s->groups[s->ngroups++];
        gr->server = server_name(s, v, n, i);
        rc = make_group(s, gr, v, n, i);
        if (gr->g) {
            sat_rec_merge(&st_totals_desc, &s->tall, &gr->g->t);
            s->nomem |= gr->g->nomem;
        }
    }
    free(v);
    if (rc == SAT_OK)
        rc = list_found(s);
    if (rc < 0)
        return rc;
    return s->nomem ? SAT_E_NOMEM : SAT_OK;
}

int sat_storms_merge(sat_storms *into, const sat_storms *from)
{
    if (!into || !from || into->router != from->router)
        return SAT_E_USAGE;
    if (!into->router)
        return st_merge_plain(into, from);
    into->last_log_sub = NULL;
    if (into->nser != from->nser || into->ser[0].base != from->ser[0].base ||
        into->opts.slow != from->opts.slow)
        return SAT_E_USAGE; /* made with other options */
    sat_rec_merge(&st_totals_desc, &into->t, &from->t);
    if (sat_keyed_merge(&into->wire_servers, &from->wire_servers) < 0 ||
        sat_keyed_merge(&into->src_ids, &from->src_ids) < 0)
        into->nomem = 1;
    for (size_t i = 0; i < from->subkeys.n && !into->nomem; i++) {
        sat_storms *sub = sub_at(into, sat_strtab_key(&from->subkeys, i),
                                 sat_strtab_len(&from->subkeys, i));
        const sat_storms *f = from->subs[*(const uint32_t *)sat_strtab_val(&from->subkeys, i)];
        if (sub && st_merge_plain(sub, f) < 0)
            into->nomem = 1;
    }
    return into->nomem ? SAT_E_NOMEM : SAT_OK;
}
