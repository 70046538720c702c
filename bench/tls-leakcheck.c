// The CTLS shim under valgrind: every object the shim makes (certificates, keys, contexts,
// sessions, saved sessions, PEM texts) made and freed 20 times over, through handshakes that
// succeed, resume, fail on the host name and present a client certificate. Run by bench/tls.sh,
// which expects "definitely lost: 0" and no memory error. (valgrind cannot run the Swift test
// binary itself: it gives up on the toolchain's DWARF 5, then crashes in libdispatch.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "CTLS.h"

static void write_file(const char *path, const char *text) { FILE *f = fopen(path, "w"); fputs(text, f); fclose(f); }

static int pair_handshake(struct ssl_ctx_st *cc, struct ssl_ctx_st *sc, const char *host, struct ssl_session_st *offer,
                          struct ssl_session_st **saved, int *resumed) {
    int fds[2];
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds);
    struct ssl_st *c = ctls_session_new(cc, fds[0]), *s = ctls_session_new(sc, fds[1]);
    ctls_session_set_server_name(c, host);
    ctls_session_expect_host(c, host);
    if (offer) ctls_session_offer(c, offer);
    int cd = 0, sd = 0, failed = 0;
    for (int i = 0; i < 50 && !(cd && sd) && !failed; i++) {
        if (!cd) { ctls_result r = ctls_session_connect(c); if (r.value == 1) cd = 1; else if (r.error != 2 && r.error != 3) failed = 1; }
        if (!sd) { ctls_result r = ctls_session_accept(s); if (r.value == 1) sd = 1; else if (r.error != 2 && r.error != 3) failed = 2; }
    }
    if (!failed) {
        ctls_session_write(s, "ping", 4);
        char buf[64];
        ctls_result r = ctls_session_read(c, buf, sizeof buf);
        if (r.value != 4) failed = 3;
        if (saved) *saved = ctls_session_save(c);
        if (resumed) *resumed = ctls_session_resumed(c);
        ctls_session_shutdown(c);
        ctls_session_shutdown(s);
    } else {
        char reason[256];
        ctls_error_reason(0, reason, sizeof reason);
    }
    ctls_session_free(c, !failed);
    ctls_session_free(s, !failed);
    close(fds[0]); close(fds[1]);
    return failed ? -failed : 1;
}

int main(void) {
    if (!ctls_load()) { puts(ctls_load_error()); return 1; }
    char message[512];
    const char *names[] = {"libssl-absent.so.9", "libc.so.6"};
    ctls_probe(names, 2, message, sizeof message);
    for (int round = 0; round < 20; round++) {
        struct x509_st *ca, *leaf, *stranger; struct evp_pkey_st *caKey, *leafKey, *strangerKey;
        ctls_identity_make("CA", "", -60, 86400, 1, 1, NULL, NULL, &ca, &caKey);
        ctls_identity_make("localhost", "DNS:localhost,IP:127.0.0.1,IP:::1", -60, 86400, 2, 0, ca, caKey, &leaf, &leafKey);
        ctls_identity_make("localhost", "DNS:localhost", -60, 86400, 3, 0, NULL, NULL, &stranger, &strangerKey);
        char *caPem = ctls_certificate_pem(ca), *leafPem = ctls_certificate_pem(leaf), *leafKeyPem = ctls_key_pem(leafKey);
        write_file("/tmp/survey-bot-tls-leakcheck-ca.pem", caPem);
        write_file("/tmp/survey-bot-tls-leakcheck-leaf.pem", leafPem);
        write_file("/tmp/survey-bot-tls-leakcheck-leaf.key", leafKeyPem);
        struct ssl_ctx_st *sc = ctls_context_new(1);
        ctls_context_use_identity(sc, leaf, leafKey);
        struct ssl_ctx_st *cc = ctls_context_new(0);
        ctls_context_set_versions(cc, 0x0303, 0);
        ctls_context_set_verify(cc, 1);
        ctls_context_trust_file(cc, "/tmp/survey-bot-tls-leakcheck-ca.pem");
        ctls_context_trust_pem(cc, caPem, strlen(caPem));
        ctls_context_trust_pem(cc, "garbage", 7);
        ctls_take_error(message, sizeof message);
        ctls_context_use_chain_file(cc, "/tmp/survey-bot-tls-leakcheck-leaf.pem");
        ctls_context_use_key_file(cc, "/tmp/survey-bot-tls-leakcheck-leaf.key");
        ctls_context_check_key(cc);
        ctls_context_trust_file(cc, "/tmp/survey-bot-tls-leakcheck-absent.pem");
        ctls_take_error(message, sizeof message);
        struct ssl_session_st *saved = NULL, *again = NULL;
        int resumed = 0;
        if (pair_handshake(cc, sc, "localhost", NULL, &saved, NULL) != 1) { puts("handshake failed"); return 1; }
        if (pair_handshake(cc, sc, "localhost", saved, &again, &resumed) != 1 || !resumed) { puts("resumption failed"); return 1; }
        ctls_saved_session_free(saved);
        ctls_saved_session_free(again);
        // A failing handshake: the server's certificate for a name the client does not expect.
        if (pair_handshake(cc, sc, "elsewhere.example", NULL, NULL, NULL) >= 0) { puts("wrong host accepted"); return 1; }
        // The server requiring a client certificate from a client with one.
        struct ssl_ctx_st *strict = ctls_context_new(1);
        ctls_context_use_identity(strict, leaf, leafKey);
        ctls_context_set_verify(strict, 3);
        ctls_context_trust_pem(strict, caPem, strlen(caPem));
        if (pair_handshake(cc, strict, "localhost", NULL, NULL, NULL) != 1) { puts("client certificate refused"); return 1; }
        ctls_context_free(strict);
        ctls_context_free(cc);
        ctls_context_free(sc);
        free(caPem); free(leafPem); free(leafKeyPem);
        ctls_certificate_free(ca); ctls_certificate_free(leaf); ctls_certificate_free(stranger);
        ctls_key_free(caKey); ctls_key_free(leafKey); ctls_key_free(strangerKey);
    }
    puts("ok");
    return 0;
}
