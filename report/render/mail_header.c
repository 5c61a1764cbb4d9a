/*
 * mail_header.c - what an e-mail report (render_eml.c) may put in its From:
 * and To: headers, and what a header's text may hold (report_doc.h).
 *
 * A header ends at CR LF: a CR, a LF or any other control in an address or a
 * subject given on the command line would end the header early and start one
 * of the caller's choosing (a Bcc:, a second body). So an address list is
 * read whole before anything is written: comma-separated mailboxes (RFC
 * 5322 3.4, the common subset), each an addr-spec `local@domain` or a display
 * name and `<local@domain>`; a display name may be quoted ("Doe, John") and
 * may be UTF-8; no control anywhere (C0, DEL, C1). Anything else is refused
 * with the reason, never repaired.
 */
#include <string.h>

#include "satscope/escape.h"
#include "satscope/report_doc.h"

/* RFC 5322 atext, the characters of an unquoted local part (with '.'). */
static int atext(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-/=?^_`{|}~.", c));
}

/* local@domain, exactly n bytes: a local part of atext, a domain of
 * dot-separated labels of letters, digits and '-'. */
static int addr_spec(const char *s, size_t n)
{
    const char *at = memchr(s, '@', n);
    if (!at || at == s || at == s + n - 1)
        return 0;
    for (const char *p = s; p < at; p++)
        if (!atext((unsigned char)*p))
            return 0;
    if (*s == '.' || at[-1] == '.')
        return 0;
    const char *d = at + 1, *end = s + n;
    size_t label = 0;
    for (const char *p = d; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '.') {
            if (!label)
                return 0;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-') {
            label++;
        } else {
            return 0;
        }
    }
    return label > 0;
}

int sat_mail_text_check(const char *s, char *why, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        size_t l = p[i] < 0x80 ? 1 : sat_utf8_len(p + i, len - i);
        if (p[i] < 0x20 || p[i] == 0x7f || (l && sat_utf8_is_c1(p + i, l))) {
            char shown[16];
            sat_escape(shown, sizeof shown, s + i, l ? l : 1, 0);
            snprintf(why, n, "holds a control character (%s)", shown);
            return SAT_E_USAGE;
        }
        if (!l) {
            snprintf(why, n, "is not UTF-8 (byte \\x%02x)", p[i]);
            return SAT_E_USAGE;
        }
        i += l;
    }
    return SAT_OK;
}

/* One mailbox, s[0..n) with blanks around it trimmed. */
static int mailbox(const char *s, size_t n, char *why, size_t wn)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n) {
        snprintf(why, wn, "has an empty address");
        return SAT_E_USAGE;
    }
    if (s[n - 1] == '>') {
        const char *lt = NULL;
        for (size_t i = n; i-- > 0;)
            if (s[i] == '<') {
                lt = s + i;
                break;
            }
        if (!lt || !addr_spec(lt + 1, (size_t)(s + n - 1 - (lt + 1)))) {
            snprintf(why, wn, "has '%.*s', not Name <local@domain>", (int)n, s);
            return SAT_E_USAGE;
        }
        /* the display name: no '<', '>' or '@' outside its quotes */
        int q = 0;
        for (const char *p = s; p < lt; p++) {
            if (*p == '"')
                q = !q;
            else if (!q && strchr("<>@", *p)) {
                snprintf(why, wn, "has '%.*s', not Name <local@domain>", (int)n, s);
                return SAT_E_USAGE;
            }
        }
        return SAT_OK;
    }
    if (!addr_spec(s, n)) {
        snprintf(why, wn, "has '%.*s', not an address (local@domain or Name <local@domain>)",
                 (int)n, s);
        return SAT_E_USAGE;
    }
    return SAT_OK;
}

int sat_mail_addr_check(const char *list, char *why, size_t n)
{
    if (sat_mail_text_check(list, why, n) != SAT_OK)
        return SAT_E_USAGE;
    /* mailboxes between commas outside quotes */
    const char *start = list;
    int q = 0;
    for (const char *p = list;; p++) {
        if (*p == '"') {
            q = !q;
        } else if ((*p == ',' && !q) || !*p) {
            if (mailbox(start, (size_t)(p - start), why, n) != SAT_OK)
                return SAT_E_USAGE;
            if (!*p)
                break;
            start = p + 1;
        }
    }
    if (q) {
        snprintf(why, n, "has a quote not closed");
        return SAT_E_USAGE;
    }
    return SAT_OK;
}
