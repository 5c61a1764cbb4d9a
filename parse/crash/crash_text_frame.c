/*
 * crash_text_frame.c - one stack frame as text (crash_text.c): glibc's
 * backtrace_symbols() (debug/backtracesyms.c), Ceph's BackTrace.cc forms and
 * gdb's frame printing (gdb/stack.c), read into a view of the line.
 */
#include "crash_text_int.h"

void sat_ct_fview_init(fview *f)
{
    memset(f, 0, sizeof *f);
    f->pc = f->offset = f->fn_offset = SAT_ABSENT;
    f->line = SAT_ABSENT;
}

/* ---- frame parsers ---------------------------------------------------------------------- */
static int module_char(int c)
{
    return isalnum_(c) || c == '.' || c == '/' || c == '_' || c == '-' || c == '+' ||
           c == '~' || c == '@';
}

/* A backtrace_symbols() frame ending the text p..end: "module(fn+0xoff)[0xpc]",
 * "module(+0xoff) [0xpc]", "module() [0xpc]" or "[0xpc]" (bare_pc). */
int sat_ct_glibc_frame(const char *p, const char *end, fview *f)
{
    sat_ct_fview_init(f);
    end = trim_end(p, end);
    if (end - p < 4 || end[-1] != ']')
        return 0;
    const char *lb = end - 1;
    while (lb > p && lb[-1] != '[')
        lb--;
    if (lb == p)
        return 0;
    lb--; /* at '[' */
    int64_t pc;
    const char *h = sat_ct_hex_num(lb + 1, end - 1, 1, &pc);
    if (!h || h != end - 1)
        return 0;
    f->pc = pc;
    const char *r = lb;
    if (r > p && r[-1] == ' ')
        r--;
    if (r == p || r[-1] != ')') {
        if (lb == p || isblank_(lb[-1])) { /* "[0x...]" alone: dladdr found nothing */
            f->bare_pc = 1;
            f->start = lb;
            return 1;
        }
        return 0;
    }
    const char *close = r - 1, *open = close;
    while (open > p && *open != '(')
        open--;
    if (*open != '(')
        return 0;
    const char *in = open + 1, *plus = NULL;
    for (const char *q = in; q < close; q++)
        if (*q == '+')
            plus = q;
    if (plus) {
        int64_t off;
        const char *oe = sat_ct_hex_num(plus + 1, close, 1, &off);
        if (!oe || oe != close)
            return 0;
        if (plus > in) {
            f->function = in;
            f->function_len = (size_t)(plus - in);
            f->fn_offset = off;
        } else {
            f->offset = off;
        }
    } else if (in != close) {
        return 0;
    }
    const char *m = open;
    while (m > p && !isblank_(m[-1]))
        m--;
    if (m == open)
        return 0; /* glibc always names a module before '(' */
    for (const char *q = m; q < open; q++)
        if (!module_char((unsigned char)*q))
            return 0;
    f->module = m;
    f->module_len = (size_t)(open - m);
    f->start = m;
    return 1;
}

/* Ceph prints C functions it could not demangle as "name()": the name alone,
 * as gdb and the skip list spell it. C++ names keep their parameter list. */
static void strip_c_parens(fview *f)
{
    const char *s = f->function;
    size_t n = f->function_len;
    if (!s || n < 3 || s[n - 2] != '(' || s[n - 1] != ')')
        return;
    for (size_t i = 0; i + 2 < n; i++)
        if (!isalnum_((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
            return;
    f->function_len = n - 2;
}

/* One Ceph frame after " N: ". */
void sat_ct_ceph_frame(const char *p, const char *end, fview *f)
{
    end = trim_end(p, end);
    if (p < end && *p == '(') {
        sat_ct_fview_init(f);
        const char *close = NULL;
        if (end[-1] == ']') {
            const char *lb = end - 1;
            while (lb > p && *lb != '[')
                lb--;
            int64_t pc;
            const char *h = *lb == '[' ? sat_ct_hex_num(lb + 1, end - 1, 1, &pc) : NULL;
            if (h && h == end - 1) {
                f->pc = pc;
                const char *r = lb;
                if (r > p && r[-1] == ' ')
                    r--;
                if (r > p + 1 && r[-1] == ')')
                    close = r - 1;
            }
        }
        if (!close) { /* cut: the function as far as it goes */
            f->function = p + 1;
            f->function_len = (size_t)(end - p - 1);
            f->cut = 1;
            return;
        }
        const char *plus = NULL;
        for (const char *q = close; q > p + 1; q--)
            if (q[-1] == '+' && q + 1 < close && q[0] == '0' && q[1] == 'x') {
                plus = q - 1;
                break;
            }
        int64_t off;
        if (plus && sat_ct_hex_num(plus + 1, close, 1, &off) == close) {
            const char *name = p + 1;
            size_t nlen = (size_t)(plus - name);
            if (nlen == 2 && name[0] == '(' && name[1] == ')') {
                f->offset = off; /* "(()+0x12cf0)": no symbol, offset in its module */
            } else {
                f->function = name;
                f->function_len = nlen;
                f->fn_offset = off;
            }
        } else {
            f->function = p + 1;
            f->function_len = (size_t)(close - p - 1);
        }
        strip_c_parens(f);
        return;
    }
    if (sat_ct_glibc_frame(p, end, f) && f->start == p)
        return; /* "/lib64/libc.so.6(+0x54db0) [0x..]", "ceph-mon() [0x..]" */
    sat_ct_fview_init(f); /* "gsignal()", "main()", or text this parser does not know */
    f->function = p;
    f->function_len = (size_t)(end - p);
    strip_c_parens(f);
}

/* gdb: the arguments' closing parenthesis, past quoted strings; NULL if cut. */
static const char *args_end(const char *p, const char *end)
{
    int depth = 0;
    for (const char *q = p; q < end; q++) {
        if (*q == '"' || *q == '\'') {
            char quote = *q;
            for (q++; q < end && *q != quote; q++)
                if (*q == '\\')
                    q++;
            if (q >= end)
                return NULL;
        } else if (*q == '(') {
            depth++;
        } else if (*q == ')') {
            if (--depth == 0)
                return q;
        }
    }
    return NULL;
}

/* A handler's signal argument: "sig=11", "signum=6", "signo=11". */
static int32_t sig_arg(const char *p, const char *end)
{
    static const char *const names[] = {"sig=", "signum=", "signo=", "signal="};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *q = p;
        while ((q = find(q, end, names[i])) != NULL) {
            if (q == p || q[-1] == '(' || q[-1] == ' ') {
                int32_t v;
                const char *e = sat_ct_dec_num(q + strlen(names[i]), end, &v);
                if (e && (e == end || *e == ',' || *e == ')') && v > 0 && v < 65)
                    return v;
            }
            q += strlen(names[i]);
        }
    }
    return 0;
}

/* What gdb prints of a frame after "#N  " (and alone for the stop location):
 * "0xPC in name (args) at file:line", "name (args) from lib", ... */
int sat_ct_gdb_frame_body(const char *q, const char *end, fview *f)
{
    if (q >= end)
        return 0;
    if (starts(q, end, "<signal handler called>")) {
        f->function = q;
        f->function_len = 23;
        f->flags = SAT_FRAMEF_SIGNAL;
        return 1;
    }
    if (starts(q, end, "0x")) {
        int64_t pc;
        const char *h = sat_ct_hex_num(q, end, 1, &pc);
        if (!h || !starts(h, end, " in "))
            return 0;
        f->pc = pc;
        q = h + 4;
    } else if (!(isalpha_((unsigned char)*q) || *q == '_' || *q == '(' || *q == '?' ||
                 *q == '<' || *q == '~')) {
        return 0;
    }
    /* the name ends at " (" outside template brackets and parentheses */
    const char *name = q;
    int angle = 0, paren = 0;
    while (q < end) {
        if (starts(q, end, "operator")) { /* operator<<, operator(), operator-> */
            q += 8;
            if (starts(q, end, "()") || starts(q, end, "[]"))
                q += 2;
            else
                while (q < end && *q && strchr("<>=!+-*/%^&|~,", *q))
                    q++;
            continue;
        }
        if (*q == '<')
            angle++;
        else if (*q == '>' && angle > 0)
            angle--;
        else if (*q == '(')
            paren++;
        else if (*q == ')' && paren > 0)
            paren--;
        else if (*q == ' ' && q + 1 < end && q[1] == '(' && !angle && !paren)
            break;
        q++;
    }
    const char *name_end = q;
    if (name_end == name)
        return 0;
    if (!(name_end - name == 2 && name[0] == '?' && name[1] == '?')) {
        f->function = name;
        f->function_len = (size_t)(name_end - name);
    }
    if (q >= end) {
        f->cut = f->pc == SAT_ABSENT; /* "#0  0x.. in ??" is whole; a name alone is not */
        return 1;
    }
    const char *ae = args_end(q + 1, end);
    if (!ae) {
        f->cut = 1;
        return 1;
    }
    f->sigarg = sig_arg(q + 2, ae);
    q = ae + 1;
    const char *at = find(q, end, " at ");
    const char *from = find(q, end, " from ");
    if (at) {
        const char *file = at + 4, *colon = NULL;
        for (const char *r = end; r > file; r--)
            if (r[-1] == ':') {
                colon = r - 1;
                break;
            }
        int32_t line = 0;
        if (colon && sat_ct_dec_num(colon + 1, end, &line) == end) {
            f->file = file;
            f->file_len = (size_t)(colon - file);
            f->line = line;
        } else {
            f->file = file;
            f->file_len = (size_t)(end - file);
        }
    } else if (from) {
        f->module = from + 6;
        f->module_len = (size_t)(end - from - 6);
    }
    return 1;
}

/* A gdb frame line at p ('#'). */
int sat_ct_gdb_frame(const char *p, const char *end, fview *f)
{
    sat_ct_fview_init(f);
    end = trim_end(p, end);
    if (p >= end || *p != '#')
        return 0;
    int32_t num;
    const char *q = sat_ct_dec_num(p + 1, end, &num);
    if (!q || q >= end || !isblank_(*q))
        return 0;
    f->start = p;
    return sat_ct_gdb_frame_body(skip_blanks(q, end), end, f);
}
