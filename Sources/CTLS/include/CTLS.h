#ifndef SURVEY_BOT_CTLS_H
#define SURVEY_BOT_CTLS_H

// TLS from the system's OpenSSL (libssl.so.3, else libssl.so.1.1), loaded at run time with dlopen.
// No OpenSSL header is included: OpenSSL's types are opaque here, and CTLS.c declares only the
// prototypes it resolves. Swift calls these functions, never OpenSSL's through raw pointers.
//
// Every function but the loading ones requires a successful ctls_load() first.

#include <stddef.h>

struct ssl_ctx_st;
struct ssl_st;
struct ssl_session_st;
struct x509_st;
struct evp_pkey_st;

// MARK: Loading

/// Loads libssl once (thread-safe) and resolves every function used. 1 when usable, else 0 and
/// ctls_load_error() says why.
int ctls_load(void);
/// Why ctls_load() failed: the libraries tried and dlerror's text, or the library and the symbol
/// missing from it.
const char *ctls_load_error(void);
/// The file name of the library loaded ("libssl.so.3").
const char *ctls_library_name(void);
/// The SHA-256 of `length` bytes at `data` into the 32 bytes at `digest`, by libcrypto's
/// `SHA256` (which uses the CPU's SHA extensions where there are some): 1, or 0 when OpenSSL is
/// not there or lacks it (the caller then hashes the bytes itself).
int ctls_sha256(const void *data, size_t length, unsigned char *digest);
/// OpenSSL's own version text ("OpenSSL 3.0.19 27 Jan 2026").
const char *ctls_version_text(void);
/// OpenSSL_version_num(): 0xMNN00PP0L, so 3.x is >= 0x30000000.
unsigned long ctls_version_number(void);
/// Tries `names` in order as ctls_load() does, without keeping anything: 1 if one of them has every
/// required symbol, else 0 with the reason in `message` (what ctls_load_error() would say).
int ctls_probe(const char *const *names, int count, char *message, size_t size);

// MARK: Errors

/// The outcome of one SSL_connect/SSL_accept/SSL_read/SSL_write call, taken right after it on the
/// calling thread, the thread's error queue left empty.
typedef struct {
    /// What the call returned: > 0 is success (bytes for read and write).
    int value;
    /// SSL_get_error() when value <= 0, else 0: 2 want read, 3 want write, 5 syscall, 6 zero return.
    int error;
    /// errno right after the call.
    int system_error;
    /// The oldest error of the thread's queue, 0 when it was empty.
    unsigned long queued;
} ctls_result;

/// The reason text of an OpenSSL error code ("tlsv1 alert protocol version"), into `buffer`.
void ctls_error_reason(unsigned long code, char *buffer, size_t size);
/// Pops the oldest queued error's reason into `buffer` and empties the queue; 0 if it was empty.
int ctls_take_error(char *buffer, size_t size);
/// Whether `code` is 3.x's "unexpected eof while reading" (the peer closed without close_notify).
int ctls_error_is_unexpected_eof(unsigned long code);
/// X509_verify_cert_error_string(): "certificate has expired" for 10.
const char *ctls_verify_reason(long code);

// MARK: Contexts

/// A context for clients (server = 0) or servers (1): TLS 1.2 at least, partial and moving writes,
/// buffers released while idle, EOF without close_notify read as a close (3.x), ALPN http/1.1,
/// a client session cache or a server session id context. NULL when out of memory.
struct ssl_ctx_st *ctls_context_new(int server);
void ctls_context_free(struct ssl_ctx_st *context);
/// The protocols a client offers by ALPN, in wire form (each a length byte and its name), in
/// the order preferred: 1 on success.
int ctls_context_set_alpn(struct ssl_ctx_st *context, const unsigned char *protocols, unsigned int length);
/// A server picks h2 when the client offers it, else http/1.1 (the default picks http/1.1 only).
void ctls_context_select_h2(struct ssl_ctx_st *context);
/// Protocol bounds as TLS version numbers (0x0303 is 1.2, 0x0304 is 1.3); 0 leaves a bound open.
int ctls_context_set_versions(struct ssl_ctx_st *context, int minimum, int maximum);
/// 0 verifies nothing, 1 verifies the peer's certificate, 3 also requires one (servers).
void ctls_context_set_verify(struct ssl_ctx_st *context, int mode);
/// Trusts the system's certificates (honours SSL_CERT_FILE and SSL_CERT_DIR).
int ctls_context_trust_system(struct ssl_ctx_st *context);
/// Trusts every certificate of PEM text: the number trusted; 0 if the text has none; -1 on error,
/// such as a broken certificate after good ones, with OpenSSL's reason queued.
int ctls_context_trust_pem(struct ssl_ctx_st *context, const char *pem, size_t length);
/// The certificate chain of PEM text, leaf first: 1 on success, else 0 with OpenSSL's reason
/// queued ("no start line" when the text holds no certificate).
int ctls_context_use_chain_pem(struct ssl_ctx_st *context, const char *pem, size_t length);
/// The private key of PEM text: 1 on success; 0 with OpenSSL's reason queued; -1 when the key is
/// encrypted (no pass phrase is ever asked for: OpenSSL's default would prompt on the terminal).
int ctls_context_use_key_pem(struct ssl_ctx_st *context, const char *pem, size_t length);
/// 1 if the private key matches the certificate.
int ctls_context_check_key(struct ssl_ctx_st *context);
/// A certificate and its key made in memory (the context takes its own references).
int ctls_context_use_identity(struct ssl_ctx_st *context, struct x509_st *certificate, struct evp_pkey_st *key);

// MARK: Connections

/// A connection over the connected, non-blocking socket `fd`, which stays the caller's to close.
/// Socket I/O goes through send/recv with MSG_NOSIGNAL: a closed peer never raises SIGPIPE.
/// The first CTLS_KEEP_BUFFERS_UP_TO connections open at once keep their read and write buffers
/// between exchanges; any made while that many are open release them whenever they are empty.
struct ssl_st *ctls_connection_new(struct ssl_ctx_st *context, int fd);
/// How many connections open at once keep their buffers (about 12 KB of memory each measured
/// idle, docs/tls.md: some 3 MB in all).
#define CTLS_KEEP_BUFFERS_UP_TO 256
/// The connections open in this process now, of every context.
long ctls_open_connections(void);
/// 1 if the connection releases its buffers whenever they are empty.
int ctls_connection_releases_buffers(struct ssl_st *connection);
/// Frees the connection. `clean` (no fatal error happened) keeps its session resumable even
/// without a close_notify sent; otherwise OpenSSL forgets the session as a bad one.
void ctls_connection_free(struct ssl_st *connection, int clean);
/// Sends `name` as the server name (SNI).
int ctls_connection_set_server_name(struct ssl_st *connection, const char *name);
/// Requires the peer's certificate to name the DNS name `host`.
int ctls_connection_expect_host(struct ssl_st *connection, const char *host);
/// Requires the peer's certificate to name the IP address `ip` (text, v4 or v6).
int ctls_connection_expect_ip(struct ssl_st *connection, const char *ip);
/// Offers `saved` for resumption (the connection takes its own reference).
int ctls_connection_offer(struct ssl_st *connection, struct ssl_session_st *saved);
ctls_result ctls_connection_connect(struct ssl_st *connection);
ctls_result ctls_connection_accept(struct ssl_st *connection);
ctls_result ctls_connection_read(struct ssl_st *connection, void *buffer, int size);
ctls_result ctls_connection_write(struct ssl_st *connection, const void *bytes, int count);
/// Sends close_notify if it can without blocking; never fails. Not after a fatal error.
void ctls_connection_shutdown(struct ssl_st *connection);
/// SSL_get_verify_result(): 0 when the peer's certificate verified (or was not checked yet).
long ctls_connection_verify_result(const struct ssl_st *connection);
/// "TLSv1.3".
const char *ctls_connection_version(const struct ssl_st *connection);
/// The cipher's OpenSSL name ("TLS_AES_256_GCM_SHA384"), or NULL before the handshake.
const char *ctls_connection_cipher(const struct ssl_st *connection);
/// 1 if the handshake resumed an earlier session.
int ctls_connection_resumed(const struct ssl_st *connection);
/// The protocol ALPN chose, as bytes; length 0 when none.
void ctls_connection_alpn(const struct ssl_st *connection, const unsigned char **data, unsigned int *length);
/// 1 if the peer presented a certificate.
int ctls_connection_peer_has_certificate(const struct ssl_st *connection);
/// The session to offer on the next connection (SSL_get1_session), NULL if none is resumable.
struct ssl_session_st *ctls_connection_save(const struct ssl_st *connection);
void ctls_resumption_free(struct ssl_session_st *saved);

// MARK: Certificates made in memory

/// A P-256 key and an X.509 v3 certificate for it, valid from now + `not_before` to now + `not_after`
/// seconds, named by `common_name` with the subjectAltName `alt_names` ("DNS:localhost,IP:::1"),
/// signed with SHA-256 by `issuer_key` under `issuer`'s subject, or by itself when `issuer` is NULL.
/// `authority` marks it a CA (basicConstraints CA:TRUE). 1 on success, with both outputs set.
int ctls_identity_make(
    const char *common_name, const char *alt_names, long not_before, long not_after, long serial, int authority,
    struct x509_st *issuer, struct evp_pkey_st *issuer_key, struct x509_st **certificate, struct evp_pkey_st **key);
/// The certificate as PEM text, malloc'd (free() it), or NULL.
char *ctls_certificate_pem(struct x509_st *certificate);
/// The private key as unencrypted PEM text, malloc'd (free() it), or NULL.
char *ctls_key_pem(struct evp_pkey_st *key);
void ctls_certificate_free(struct x509_st *certificate);
void ctls_key_free(struct evp_pkey_st *key);

#endif
