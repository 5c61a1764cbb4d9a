#!/bin/bash
# bench/tshark_tls_counts.sh: tshark's view of the TLS handshakes in a capture - a second
# opinion next to satscope's classification (fixtures/tls/README.md records it per fixture),
# and the tshark side of bench/run_tls.sh. Handshake message types per RFC 5246 7.4 / RFC 8446 4.
#
# usage: bench/tshark_tls_counts.sh CAPTURE [SERVER_PORT]
#   SERVER_PORT: decoded as TLS (-d tcp.port==P,tls); default: the port most SYNs go to.
# prints "name value" lines:
#   connections        TCP connections (client SYNs, tcp.stream count with a SYN)
#   client_hello       ClientHello messages (type 1; a HelloRetryRequest makes a second one)
#   server_hello       ServerHello messages (type 2, HelloRetryRequests included)
#   hello_retry        ServerHellos that are HelloRetryRequests (their random is the RFC 8446 constant)
#   certificate        Certificate messages in clear (type 11: TLS <= 1.2 only, 1.3 encrypts them)
#   client_key_exchange  ClientKeyExchange (type 16)
#   new_session_ticket NewSessionTicket in clear (type 4, TLS <= 1.2)
#   alert              alert records in clear (content type 21; 1.3 alerts after the ServerHello are encrypted)
#   abbreviated_tls12  connections with a TLS <= 1.2 ServerHello and no Certificate, ServerKeyExchange,
#                      ServerHelloDone or ClientKeyExchange: abbreviated (resumed) handshakes
#   psk_tls13          TLS 1.3 ServerHellos (not HRR) carrying pre_shared_key (extension 41): resumed
#   full               connections with a ServerHello that are neither of the two above
#   no_server_hello    connections with a ClientHello and no ServerHello (failed by alert, or incomplete)
# Each count is per message (a frame may hold several), from tshark's own dissection.
set -euo pipefail
F=${1:?usage: tshark_tls_counts.sh CAPTURE [SERVER_PORT]}
command -v tshark >/dev/null || { echo "tshark_tls_counts.sh: tshark missing (DEBIAN_FRONTEND=noninteractive apt-get install -y tshark)" >&2; exit 2; }
P=${2:-}
if [ -z "$P" ]; then
    P=$(tshark -r "$F" -Y 'tcp.flags.syn==1 && tcp.flags.ack==0' -T fields -e tcp.dstport 2>/dev/null |
        sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
    [ -n "$P" ] || { echo "tshark_tls_counts.sh: no SYN in $F: give the server port" >&2; exit 2; }
fi
HRR_RANDOM=cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c
# One line per frame: stream, source port, SYN-only flag, then the per-message lists.
tshark -r "$F" -d "tcp.port==$P,tls" -T fields -E separator='|' -E occurrence=a -E aggregator=, \
    -e tcp.stream -e tcp.srcport -e tcp.flags.syn -e tcp.flags.ack -e tls.handshake.type \
    -e tls.record.content_type -e tls.handshake.extension.type -e tls.handshake.random \
    -e tls.handshake.extensions.supported_version 2>/dev/null |
awk -F'|' -v P="$P" -v hrr="$HRR_RANDOM" '
function n(list, v,   a, k, i, c) { c = 0; k = split(list, a, ","); for (i = 1; i <= k; i++) if (a[i] == v) c++; return c }
{
    s = $1; if (s == "") next
    if ($3 == 1 && $4 == 0) syn[s] = 1
    srv = ($2 == P)
    ch += n($5, 1); c11 = n($5, 11); cert += c11; cke += n($5, 16); nst += n($5, 4)
    alert += n($6, 21)
    if (n($5, 1)) hasch[s] = 1
    if (!srv && n($5, 16)) fullmsg[s] = 1
    if (srv && (c11 || n($5, 12) || n($5, 14))) fullmsg[s] = 1
    if (srv && n($5, 2)) {
        sh += n($5, 2)
        if (index($8, hrr)) { hr++; next }        # a HelloRetryRequest: the real ServerHello follows
        hassh[s] = 1
        # supported_versions in a ServerHello holds the one chosen version: 0x0304 is TLS 1.3
        if (index($9, "0x0304") || index($9, "0x7f")) { tls13[s] = 1; if (n($7, 41)) psk[s] = 1 }
    }
}
END {
    for (s in syn) conns++
    for (s in hassh) {
        if (s in tls13) { if (s in psk) p13++; else full++ }
        else if (s in fullmsg) full++
        else ab12++
    }
    for (s in hasch) if (!(s in hassh)) nosh++
    printf "connections %d\nclient_hello %d\nserver_hello %d\nhello_retry %d\ncertificate %d\n", conns, ch, sh, hr, cert
    printf "client_key_exchange %d\nnew_session_ticket %d\nalert %d\n", cke, nst, alert
    printf "abbreviated_tls12 %d\npsk_tls13 %d\nfull %d\nno_server_hello %d\n", ab12, p13, full, nosh
}'
