/*
 * etime_names.c - what the codes in the etime result mean, for people: LDAP
 * result codes, 389's close codes, the notes= letters, HTTP statuses
 * (etime_names.h).
 */
#include "etime_names.h"

/* LDAP result codes (RFC 4511 section 4.1.9 and appendix A, plus the
 * registered extensions seen in the wild: RFC 3909 cancel, RFC 4528
 * assertion, RFC 4370/4533). */
const char *sat_ldap_result_name(int32_t code)
{
    switch (code) {
    case 0: return "success";
    case 1: return "operationsError";
    case 2: return "protocolError";
    case 3: return "timeLimitExceeded";
    case 4: return "sizeLimitExceeded";
    case 5: return "compareFalse";
    case 6: return "compareTrue";
    case 7: return "authMethodNotSupported";
    case 8: return "strongerAuthRequired";
    case 10: return "referral";
    case 11: return "adminLimitExceeded";
    case 12: return "unavailableCriticalExtension";
    case 13: return "confidentialityRequired";
    case 14: return "saslBindInProgress";
    case 16: return "noSuchAttribute";
    case 17: return "undefinedAttributeType";
    case 18: return "inappropriateMatching";
    case 19: return "constraintViolation";
    case 20: return "attributeOrValueExists";
    case 21: return "invalidAttributeSyntax";
    case 32: return "noSuchObject";
    case 33: return "aliasProblem";
    case 34: return "invalidDNSyntax";
    case 36: return "aliasDereferencingProblem";
    case 48: return "inappropriateAuthentication";
    case 49: return "invalidCredentials";
    case 50: return "insufficientAccessRights";
    case 51: return "busy";
    case 52: return "unavailable";
    case 53: return "unwillingToPerform";
    case 54: return "loopDetect";
    case 60: return "sortControlMissing (VLV)";
    case 61: return "offsetRangeError (VLV)";
    case 64: return "namingViolation";
    case 65: return "objectClassViolation";
    case 66: return "notAllowedOnNonLeaf";
    case 67: return "notAllowedOnRDN";
    case 68: return "entryAlreadyExists";
    case 69: return "objectClassModsProhibited";
    case 71: return "affectsMultipleDSAs";
    case 76: return "virtualListViewError";
    case 80: return "other";
    case 81: return "serverDown (client side)";
    case 85: return "timeout (client side)";
    case 118: return "canceled";
    case 119: return "noSuchOperation";
    case 120: return "tooLate";
    case 121: return "cannotCancel";
    case 122: return "assertionFailed";
    case 123: return "authorizationDenied";
    case 4096: return "e-syncRefreshRequired";
    default: return "";
    }
}

/* 389-ds ldap/servers/slapd/disconnect_error_strings.h */
const char *sat_close_code_meaning(int c)
{
    switch (c) {
    case SAT_CLOSE_A1: return "client aborted the connection";
    case SAT_CLOSE_B1: return "bad BER tag (often a client closing uncleanly)";
    case SAT_CLOSE_B2: return "BER element too big (nsslapd-maxbersize)";
    case SAT_CLOSE_B3: return "BER peek failed";
    case SAT_CLOSE_B4: return "server failed to flush a response to the client";
    case SAT_CLOSE_P1: return "closed by a plugin";
    case SAT_CLOSE_P2: return "poll error";
    case SAT_CLOSE_P3: return "invalid proxy protocol header";
    case SAT_CLOSE_P4: return "unknown proxy protocol";
    case SAT_CLOSE_R1: return "revents error";
    case SAT_CLOSE_S1: return "SASL failure";
    case SAT_CLOSE_T1: return "idle timeout (nsslapd-idletimeout)";
    case SAT_CLOSE_T2: return "I/O block timeout (nsslapd-ioblocktimeout)";
    case SAT_CLOSE_T3: return "paged search time limit";
    case SAT_CLOSE_U1: return "cleanly closed (unbind / client close)";
    case SAT_CLOSE_OTHER: return "closed, no or unknown code";
    case SAT_CLOSE_LOST: return "OpenLDAP: connection lost (gone without an UNBIND, or a read failed)";
    case SAT_CLOSE_LOST_WRITE: return "OpenLDAP: connection lost on write (an answer could not be sent)";
    default: return "";
    }
}

const char *sat_note_meaning(int bit)
{
    static const char *const m[7] = {
        "unindexed search (all IDs / over the ID list scan limit)",
        "unindexed component in the filter",
        "invalid attribute filter (attribute not in the schema)",
        "paged search",
        "multi-factor authentication",
        "virtual attribute in the filter",
        "partially unindexed (bad) component"};
    return bit >= 0 && bit < 7 ? m[bit] : "";
}


const char *sat_http_status_name(int32_t code)
{
    switch (code) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 444: return "No Response (nginx: connection closed)";
    case 494: return "Request Header Too Large (nginx)";
    case 495: return "SSL Certificate Error (nginx)";
    case 496: return "SSL Certificate Required (nginx)";
    case 497: return "HTTP Request Sent to HTTPS Port (nginx)";
    case 499: return "Client Closed Request (nginx)";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "";
    }
}
