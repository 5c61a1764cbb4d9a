/*
 * http_path.c - the path template of a request target: what groups requests
 * to the same handler whatever ids they carry, so that "/item/1234?x=1" and
 * "/item/99" both count under "/item/{n}".
 *
 * The rule, segment by segment (RFC 3986 section 3.3 path segments):
 *   - the query ('?...') and fragment ('#...') are dropped; an absolute-form
 *     target ("http://host/p", a proxy's) keeps its path only;
 *   - a segment of digits only                      -> {n}
 *   - digits with dots between them ("1.2", "10.0.0.7", "2024.01.05"): one
 *     number-like id, not a stem and an extension -> {n}; with an extension
 *     after them ("2024.01.05.log")              -> {n}.log
 *   - a UUID (8-4-4-4-12 hex digits)                -> {uuid}
 *   - "0x" and hex digits, or 16 or more hex digits with a decimal digit
 *     among them (so that "accepted" stays a word), or 8 to 15 of which half
 *     are decimal digits (random hex ids: digits are 10 of the 16)  -> {hex}
 *   - letters and digits (and '-', '_'), at least 3 long, with a letter, a
 *     digit, and digits at least a third of it ("abc123def", "zz9"), but not a
 *     version ("v2", "v1.3")                         -> {id}
 *   - otherwise the segment is kept as logged.
 * A segment with an extension ("12345.jpg") is judged on its stem and keeps
 * the extension ("{n}.jpg"); each dot-separated part after the stem that is a
 * number or a hash (8 or more hex digits, a decimal one among them) is
 * templated on its own: "app.72526.js" -> "app.{n}.js", "app.3f9a1c2b.css" ->
 * "app.{hex}.css", "jquery-3.6.0.min.js" -> "jquery-3.{n}.{n}.min.js", but not
 * inside a version segment ("v1.3"). Without it a build-numbered static file
 * is a template of one request per build and vanishes from the tables.
 *
 * Static or dynamic: a request for a file the server sends as it is, told by
 * its extension (the list below, said once; GoAccess's is alike): stylesheets,
 * scripts, images, fonts, media, documents and archives. A page (.html) or a
 * path without an extension is dynamic: it may be made per request.
 */
#include "http_int.h"

/* The extensions, by their first character (a-z, then 0-9), each list
 * " a b " so that a word is found whole: a request costs the lookup of its
 * own letter's few. */
static const char *const static_exts[36] = {
    [0] = " avif avi ", /* a */
    [1] = " bmp ", /* b */
    [2] = " css csv ", /* c */
    [3] = " doc docx ", /* d */
    [4] = " eot exe ", /* e */
    [5] = " flv ", /* f */
    [6] = " gif gz ", /* g */
    [8] = " ico iso ", /* i */
    [9] = " js jpg jpeg ", /* j */
    [12] = " mjs map mp3 mp4 mpeg mpg ", /* m */
    [14] = " otf ogg ", /* o */
    [15] = " png pdf ppt pptx ", /* p */
    [17] = " rar ", /* r */
    [18] = " svg swf ", /* s */
    [19] = " tif tiff ttf txt tgz tar ", /* t */
    [22] = " webp woff woff2 webm wasm ", /* w */
    [23] = " xls xlsx ", /* x */
    [25] = " zip ", /* z */
    [33] = " 7z ", /* 7 */
};

int sat_http_path_is_static(const char *path, size_t len)
{
    /* the path ends at its query or fragment (memchr: the scan of a long
     * path is the cost here) */
    const char *end = path + len, *q = memchr(path, '?', len);
    if (q)
        end = q;
    q = memchr(path, '#', (size_t)(end - path));
    if (q)
        end = q;
    /* the last segment and its last dot, in one scan back */
    const char *seg = end, *dot = NULL;
    while (seg > path && seg[-1] != '/') {
        seg--;
        if (!dot && *seg == '.')
            dot = seg + 1;
    }
    if (!dot || dot <= seg + 1) /* no extension, or a dot file */
        return 0;
    /* the extension in lower case (none of the list is longer than 5), then
     * the list of its first character */
    size_t n = (size_t)(end - dot);
    char ext[6];
    if (n > 5)
        return 0;
    for (size_t i = 0; i < n; i++)
        ext[i] = (char)(dot[i] >= 'A' && dot[i] <= 'Z' ? dot[i] - 'A' + 'a' : dot[i]);
    ext[n] = '\0';
    int first = ext[0] >= 'a' && ext[0] <= 'z' ? ext[0] - 'a'
              : ext[0] >= '0' && ext[0] <= '9' ? 26 + ext[0] - '0'
                                               : -1;
    const char *list = first >= 0 ? static_exts[first] : NULL;
    char word[8] = " ";
    memcpy(word + 1, ext, n);
    word[n + 1] = ' ';
    word[n + 2] = '\0';
    if (list && strstr(list, word))
        return 1;
    return 0;
}

static int is_hex(char c)
{
    return hx_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int all_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_hex(p[i]))
            return 0;
    return 1;
}

static int is_uuid(const char *p, size_t n)
{
    static const int groups[5] = {8, 4, 4, 4, 12};
    if (n != 36)
        return 0;
    size_t at = 0;
    for (int g = 0; g < 5; g++) {
        if (!all_hex(p + at, (size_t)groups[g]))
            return 0;
        at += (size_t)groups[g];
        if (g < 4 && p[at++] != '-')
            return 0;
    }
    return 1;
}

static int is_version(const char *p, size_t n)
{
    if (n < 2 || (p[0] != 'v' && p[0] != 'V'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!hx_digit(p[i]) && p[i] != '.')
            return 0;
    return hx_digit(p[1]);
}

/* The placeholder for a segment stem, or NULL to keep it. */
static const char *classify(const char *p, size_t n)
{
    if (n == 0)
        return NULL;
    size_t digits = 0, letters = 0, hexes = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (hx_digit(c))
            digits++;
        else if (is_alpha(c))
            letters++;
        else if (c != '-' && c != '_')
            other++;
        if (is_hex(c))
            hexes++;
    }
    if (digits == n)
        return "{n}";
    if (is_uuid(p, n))
        return "{uuid}";
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && all_hex(p + 2, n - 2))
        return "{hex}";
    if (n >= 8 && hexes == n && digits && (n >= 16 || digits * 2 >= n))
        return "{hex}";
    if (!other && n >= 3 && letters && digits && digits * 3 >= digits + letters &&
        !is_version(p, n))
        return "{id}";
    return NULL;
}

/* Digits with single dots between them, at least one dot. */
static int dotted_number(const char *p, size_t n)
{
    int dots = 0;
    if (n < 3 || !hx_digit(p[0]) || !hx_digit(p[n - 1]))
        return 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (p[i] == '.') {
            if (p[i + 1] == '.')
                return 0;
            dots++;
        } else if (!hx_digit(p[i])) {
            return 0;
        }
    }
    return dots > 0;
}

/* Appends s (n bytes) if it fits in out[cap - 1]; 0 if it does not. */
static int put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    if (*o + n >= cap)
        return 0;
    memcpy(out + *o, s, n);
    *o += n;
    return 1;
}

/* A dot-separated part after a segment's stem: a build number or a content
 * hash ("app.72526.js", "app.3f9a1c2b.css", "access.log.1") or a word. */
static const char *part_placeholder(const char *p, size_t n)
{
    size_t digits = 0, hexes = 0;
    for (size_t i = 0; i < n; i++) {
        digits += hx_digit(p[i]) != 0;
        hexes += is_hex(p[i]) != 0;
    }
    if (n && digits == n)
        return "{n}";
    if (n >= 8 && hexes == n && digits)
        return "{hex}";
    return NULL;
}

/* The rest of a segment after its stem, [p, e) (empty, or '.' first), part by
 * part: numbers and hashes inside a segment are templated too. 0 if it does
 * not fit. */
static int put_parts(char *out, size_t cap, size_t *o, const char *p, const char *e)
{
    while (p < e) {
        const char *q = p + 1; /* p is at a '.' */
        while (q < e && *q != '.')
            q++;
        const char *ph = part_placeholder(p + 1, (size_t)(q - p - 1));
        if (!(ph ? put(out, cap, o, ".", 1) && put(out, cap, o, ph, strlen(ph))
                 : put(out, cap, o, p, (size_t)(q - p))))
            return 0;
        p = q;
    }
    return 1;
}

size_t sat_http_path_template(const char *path, size_t len, char *out, size_t cap)
{
    const char *p = path, *end = path + len;
    size_t o = 0;
    if (cap == 0)
        return 0;
    /* absolute-form: scheme://authority/path */
    for (const char *s = p; s + 2 < end && s - p < 16; s++) {
        if (*s == ':' && s[1] == '/' && s[2] == '/' && s > p) {
            const char *a = s + 3;
            while (a < end && *a != '/' && *a != '?' && *a != '#')
                a++;
            p = a;
            break;
        }
        if (!is_alpha(*s) && !hx_digit(*s) && *s != '+' && *s != '-' && *s != '.')
            break;
    }
    const char *stop = p;
    while (stop < end && *stop != '?' && *stop != '#')
        stop++;
    if (stop == p) {
        out[0] = '/';
        out[cap > 1 ? 1 : 0] = '\0';
        return cap > 1 ? 1 : 0;
    }
    while (p < stop) {
        /* the separators as logged, then one segment */
        const char *s = p;
        while (s < stop && *s == '/')
            s++;
        const char *e = s;
        while (e < stop && *e != '/')
            e++;
        size_t mark = o;
        int ok = put(out, cap, &o, p, (size_t)(s - p));
        if (ok && e > s) {
            const char *dot = memchr(s, '.', (size_t)(e - s));
            const char *stem_end = dot && dot > s ? dot : e;
            const char *last = e;
            while (last > s && last[-1] != '.')
                last--;
            const char *ph = NULL;
            if (dotted_number(s, (size_t)(e - s)))
                stem_end = e, ph = "{n}";
            else if (last > s + 1 && dotted_number(s, (size_t)(last - 1 - s)))
                stem_end = last - 1, ph = "{n}"; /* "2024.01.05.log" */
            else
                ph = classify(s, (size_t)(stem_end - s));
            if (ph)
                ok = put(out, cap, &o, ph, strlen(ph));
            else
                ok = put(out, cap, &o, s, (size_t)(stem_end - s));
            if (ok && is_version(s, (size_t)(e - s)))
                ok = put(out, cap, &o, stem_end, (size_t)(e - stem_end)); /* "v1.3" */
            else if (ok)
                ok = put_parts(out, cap, &o, stem_end, e);
        }
        if (!ok) {
            /* cut at the last whole segment, said by "/..." */
            o = mark;
            while (o + 4 >= cap && o > 0) {
                while (o > 0 && out[o - 1] != '/')
                    o--;
                if (o > 0)
                    o--;
            }
            if (o + 4 < cap)
                put(out, cap, &o, "/...", 4);
            break;
        }
        p = e;
    }
    out[o] = '\0';
    return o;
}
