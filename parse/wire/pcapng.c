/*
 * pcapng.c - pcapng files read block by block (wire.h sat_pcapng_next), after
 * draft-ietf-opsawg-pcapng: Section Header Blocks in either byte order (each
 * starts a new list of interfaces), Interface Description Blocks (each with its
 * own link type, snaplen, if_tsresol - 10^-6 s by default, 10^-n or 2^-n - and
 * if_tsoffset), Enhanced Packet Blocks, Simple Packet Blocks (interface 0) and the
 * obsolete Packet Blocks. Every other block (name resolution, interface
 * statistics, decryption secrets, custom, systemd journal, unknown) is skipped by
 * its length as its bytes stream by: counted, not an error. No I/O: the caller
 * feeds the file's bytes and drops what a step consumed (collect/capture.c).
 *
 * Rules for bad input:
 *  - A block's length is trusted when it is at least 12 and its trailing copy
 *    equals the leading one. Then a fault inside the block (length not a multiple
 *    of 4, shorter than the block's fixed part, an interface id with no
 *    description, a captured length past the block, an option past the block, a
 *    time out of range) rejects that block and reading goes on at the next.
 *  - A length below 12, a trailing length that differs, a section header whose
 *    byte-order magic is unknown, a file that does not begin with a section header
 *    or that ends inside a block stop the reading (the next block cannot be found).
 *  - Interfaces are numbered by their position in the section: a rejected
 *    description still takes its number, and its packets are rejected. At most
 *    SAT_PCAPNG_MAX_IFACES per section; descriptions beyond are rejected.
 *  - A section of a major version other than 1 is skipped up to the next section
 *    header (every version keeps the type and length first).
 *  - A simple packet block carries no time: it is dated with the packet before it
 *    in the file (0, no time, before any) and counted as undated.
 * Every read of the file's bytes goes through a sat_cursor over the block.
 */
#include "satscope/wire.h"

enum {
    BT_PB = 0x00000002u,  /* obsolete packet block */
    BT_IDB = 0x00000001u,
    BT_NRB = 0x00000004u,
    BT_ISB = 0x00000005u,
    BT_EPB = 0x00000006u,
    BT_SPB = 0x00000003u,
    BT_JOURNAL = 0x00000009u,
    BT_DSB = 0x0000000Au,
    BT_SHB = 0x0A0D0D0Au,
    BT_CUSTOM = 0x00000BADu,
    BT_CUSTOM_NOCOPY = 0x40000BADu
};
#define BOM 0x1A2B3C4Du

/* The fixed part of each block read whole: type, length, fields, trailing length. */
#define FIXED_SHB 28u
#define FIXED_IDB 20u
#define FIXED_EPB 32u
#define FIXED_PB 32u
#define FIXED_SPB 16u

typedef struct pn_iface {
    int linktype;
    uint32_t snaplen;    /* 0: no limit */
    uint8_t bad;         /* its description was rejected: its packets are too */
    uint8_t binary;      /* time unit 2^-exp s, else 10^-exp s */
    uint8_t exp;
    int64_t offset_s;    /* if_tsoffset */
} pn_iface;

struct sat_pcapng {
    int big;                /* the section's byte order */
    int in_section;         /* a section header was met */
    int skip_section;       /* the section's version is not read: skip to the next */
    uint32_t section;
    pn_iface *ifs;
    size_t nifs, cap;
    uint64_t offset;        /* file offset of the current position */
    sat_ts_ns last_ts;      /* of the last dated packet */
    /* a block being skipped as it streams */
    int skipping;
    uint64_t skip_left;     /* its bytes still to come, trailing length included */
    uint32_t skip_len;
    int skip_reject;        /* its length is not a multiple of 4: a reject at its end */
    int skip_counted;       /* a skipped kind (else already rejected at its head) */
    uint64_t skip_block, skip_offset;
    uint32_t skip_type;
    int stopped;
    sat_pcapng_step stop;   /* what the stop said, said again on every later call */
    sat_pcapng_counts n;
};

sat_pcapng *sat_pcapng_create(void)
{
    return calloc(1, sizeof(sat_pcapng));
}

void sat_pcapng_free(sat_pcapng *r)
{
    if (!r)
        return;
    free(r->ifs);
    free(r);
}

void sat_pcapng_get_counts(const sat_pcapng *r, sat_pcapng_counts *out)
{
    *out = r->n;
}

static const char *kind_of(uint32_t t)
{
    switch (t) {
    case BT_SHB: return "section header";
    case BT_IDB: return "interface description";
    case BT_EPB: return "enhanced packet";
    case BT_SPB: return "simple packet";
    case BT_PB: return "packet (obsolete)";
    case BT_NRB: return "name resolution";
    case BT_ISB: return "interface statistics";
    case BT_DSB: return "decryption secrets";
    case BT_JOURNAL: return "systemd journal export";
    case BT_CUSTOM:
    case BT_CUSTOM_NOCOPY: return "custom";
    default: return "unknown type";
    }
}

static int read_whole(uint32_t t)
{
    return t == BT_SHB || t == BT_IDB || t == BT_EPB || t == BT_SPB || t == BT_PB;
}

static uint32_t rd32(const sat_pcapng *r, sat_cursor *c)
{
    return r->big ? sat_cursor_be32(c) : sat_cursor_le32(c);
}
static uint16_t rd16(const sat_pcapng *r, sat_cursor *c)
{
    return r->big ? sat_cursor_be16(c) : sat_cursor_le16(c);
}
static uint32_t peek32(const sat_pcapng *r, const uint8_t *p, size_t n)
{
    sat_cursor c = sat_cursor_make(p, n);
    return rd32(r, &c);
}

/* ---- the step's outcome ------------------------------------------------------------- */
static void about(sat_pcapng_step *s, uint64_t block, uint64_t offset, uint32_t type,
                  const uint8_t *p, size_t n)
{
    s->block = block;
    s->offset = offset;
    s->type = type;
    s->kind = kind_of(type);
    s->packet_block = type == BT_EPB || type == BT_SPB || type == BT_PB;
    s->head = p;
    s->head_len = n < 32 ? n : 32;
}

static int done(sat_pcapng_step *s, int what, const char *why)
{
    s->what = what;
    s->why = why;
    return what;
}

static int reject(sat_pcapng *r, sat_pcapng_step *s, const char *why)
{
    r->n.rejects++;
    return done(s, SAT_PCAPNG_REJECT, why);
}

static int stop(sat_pcapng *r, sat_pcapng_step *s, const char *why)
{
    r->stopped = 1;
    s->what = SAT_PCAPNG_STOP;
    s->why = why;
    r->stop = *s;
    r->stop.head = NULL; /* the caller's bytes are gone by the next call */
    r->stop.head_len = 0;
    r->stop.data = NULL;
    return SAT_PCAPNG_STOP;
}

/* ---- time ----------------------------------------------------------------------------- */
/* A count of the interface's units since the epoch, in ns; 0 when out of range (before
 * 1970 or after 2262). */
static int to_ns(const pn_iface *f, uint64_t t, sat_ts_ns *out)
{
    uint64_t sec, frac_ns;
    unsigned e = f->exp;
    if (f->binary) {
        uint64_t frac;
        if (e >= 64) {
            sec = 0;
            frac = t;
        } else {
            sec = e ? t >> e : t;
            frac = e ? t & ((UINT64_C(1) << e) - 1) : 0;
        }
        /* frac / 2^e s in ns, with at most 30 bits of the fraction (below 1 ns) */
        if (e > 30) {
            unsigned sh = e - 30;
            frac = sh >= 64 ? 0 : frac >> sh;
            e = 30;
        }
        frac_ns = (frac * UINT64_C(1000000000)) >> e;
    } else {
        uint64_t p10 = 1; /* 10^e, or 0 when e > 19 (above any uint64) */
        for (unsigned i = 0; i < e && p10; i++)
            p10 = p10 > UINT64_MAX / 10 ? 0 : p10 * 10;
        if (!p10) {
            sec = 0; /* t < 10^e */
            uint64_t d = 1;
            for (unsigned i = 9; i < e && d; i++)
                d = d > UINT64_MAX / 10 ? 0 : d * 10;
            frac_ns = d ? t / d : 0;
        } else {
            sec = t / p10;
            uint64_t rem = t % p10;
            if (e <= 9) {
                uint64_t m = 1;
                for (unsigned i = e; i < 9; i++)
                    m *= 10;
                frac_ns = rem * m;
            } else {
                uint64_t d = 1;
                for (unsigned i = 9; i < e; i++)
                    d *= 10;
                frac_ns = rem / d;
            }
        }
    }
    const int64_t lim = INT64_MAX / 1000000000 - 1;
    if (sec > (uint64_t)lim || f->offset_s > lim || f->offset_s < -lim)
        return 0;
    int64_t s = (int64_t)sec + f->offset_s;
    if (s < 0 || s > lim)
        return 0;
    *out = s * 1000000000 + (int64_t)frac_ns;
    return 1;
}

/* ---- blocks read whole ---------------------------------------------------------------- */
static int section_header(sat_pcapng *r, sat_cursor *c, uint32_t len, sat_pcapng_step *s)
{
    /* the section began at its head (byte order, interfaces); here its version */
    if (len < FIXED_SHB)
        return reject(r, s, "section header shorter than its fixed part");
    sat_cursor_skip(c, 12); /* type, length, byte-order magic */
    uint16_t major = rd16(r, c);
    if (major != 1) {
        r->skip_section = 1;
        return reject(r, s, "section of a major version other than 1: skipped to the next "
                            "section header");
    }
    return done(s, SAT_PCAPNG_READ, NULL);
}

static int interface(sat_pcapng *r, sat_cursor *c, uint32_t len, sat_pcapng_step *s)
{
    if (r->nifs >= SAT_PCAPNG_MAX_IFACES)
        return reject(r, s, "more than 65536 interfaces in a section");
    if (SAT_GROW(r->ifs, r->cap, r->nifs + 1) != SAT_OK)
        return SAT_E_NOMEM;
    pn_iface *f = &r->ifs[r->nifs++];
    memset(f, 0, sizeof *f);
    f->exp = 6; /* microseconds unless if_tsresol says otherwise */
    r->n.interfaces++;
    if (len < FIXED_IDB) {
        f->bad = 1;
        return reject(r, s, "interface description shorter than its fixed part");
    }
    sat_cursor_skip(c, 8);
    f->linktype = rd16(r, c);
    sat_cursor_skip(c, 2); /* reserved */
    f->snaplen = rd32(r, c);
    /* options up to the trailing length */
    sat_cursor o = sat_cursor_make(c->p + c->pos, len - 4 - c->pos);
    while (sat_cursor_left(&o) >= 4) {
        uint16_t code = rd16(r, &o), olen = rd16(r, &o);
        if (code == 0)
            break; /* opt_endofopt */
        const uint8_t *v = sat_cursor_bytes(&o, olen);
        sat_cursor_skip(&o, (4 - (olen & 3)) & 3); /* padding */
        if (o.err) {
            f->bad = 1;
            return reject(r, s, "interface description option runs past the block");
        }
        sat_cursor vc = sat_cursor_make(v, olen);
        if (code == 9) { /* if_tsresol */
            if (olen != 1) {
                f->bad = 1;
                return reject(r, s, "if_tsresol option is not one byte");
            }
            uint8_t b = sat_cursor_u8(&vc);
            f->binary = (b & 0x80) != 0;
            f->exp = b & 0x7f;
        } else if (code == 14) { /* if_tsoffset: seconds added to every time */
            if (olen != 8) {
                f->bad = 1;
                return reject(r, s, "if_tsoffset option is not eight bytes");
            }
            uint64_t hi, lo;
            if (r->big) {
                hi = sat_cursor_be32(&vc);
                lo = sat_cursor_be32(&vc);
            } else {
                lo = sat_cursor_le32(&vc);
                hi = sat_cursor_le32(&vc);
            }
            uint64_t u = (hi << 32) | lo;
            memcpy(&f->offset_s, &u, sizeof u);
        }
    }
    return done(s, SAT_PCAPNG_READ, NULL);
}

static int packet(sat_pcapng *r, sat_cursor *c, uint32_t type, uint32_t len,
                  sat_pcapng_step *s)
{
    uint32_t fixed = type == BT_SPB ? FIXED_SPB : type == BT_PB ? FIXED_PB : FIXED_EPB;
    r->n.packets++;
    if (len < fixed)
        return reject(r, s, type == BT_SPB ? "simple packet block shorter than its fixed part"
                            : type == BT_PB ? "packet block shorter than its fixed part"
                                            : "enhanced packet block shorter than its fixed part");
    sat_cursor_skip(c, 8);
    uint32_t iface = 0, caplen, origlen;
    uint64_t t = 0;
    if (type == BT_SPB) {
        origlen = rd32(r, c);
        caplen = origlen;
    } else {
        if (type == BT_PB) {
            iface = rd16(r, c);
            sat_cursor_skip(c, 2); /* drops count */
        } else {
            iface = rd32(r, c);
        }
        uint64_t hi = rd32(r, c), lo = rd32(r, c);
        t = (hi << 32) | lo;
        caplen = rd32(r, c);
        origlen = rd32(r, c);
    }
    if (c->err)
        return reject(r, s, "packet block shorter than its fixed part"); /* not reached */
    if (iface >= r->nifs)
        return reject(r, s, "interface id with no interface description");
    const pn_iface *f = &r->ifs[iface];
    if (f->bad)
        return reject(r, s, "packet of an interface whose description was rejected");
    if (type == BT_SPB && f->snaplen && caplen > f->snaplen)
        caplen = f->snaplen; /* the spec: min(original length, interface 0's snaplen) */
    if (caplen > len - fixed)
        return reject(r, s, "captured length past the block");
    s->data = sat_cursor_bytes(c, caplen);
    if (!s->data && caplen)
        return reject(r, s, "captured length past the block"); /* not reached */
    s->caplen = caplen;
    s->origlen = origlen;
    s->linktype = f->linktype;
    s->iface = iface;
    s->section = r->section;
    if (type == BT_SPB) {
        s->ts = r->last_ts;
        s->dated = 0;
        r->n.undated++;
    } else {
        if (!to_ns(f, t, &s->ts))
            return reject(r, s, "packet time out of range (before 1970 or after 2262)");
        s->dated = 1;
        r->last_ts = s->ts;
    }
    return done(s, SAT_PCAPNG_PACKET, NULL);
}

/* ---- a block streaming by ------------------------------------------------------------- */
static int skip_some(sat_pcapng *r, const uint8_t *buf, size_t avail, int eof, size_t *used,
                     sat_pcapng_step *s)
{
    if (r->skip_left > 4) {
        uint64_t take = r->skip_left - 4;
        if (take > avail)
            take = avail;
        if (take == 0) {
            if (eof) {
                about(s, r->skip_block, r->skip_offset, r->skip_type, NULL, 0);
                return stop(r, s, "the file ends inside a block");
            }
            s->need = 1;
            return done(s, SAT_PCAPNG_MORE, NULL);
        }
        *used = (size_t)take;
        r->skip_left -= take;
        r->offset += take;
        return done(s, SAT_PCAPNG_READ, NULL);
    }
    /* its trailing length */
    about(s, r->skip_block, r->skip_offset, r->skip_type, NULL, 0);
    if (avail < 4) {
        if (eof)
            return stop(r, s, "the file ends inside a block");
        s->need = 4;
        return done(s, SAT_PCAPNG_MORE, NULL);
    }
    uint32_t trail = peek32(r, buf, 4);
    if (trail != r->skip_len)
        return stop(r, s, "trailing block length differs from the leading one");
    *used = 4;
    r->offset += 4;
    r->skipping = 0;
    if (r->skip_reject)
        return reject(r, s, "block length not a multiple of 4");
    if (r->skip_counted) {
        r->n.skipped++;
        return done(s, SAT_PCAPNG_SKIPPED, NULL);
    }
    return done(s, SAT_PCAPNG_READ, NULL);
}

static void start_skip(sat_pcapng *r, uint32_t type, uint32_t len, int counted)
{
    r->skipping = 1;
    r->skip_left = len;
    r->skip_len = len;
    r->skip_type = type;
    r->skip_block = r->n.blocks;
    r->skip_offset = r->offset;
    r->skip_counted = counted;
    r->skip_reject = counted && (len & 3) != 0;
}

/* ---- one step ---------------------------------------------------------------------------- */
int sat_pcapng_next(sat_pcapng *r, const uint8_t *buf, size_t avail, int eof, size_t *used,
                    sat_pcapng_step *s)
{
    memset(s, 0, sizeof *s);
    *used = 0;
    if (r->stopped) {
        *s = r->stop;
        return SAT_PCAPNG_STOP;
    }
    if (r->skipping)
        return skip_some(r, buf, avail, eof, used, s);

    /* a block's head: type and length (and a section header's byte-order magic). Nothing
     * changes before the step has all it needs: a step that asks for more is repeated. */
    if (avail == 0 && eof)
        return done(s, SAT_PCAPNG_END, NULL);
    uint64_t number = r->n.blocks + 1;
    sat_cursor c = sat_cursor_make(buf, avail);
    uint32_t type = sat_cursor_le32(&c); /* the section header's type reads alike both ways */
    if (!c.err && type != BT_SHB)
        type = peek32(r, buf, avail);
    size_t head = type == BT_SHB ? 12 : 8;
    about(s, number, r->offset, type, buf, avail);
    if (avail < head) {
        if (eof) {
            r->n.blocks++;
            return stop(r, s, "the file ends inside a block's header");
        }
        s->need = head;
        return done(s, SAT_PCAPNG_MORE, NULL);
    }
    int big = r->big;
    if (type == BT_SHB) {
        sat_cursor_skip(&c, 4);
        uint32_t bom = sat_cursor_le32(&c);
        if (bom == BOM) {
            big = 0;
        } else if (bom == 0x4D3C2B1Au) {
            big = 1;
        } else {
            r->n.blocks++;
            return stop(r, s, "section header with an unknown byte-order magic");
        }
    } else if (!r->in_section) {
        r->n.blocks++;
        return stop(r, s, "the file does not begin with a section header block");
    }
    sat_cursor lc = sat_cursor_make(buf + 4, 4);
    uint32_t len = big ? sat_cursor_be32(&lc) : sat_cursor_le32(&lc);
    if (len < 12) {
        r->n.blocks++;
        return stop(r, s, "block length below 12");
    }
    int skip_all = r->skip_section && type != BT_SHB;
    int whole = read_whole(type) && !skip_all && len <= SAT_PCAPNG_MAX_BLOCK;
    if (whole && avail < len) {
        if (eof) {
            r->n.blocks++;
            return stop(r, s, "the file ends inside a block");
        }
        s->need = len;
        return done(s, SAT_PCAPNG_MORE, NULL);
    }

    r->n.blocks++;
    if (type == BT_SHB) {
        /* a new section: its own byte order, no interfaces yet */
        r->big = big;
        r->in_section = 1;
        r->skip_section = 0;
        r->section++;
        r->n.sections++;
        r->nifs = 0;
    }
    if (!whole) {
        if (skip_all || !read_whole(type)) {
            start_skip(r, type, len, 1);
            return skip_some(r, buf, avail, eof, used, s);
        }
        start_skip(r, type, len, 0); /* longer than SAT_PCAPNG_MAX_BLOCK */
        if (type == BT_EPB || type == BT_SPB || type == BT_PB)
            r->n.packets++;
        return reject(r, s, "block longer than 16 MiB");
    }
    if (peek32(r, buf + len - 4, 4) != len)
        return stop(r, s, "trailing block length differs from the leading one");
    *used = len;
    r->offset += len;
    s->head_len = len < 32 ? len : 32;
    if (len & 3) {
        if (type == BT_EPB || type == BT_SPB || type == BT_PB)
            r->n.packets++;
        else if (type == BT_IDB && r->nifs < SAT_PCAPNG_MAX_IFACES) {
            /* it keeps its number: the packets that name it are rejected */
            if (SAT_GROW(r->ifs, r->cap, r->nifs + 1) != SAT_OK)
                return SAT_E_NOMEM;
            memset(&r->ifs[r->nifs], 0, sizeof r->ifs[0]);
            r->ifs[r->nifs++].bad = 1;
            r->n.interfaces++;
        }
        return reject(r, s, "block length not a multiple of 4");
    }
    c = sat_cursor_make(buf, len);
    switch (type) {
    case BT_SHB: return section_header(r, &c, len, s);
    case BT_IDB: return interface(r, &c, len, s);
    default: return packet(r, &c, type, len, s);
    }
}
