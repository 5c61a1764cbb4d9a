/*
 * http_conf.h - the access log format definitions a web or application
 * server's own configuration text holds, so that a log is read with the
 * definition that wrote it (`--log-format-file`):
 *   nginx.conf        log_format NAME [escape=...] 'part' "part" ...;
 *                     access_log PATH [NAME ...];        (default: combined)
 *   httpd.conf /      LogFormat "..." [NICKNAME]
 *   apache2.conf      CustomLog PATH NICKNAME|"inline format"; TransferLog PATH
 *   Tomcat server.xml <Valve className="...AccessLogValve" prefix=".." suffix=".."
 *                            pattern="..."/>          (the name is the prefix)
 * Each server's own quoting is undone as the server does before its format
 * compiler sees the text (nginx's quotes and backslashes, Apache's
 * ap_getword_conf, XML entities and attribute-value normalisation), so a
 * definition found here is the string `--log-format` takes.
 * Pure (parse/http/http_config.c): no I/O; included files are not followed.
 */
#ifndef SATSCOPE_HTTP_CONF_H
#define SATSCOPE_HTTP_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "satscope/base.h"

enum sat_http_conf_server {
    SAT_HTTP_CONF_AUTO = 0, /* told by the text (sat_http_conf_parse) */
    SAT_HTTP_CONF_NGINX,
    SAT_HTTP_CONF_APACHE,
    SAT_HTTP_CONF_TOMCAT
};

/* One definition. Strings are NUL-terminated and owned by the sat_http_conf. */
typedef struct sat_http_conf_def {
    int server;             /* enum sat_http_conf_server */
    const char *name;       /* log_format name, LogFormat nickname, valve prefix;
                               "" for Apache's nameless LogFormat (the default
                               format of TransferLog) and a CustomLog's inline one */
    const char *definition; /* the format as the server's compiler receives it */
    const char *escape;     /* nginx escape= (default, json, none); NULL elsewhere */
    const char *note;       /* why this definition cannot be used (Tomcat's
                               ExtendedAccessLogValve, a valve without pattern), or NULL */
    uint32_t line;          /* 1-based line of the directive; 0 for a built-in */
    int builtin;            /* the server's own, not in the text: nginx's combined,
                               Apache's default format (CLF) */
} sat_http_conf_def;

/* One access log the text writes, and which definition it is written with. */
typedef struct sat_http_conf_log {
    const char *path;       /* as written (nginx/Apache); Tomcat: directory/prefix */
    const char *prefix;     /* the file name's start: the path's last component
                               (Tomcat: the prefix attribute) */
    const char *suffix;     /* Tomcat's suffix attribute ("" elsewhere): a rotated
                               Tomcat log is PREFIX.DATE SUFFIX */
    int def;                /* index into the definitions, -1 if the name it
                               refers to is not defined (format then says which) */
    const char *format;     /* the name it refers to ("" for an inline format) */
    uint32_t line;
} sat_http_conf_log;

typedef struct sat_http_conf sat_http_conf;

/* Reads the text of one configuration file. server: SAT_HTTP_CONF_AUTO to tell
 * it by content (a <Valve or <Server element: Tomcat; LogFormat / CustomLog /
 * TransferLog directives: Apache; log_format / access_log: nginx; else nginx
 * when lines end in ';', '{' or '}', Apache otherwise). A syntax error that
 * leaves the rest of the text unreadable (an unterminated quote, comment or
 * element) is SAT_E_FORMAT with its line in d->where ("line N") and the
 * definitions before it kept; *out is set whenever the result is >= 0 or
 * SAT_E_FORMAT (free it with sat_http_conf_free). SAT_E_NOMEM otherwise. */
int sat_http_conf_parse(const char *text, size_t len, int server, sat_http_conf **out,
                        sat_diag *d);
void sat_http_conf_free(sat_http_conf *c); /* NULL is fine */

int sat_http_conf_server_of(const sat_http_conf *c);
const char *sat_http_conf_server_name(int server); /* "nginx", "apache", "tomcat" */
/* The definitions (built-ins after those of the text) and logs, in text order.
 * Valid until sat_http_conf_free. */
size_t sat_http_conf_defs(const sat_http_conf *c, const sat_http_conf_def **defs);
size_t sat_http_conf_logs(const sat_http_conf *c, const sat_http_conf_log **logs);
/* Files the text includes (nginx include, Apache Include/IncludeOptional),
 * which are not read: for the message when a name is not found. */
size_t sat_http_conf_includes(const sat_http_conf *c, const char *const **paths);

/* The definition `name` stands for, looked up in this order:
 *  1. a definition of that name (nginx log_format, Apache nickname, Tomcat
 *     prefix); nginx's built-in combined when the text does not define it;
 *  2. the access log that writes a file of that name: name's last path
 *     component, less a compression suffix (.gz .bz2 .xz .zst), equal to the
 *     log's file name or to it followed by a rotation suffix ('.' or '-'
 *     and more: access.log.1, access.log-20261201); Tomcat: PREFIX...SUFFIX;
 *     the longest matching name wins;
 *  3. name NULL or "": the one definition the text has (built-ins aside).
 * NULL when none, or when the choice is ambiguous (two different
 * definitions of one name), with a message in d saying why and listing the
 * names defined and the log files (and the includes not read). A definition
 * with a note is returned too: the caller shows the note. */
const sat_http_conf_def *sat_http_conf_lookup(const sat_http_conf *c, const char *name,
                                              sat_diag *d);

/* The --log-format string that the format compiler (sat_http_format_compile)
 * reads as exactly def: the server's syntax prefix ("nginx:", "apache:",
 * "tomcat:", or "tomcat9:" with tomcat9 set: Tomcat 9 and older log %D in ms)
 * and the definition in double quotes, '\\' and '"' escaped by a backslash
 * and '&' written &amp;, so that the compiler's unquoting of a pasted
 * definition and its XML entity decoding give def back byte for byte
 * (Tomcat's "common" and "combined" go as the words). A definition that is
 * one of the server's presets ("apache-combined", "nginx-combined", ...)
 * goes as the preset's name, so that the source is named alike whichever
 * way the format was given. Into out (cap bytes);
 * returns the full length like snprintf (>= cap: it did not fit). */
size_t sat_http_conf_format_arg(const sat_http_conf_def *def, int tomcat9, char *out,
                                size_t cap);

#endif /* SATSCOPE_HTTP_CONF_H */
