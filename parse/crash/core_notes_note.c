/*
 * core_notes_note.c - the notes of a core's PT_NOTE segments (System V gABI
 * note layout; Linux elfcore.h and fs/binfmt_elf.c): each thread's
 * NT_PRSTATUS with its registers, NT_PRPSINFO, the crashing thread's
 * NT_SIGINFO, NT_AUXV and the NT_FILE table of mapped files.
 */
#include "core_notes_int.h"

/* ---- notes -------------------------------------------------------------------------- */

static void note_prstatus(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    if (!CN_GROW(r, f->threads, r->cap_threads, f->nthreads, MAX_THREADS)) {
        if (!r->oom)
            sat_cn_warn(f, "more than %u threads: the rest are not listed", MAX_THREADS);
        return;
    }
    sat_cursor c = sat_cursor_make(d, n);
    sat_core_thread t;
    memset(&t, 0, sizeof t);
    sat_cursor_skip(&c, 12); /* pr_info: si_signo, si_code, si_errno */
    t.cursig = sat_cursor_le16(&c);
    sat_cursor_skip(&c, r->is64 ? 2 + 8 : 2 + 4); /* pad, sigpend */
    t.sighold = word(&c, r->is64);
    t.tid = (int32_t)sat_cursor_le32(&c);
    if (c.err) {
        sat_cn_warn(f, "an NT_PRSTATUS note of %zu bytes is too short", n);
        return;
    }
    /* pr_ppid, pr_pgrp, pr_sid, then four struct timevals: the register
     * block starts at 112 (64-bit) or 72 (32-bit) */
    size_t regs_at = r->is64 ? 112 : 72;
    unsigned nregs = 0, ipc = 0, isp = 0, ifp = 0, wsz = r->is64 ? 8 : 4;
    switch (f->arch) {
    case SAT_ARCH_X86_64: nregs = 27; ipc = 16; isp = 19; ifp = 4; break;   /* rip rsp rbp */
    case SAT_ARCH_AARCH64: nregs = 34; ipc = 32; isp = 31; ifp = 29; break; /* pc sp x29 */
    case SAT_ARCH_I386: nregs = 17; ipc = 12; isp = 15; ifp = 5; break;     /* eip esp ebp */
    default: break;
    }
    if (nregs && n >= regs_at + (size_t)nregs * wsz) {
        sat_cursor rc = sat_cursor_make(d + regs_at, (size_t)nregs * wsz);
        for (unsigned i = 0; i < nregs; i++) {
            uint64_t v = word(&rc, r->is64);
            if (i == ipc)
                t.pc = v;
            else if (i == isp)
                t.sp = v;
            else if (i == ifp)
                t.fp = v;
        }
        t.regs = 1;
    } else if (nregs) {
        sat_cn_warn(f, "thread %d: NT_PRSTATUS holds no whole register set", (int)t.tid);
    }
    f->threads[f->nthreads++] = t;
}

static void note_prpsinfo(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    sat_cursor c = sat_cursor_make(d, n);
    int32_t uid, gid, pid, ppid;
    size_t fname_at;
    if (r->is64) {
        sat_cursor_skip(&c, 16); /* state, sname, zomb, nice, pad, pr_flag */
        uid = (int32_t)sat_cursor_le32(&c);
        gid = (int32_t)sat_cursor_le32(&c);
        fname_at = 40;
    } else if (n >= 128) { /* 32-bit ids */
        sat_cursor_skip(&c, 8);
        uid = (int32_t)sat_cursor_le32(&c);
        gid = (int32_t)sat_cursor_le32(&c);
        fname_at = 32;
    } else { /* i386 (and compat): __kernel_uid_t is 16 bits */
        sat_cursor_skip(&c, 8);
        uid = sat_cursor_le16(&c);
        gid = sat_cursor_le16(&c);
        fname_at = 28;
    }
    pid = (int32_t)sat_cursor_le32(&c);
    ppid = (int32_t)sat_cursor_le32(&c);
    if (c.err || n < fname_at + 16 + 80) {
        sat_cn_warn(f, "the NT_PRPSINFO note is %zu bytes, too short", n);
        if (c.err)
            return;
    }
    f->uid = uid;
    f->gid = gid;
    f->pid = pid;
    f->ppid = ppid;
    if (n > fname_at)
        sat_cn_copy_text(f->fname, sizeof f->fname, d + fname_at,
                         n - fname_at < 16 ? n - fname_at : 16);
    if (n > fname_at + 16)
        sat_cn_copy_text(f->psargs, sizeof f->psargs, d + fname_at + 16,
                         n - fname_at - 16 < 80 ? n - fname_at - 16 : 80);
    f->have |= SAT_CORE_HAVE_PRPSINFO;
}

static void note_siginfo(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    int32_t signo, code;
    uint64_t addr;
    if (!sat_core_siginfo(f, d, n, &signo, &code, &addr)) {
        sat_cn_warn(f, "the NT_SIGINFO note is %zu bytes, too short", n);
        return;
    }
    f->si_signo = signo;
    f->si_code = code;
    f->si_errno = (int32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
    f->si_addr = addr;
    f->si_addr_valid = sat_core_signal_has_addr(signo, code);
    /* kill(2), tgkill(2), sigqueue(3), mq_notify: the kernel fills in who sent it
     * (the union is 8-aligned in ELF64, so it starts at 16, at 12 in ELF32) */
    f->si_pid = f->si_uid = 0;
    if (code == 0 || code == -1 || code == -3 || code == -6) {
        size_t at = f->elfclass == 64 ? 16 : 12;
        if (n >= at + 8) {
            sat_cursor c = sat_cursor_make(d + at, 8);
            int32_t pid = (int32_t)sat_cursor_le32(&c);
            int32_t uid = (int32_t)sat_cursor_le32(&c);
            if (!c.err && pid > 0) {
                f->si_pid = pid;
                f->si_uid = uid;
            }
        }
    }
    f->have |= SAT_CORE_HAVE_SIGINFO;
}

static void note_auxv(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    sat_cursor c = sat_cursor_make(d, n);
    while (sat_cursor_left(&c) >= (r->is64 ? 16u : 8u)) {
        uint64_t type = word(&c, r->is64), val = word(&c, r->is64);
        if (type == AT_NULL)
            break;
        switch (type) {
        case AT_PHDR: f->at_phdr = val; break;
        case AT_PAGESZ: f->at_pagesz = val; break;
        case AT_BASE: f->at_base = val; break;
        case AT_ENTRY: f->at_entry = val; break;
        case AT_UID: f->at_uid = (int64_t)(val & 0xffffffffu); break;
        case AT_EUID: f->at_euid = (int64_t)(val & 0xffffffffu); break;
        case AT_GID: f->at_gid = (int64_t)(val & 0xffffffffu); break;
        case AT_EGID: f->at_egid = (int64_t)(val & 0xffffffffu); break;
        case AT_SECURE: f->at_secure = (int64_t)(val & 0xffffffffu); break;
        case AT_EXECFN: f->at_execfn = val; break;
        case AT_SYSINFO_EHDR: f->at_sysinfo_ehdr = val; break;
        default: break;
        }
    }
    f->have |= SAT_CORE_HAVE_AUXV;
}

static void note_file(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    unsigned w = r->is64 ? 8 : 4;
    sat_cursor c = sat_cursor_make(d, n);
    uint64_t count = word(&c, r->is64);
    uint64_t page = word(&c, r->is64);
    if (c.err) {
        sat_cn_warn(f, "the NT_FILE note is %zu bytes, too short", n);
        return;
    }
    uint64_t fits = (n - 2 * w) / (3 * w);
    if (count > fits) {
        sat_cn_warn(f, "the NT_FILE note says %llu files but holds at most %llu",
                    (unsigned long long)count, (unsigned long long)fits);
        count = fits;
    }
    if (count > MAX_MAPS) {
        sat_cn_warn(f, "more than %u mapped files: the rest are not listed", MAX_MAPS);
        count = MAX_MAPS;
    }
    /* the strings follow the whole table */
    sat_cursor names = sat_cursor_make(d, n);
    sat_cursor_skip(&names, (size_t)(2 + 3 * count) * w);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t start = word(&c, r->is64), end = word(&c, r->is64), pgoff = word(&c, r->is64);
        size_t left = sat_cursor_left(&names);
        const uint8_t *s = names.p + names.pos;
        const uint8_t *nul = left ? memchr(s, 0, left) : NULL;
        if (!nul) {
            sat_cn_warn(f, "the NT_FILE note ends inside its file names (%llu of %llu read)",
                        (unsigned long long)i, (unsigned long long)count);
            break;
        }
        size_t slen = (size_t)(nul - s);
        sat_cursor_skip(&names, slen + 1);
        if (end < start)
            continue; /* impossible: not a mapping */
        if (!CN_GROW(r, f->maps, r->cap_maps, f->nmaps, MAX_MAPS))
            return;
        char *path = sat_arena_strdup(&f->arena_, (const char *)s, slen);
        if (!path) {
            r->oom = 1;
            return;
        }
        sat_core_mapping *m = &f->maps[f->nmaps++];
        m->start = start;
        m->end = end;
        m->offset = page && pgoff > UINT64_MAX / page ? UINT64_MAX : pgoff * page;
        m->path = path;
    }
    f->have |= SAT_CORE_HAVE_FILE;
}

/* Walks the notes in seg; on_note gets each (name, type, desc). Returns 0,
 * or -1 when the notes run past the segment (a cut or corrupt segment). */

int sat_cn_walk_notes(reader *r, sat_cursor seg, unsigned align, note_fn fn, void *u)
{
    while (sat_cursor_left(&seg) > 0) {
        if (sat_cursor_left(&seg) < 12)
            return -1;
        uint32_t namesz = sat_cursor_le32(&seg), descsz = sat_cursor_le32(&seg);
        uint32_t type = sat_cursor_le32(&seg);
        size_t npad = ((size_t)namesz + align - 1) / align * align;
        const uint8_t *name = sat_cursor_bytes(&seg, namesz);
        sat_cursor_skip(&seg, npad - namesz);
        /* the last note's padding may be missing: take the descriptor, then pad */
        const uint8_t *desc = sat_cursor_bytes(&seg, descsz);
        if (seg.err)
            return -1;
        size_t dpad = ((size_t)descsz + align - 1) / align * align - descsz;
        if (sat_cursor_left(&seg) >= dpad)
            sat_cursor_skip(&seg, dpad);
        else
            seg.pos = seg.len;
        fn(r, name, namesz, type, desc, descsz, u);
        if (r->oom)
            return 0;
    }
    return 0;
}

void sat_cn_on_core_note(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                         const uint8_t *desc, size_t descsz, void *u)
{
    (void)u;
    sat_core_facts *f = r->f;
    if (!name_is(name, namesz, "CORE"))
        return; /* "LINUX" (xstate, ...), "GNU": nothing we need */
    if (!r->first_core_note)
        r->first_core_note = (int)type;
    switch (type) {
    case NT_PRSTATUS:
        note_prstatus(r, desc, descsz);
        break;
    case NT_PRPSINFO:
        if (!(f->have & SAT_CORE_HAVE_PRPSINFO))
            note_prpsinfo(r, desc, descsz);
        break;
    case NT_AUXV:
        if (!(f->have & SAT_CORE_HAVE_AUXV))
            note_auxv(r, desc, descsz);
        break;
    case NT_FILE:
        if (!(f->have & SAT_CORE_HAVE_FILE))
            note_file(r, desc, descsz);
        break;
    case NT_SIGINFO:
        /* the crashing thread's: the kernel writes one (after the first
         * thread's NT_PRSTATUS), gdb one per thread right after its
         * NT_PRSTATUS; one met after a second thread is someone else's */
        if (!(f->have & SAT_CORE_HAVE_SIGINFO) && f->nthreads <= 1)
            note_siginfo(r, desc, descsz);
        break;
    default:
        break;
    }
}
