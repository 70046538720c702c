// The CTLS shim under valgrind: every object the shim makes (certificates, keys, contexts,
// sessions, saved sessions, PEM texts) made and freed 20 times over, through handshakes that
// succeed, resume, fail on the host name and present a client certificate, and PEM texts read
// from memory that are good, garbage, broken after a good certificate, or an encrypted key. Run by bench/tls.sh,
// which expects "definitely lost: 0" and no memory error. (valgrind cannot run the Swift test
// binary itself: it gives up on the toolchain's DWARF 5, then crashes in libdispatch.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "CTLS.h"

// A P-256 key encrypted with the pass phrase "secret": refused, never asked for.
static const char encrypted_key[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjnwdREasfmTQICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEB7UKP4GLFoDCe033PLXffwEgZBD\n"
    "kGQPvb1fg3ptFt+fx0YqSfW66UKuYcruDka5Ay+W4SgVYKnGyO5zfxQycHJmXJAh\n"
    "yGCiL5qTcuUVvyIicWZmCkqQIINnzmIjFvQC//o8wr5FF8Z24HmmYsnl9mf1DuZm\n"
    "h3Tkf6sXCwTeU1cUhGa8yT8Rpte1g1wXY6axmPnwgmM59SCo8itrPFWEbEmk5A4=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";

/// `first` and `second` in one malloc'd text.
static char *joined(const char *first, const char *second) {
    char *text = malloc(strlen(first) + strlen(second) + 1);
    strcpy(text, first);
    strcat(text, second);
    return text;
}

static int verbose;

static int pair_handshake(struct ssl_ctx_st *cc, struct ssl_ctx_st *sc, const char *host, struct ssl_session_st *offer,
                          struct ssl_session_st **saved, int *resumed) {
    int fds[2];
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds);
    struct ssl_st *c = ctls_connection_new(cc, fds[0]), *s = ctls_connection_new(sc, fds[1]);
    if (strchr(host, '.') != NULL && host[0] >= '0' && host[0] <= '9') {
        ctls_connection_expect_ip(c, host);
    } else {
        ctls_connection_set_server_name(c, host);
        ctls_connection_expect_host(c, host);
    }
    if (offer) ctls_connection_offer(c, offer);
    int cd = 0, sd = 0, failed = 0;
    for (int i = 0; i < 50 && !(cd && sd) && !failed; i++) {
        if (!cd) { ctls_result r = ctls_connection_connect(c); if (r.value == 1) cd = 1; else if (r.error != 2 && r.error != 3) failed = 1; }
        if (!sd) { ctls_result r = ctls_connection_accept(s); if (r.value == 1) sd = 1; else if (r.error != 2 && r.error != 3) failed = 2; }
    }
    if (!failed) {
        char buf[64];
        ctls_result tickets = ctls_connection_read(c, buf, sizeof buf);
        if (verbose) printf("  read of tickets only: value %d, error %d (2 = want read)\n", tickets.value, tickets.error);
        ctls_connection_write(s, "ping", 4);
        ctls_result r = ctls_connection_read(c, buf, sizeof buf);
        if (r.value != 4) failed = 3;
        if (saved) *saved = ctls_connection_save(c);
        if (resumed) *resumed = ctls_connection_resumed(c);
        ctls_connection_shutdown(c);
        ctls_connection_shutdown(s);
    } else if (verbose) {
        printf("  %s: verify result %ld: %s\n", host, ctls_connection_verify_result(c), ctls_verify_reason(ctls_connection_verify_result(c)));
    }
    ctls_connection_free(c, !failed);
    ctls_connection_free(s, !failed);
    close(fds[0]); close(fds[1]);
    return failed ? -failed : 1;
}

/// What a read answers when the peer closed without close_notify: after the handshake (a close for
/// the Swift side: 3.x error 6, or 1.1 error 5 with errno 0 and nothing queued) and during it.
static void end_of_stream(struct ssl_ctx_st *cc, struct ssl_ctx_st *sc) {
    int fds[2];
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds);
    struct ssl_st *c = ctls_connection_new(cc, fds[0]), *s = ctls_connection_new(sc, fds[1]);
    ctls_connection_set_server_name(c, "localhost");
    for (int i = 0; i < 10; i++) {
        ctls_connection_connect(c);
        ctls_connection_accept(s);
    }
    close(fds[1]);
    char buf[64];
    ctls_result r = ctls_connection_read(c, buf, sizeof buf);
    if (r.error == 2) r = ctls_connection_read(c, buf, sizeof buf);
    printf("  end of stream after the handshake: error %d, errno %d, queued %lu (eof: %d)\n", r.error, r.system_error,
        r.queued, ctls_error_is_unexpected_eof(r.queued));
    ctls_connection_free(c, 1);
    ctls_connection_free(s, 1);
    close(fds[0]);
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds);
    c = ctls_connection_new(cc, fds[0]);
    ctls_connection_connect(c);
    char hello[4096];
    recv(fds[1], hello, sizeof hello, 0);
    close(fds[1]);
    r = ctls_connection_connect(c);
    printf("  end of stream during the handshake: error %d, errno %d, queued %lu (eof: %d)\n", r.error, r.system_error,
        r.queued, ctls_error_is_unexpected_eof(r.queued));
    ctls_connection_free(c, 0);
    close(fds[0]);
}

int main(void) {
    if (!ctls_load()) { puts(ctls_load_error()); return 1; }
    printf("%s (%s)\n", ctls_version_text(), ctls_library_name());
    char message[512];
    const char *names[] = {"libssl-absent.so.9", "libc.so.6"};
    ctls_probe(names, 2, message, sizeof message);
    for (int round = 0; round < 20; round++) {
        verbose = round == 0;
        struct x509_st *ca, *leaf, *stranger; struct evp_pkey_st *caKey, *leafKey, *strangerKey;
        ctls_identity_make("CA", "", -60, 86400, 1, 1, NULL, NULL, &ca, &caKey);
        ctls_identity_make("localhost", "DNS:localhost,IP:127.0.0.1,IP:::1", -60, 86400, 2, 0, ca, caKey, &leaf, &leafKey);
        ctls_identity_make("localhost", "DNS:localhost", -60, 86400, 3, 0, NULL, NULL, &stranger, &strangerKey);
        char *caPem = ctls_certificate_pem(ca), *leafPem = ctls_certificate_pem(leaf), *leafKeyPem = ctls_key_pem(leafKey);
        char *chainPem = joined(leafPem, caPem);
        // The CA's certificate with its body damaged after its first line: a broken block.
        char *brokenPem = joined(leafPem, caPem);
        char *body = strstr(brokenPem + strlen(leafPem), "\nMII");
        if (body != NULL) memcpy(body, "\nMXX", 4);
        struct ssl_ctx_st *sc = ctls_context_new(1);
        ctls_context_use_identity(sc, leaf, leafKey);
        struct ssl_ctx_st *cc = ctls_context_new(0);
        ctls_context_set_versions(cc, 0x0303, 0);
        ctls_context_set_verify(cc, 1);
        if (ctls_context_trust_pem(cc, caPem, strlen(caPem)) != 1) { puts("CA not trusted"); return 1; }
        if (ctls_context_trust_pem(cc, "garbage", 7) != 0) { puts("garbage trusted"); return 1; }
        if (ctls_context_trust_pem(cc, brokenPem, strlen(brokenPem)) != -1) { puts("broken text trusted"); return 1; }
        ctls_take_error(message, sizeof message);
        if (verbose) printf("  a broken certificate after a good one: %s\n", message);
        // A client chain read from memory: the leaf, its CA after it, and the leaf's key.
        if (!ctls_context_use_chain_pem(cc, chainPem, strlen(chainPem)) || ctls_context_use_key_pem(cc, leafKeyPem, strlen(leafKeyPem)) != 1
            || !ctls_context_check_key(cc)) {
            puts("client chain or key refused");
            return 1;
        }
        struct ssl_ctx_st *refusing = ctls_context_new(0);
        if (ctls_context_use_chain_pem(refusing, "garbage", 7) || ctls_context_use_chain_pem(refusing, brokenPem, strlen(brokenPem))) {
            puts("garbage or broken chain used");
            return 1;
        }
        ctls_take_error(message, sizeof message);
        if (ctls_context_use_key_pem(refusing, "garbage", 7) != 0) { puts("garbage key used"); return 1; }
        ctls_take_error(message, sizeof message);
        if (ctls_context_use_key_pem(refusing, encrypted_key, strlen(encrypted_key)) != -1) { puts("encrypted key not refused"); return 1; }
        ctls_context_free(refusing);
        struct ssl_session_st *saved = NULL, *again = NULL;
        int resumed = 0;
        if (pair_handshake(cc, sc, "localhost", NULL, &saved, NULL) != 1) { puts("handshake failed"); return 1; }
        if (pair_handshake(cc, sc, "localhost", saved, &again, &resumed) != 1 || !resumed) { puts("resumption failed"); return 1; }
        ctls_resumption_free(saved);
        ctls_resumption_free(again);
        // A failing handshake: the server's certificate for a name the client does not expect.
        if (pair_handshake(cc, sc, "elsewhere.example", NULL, NULL, NULL) >= 0) { puts("wrong host accepted"); return 1; }
        if (pair_handshake(cc, sc, "127.0.0.1", NULL, NULL, NULL) != 1) { puts("IP address refused"); return 1; }
        if (verbose) end_of_stream(cc, sc);
        if (pair_handshake(cc, sc, "127.0.0.2", NULL, NULL, NULL) >= 0) { puts("wrong IP address accepted"); return 1; }
        // The server requiring a client certificate from a client with one.
        struct ssl_ctx_st *strict = ctls_context_new(1);
        ctls_context_use_identity(strict, leaf, leafKey);
        ctls_context_set_verify(strict, 3);
        ctls_context_trust_pem(strict, caPem, strlen(caPem));
        if (pair_handshake(cc, strict, "localhost", NULL, NULL, NULL) != 1) { puts("client certificate refused"); return 1; }
        ctls_context_free(strict);
        ctls_context_free(cc);
        ctls_context_free(sc);
        free(caPem); free(leafPem); free(leafKeyPem); free(chainPem); free(brokenPem);
        ctls_certificate_free(ca); ctls_certificate_free(leaf); ctls_certificate_free(stranger);
        ctls_key_free(caKey); ctls_key_free(leafKey); ctls_key_free(strangerKey);
    }
    puts("ok");
    return 0;
}
