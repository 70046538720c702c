// The shim over the system's OpenSSL: dlopen once, resolve the functions used, and wrap them so
// that Swift never calls through a raw function pointer. The technique of .NET's opensslshim.
//
// Only functions exported by both OpenSSL 1.1 and 3.x are required. Where one version has a macro
// (SSL_CTX_set_min_proto_version, SSL_set_tlsext_host_name, SSL_CTX_set_mode, BIO_get_mem_data,
// EVP_PKEY_CTX_set_ec_paramgen_curve_nid in 1.1), this file calls the function the macro expands to,
// with the constants of OpenSSL's headers written out below.
//
// One file of about 840 lines, on purpose: the table of resolved functions is file-static and
// filled by one X-macro, and every wrapper below calls through it; splitting the file would make
// that table a global symbol that any other C file could reach before it is loaded.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "CTLS.h"

// MARK: OpenSSL's types, opaque

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct ssl_session_st SSL_SESSION;
typedef struct x509_st X509;
typedef struct evp_pkey_st EVP_PKEY;
typedef struct ssl_method_st SSL_METHOD;
typedef struct ssl_cipher_st SSL_CIPHER;
typedef struct x509_store_st X509_STORE;
typedef struct X509_VERIFY_PARAM_st X509_VERIFY_PARAM;
typedef struct X509_name_st X509_NAME;
typedef struct X509_extension_st X509_EXTENSION;
typedef struct asn1_string_st ASN1_INTEGER;
typedef struct asn1_string_st ASN1_TIME;
typedef struct bio_st BIO;
typedef struct bio_method_st BIO_METHOD;
typedef struct evp_pkey_ctx_st EVP_PKEY_CTX;
typedef struct evp_md_st EVP_MD;
typedef struct evp_cipher_st EVP_CIPHER;

typedef int (*alpn_select_callback)(
    SSL *, const unsigned char **, unsigned char *, const unsigned char *, unsigned int, void *);
typedef int (*pem_password_callback)(char *, int, int, void *);

// MARK: Constants (from ssl.h, tls1.h, bio.h, evp.h, ec.h, obj_mac.h, asn1.h, err.h, pemerr.h)

enum {
    TLS_VERSION_1_2 = 0x0303,
    CTRL_MODE = 33,                    // SSL_CTX_set_mode
    CTRL_SET_READ_AHEAD = 41,          // SSL_CTX_set_read_ahead
    CTRL_SESSION_CACHE_MODE = 44,      // SSL_CTX_set_session_cache_mode
    CTRL_SERVER_NAME = 55,             // SSL_set_tlsext_host_name
    CTRL_MIN_VERSION = 123,            // SSL_CTX_set_min_proto_version
    CTRL_MAX_VERSION = 124,            // SSL_CTX_set_max_proto_version
    CTRL_CHAIN_CERT = 89,              // SSL_CTX_add0_chain_cert (larg 0: the context takes the reference)
    MODE_ENABLE_PARTIAL_WRITE = 0x1,
    MODE_ACCEPT_MOVING_WRITE_BUFFER = 0x2,
    MODE_RELEASE_BUFFERS = 0x10,
    SESSION_CACHE_CLIENT = 1,
    SESSION_CACHE_NO_INTERNAL = 0x0100 | 0x0200,  // no internal lookup, no internal store
    SENT_SHUTDOWN = 1,                 // SSL_SENT_SHUTDOWN
    TLSEXT_OK = 0,
    TLSEXT_NOACK = 3,
    NPN_NEGOTIATED = 1,
    BIO_FLAG_READ = 0x01,
    BIO_FLAG_WRITE = 0x02,
    BIO_FLAG_RWS = 0x07,
    BIO_FLAG_SHOULD_RETRY = 0x08,
    BIO_FLAG_IN_EOF = 0x800,           // the bit OpenSSL's own socket BIO uses for end of stream
    BIO_TYPE_SOURCE_SINK = 0x0400,
    BIO_COMMAND_EOF = 2,
    BIO_COMMAND_INFO = 3,              // BIO_get_mem_data
    BIO_COMMAND_FLUSH = 11,
    BIO_COMMAND_DUP = 12,
    BIO_COMMAND_GET_FD = 105,
    PKEY_EC = 408,                     // EVP_PKEY_EC, NID_X9_62_id_ecPublicKey
    PKEY_OP_PARAMGEN_KEYGEN = (1 << 1) | (1 << 2),
    PKEY_CTRL_EC_PARAMGEN_CURVE_NID = 0x1000 + 1,
    NID_P256 = 415,                    // NID_X9_62_prime256v1
    NID_KEY_USAGE = 83,
    NID_SUBJECT_ALT_NAME = 85,
    NID_BASIC_CONSTRAINTS = 87,
    MBSTRING_ASC = 0x1000 | 1,
    ERR_LIB_PEM = 9,
    ERR_LIB_SSL = 20,
    PEM_R_NO_START_LINE = 108,
    SSL_R_UNEXPECTED_EOF_WHILE_READING = 294,
};

static const uint64_t OPTION_IGNORE_UNEXPECTED_EOF = 0x80;  // SSL_OP_IGNORE_UNEXPECTED_EOF, 3.0 on
static const unsigned char alpn_http11[] = "\x08http/1.1";
static const unsigned char alpn_h2_http11[] = "\x02h2\x08http/1.1";

// MARK: The functions resolved, as (return type, name, parameters)

#define CTLS_REQUIRED(X) \
    X(unsigned long, OpenSSL_version_num, (void)) \
    X(const char *, OpenSSL_version, (int)) \
    X(const SSL_METHOD *, TLS_client_method, (void)) \
    X(const SSL_METHOD *, TLS_server_method, (void)) \
    X(SSL_CTX *, SSL_CTX_new, (const SSL_METHOD *)) \
    X(void, SSL_CTX_free, (SSL_CTX *)) \
    X(long, SSL_CTX_ctrl, (SSL_CTX *, int, long, void *)) \
    /* unsigned long in 1.1, uint64_t in 3.x: the same register on LP64 */ \
    X(uint64_t, SSL_CTX_set_options, (SSL_CTX *, uint64_t)) \
    X(void, SSL_CTX_set_verify, (SSL_CTX *, int, void *)) \
    X(int, SSL_CTX_set_default_verify_paths, (SSL_CTX *)) \
    X(X509_STORE *, SSL_CTX_get_cert_store, (const SSL_CTX *)) \
    X(int, SSL_CTX_check_private_key, (const SSL_CTX *)) \
    X(int, SSL_CTX_use_certificate, (SSL_CTX *, X509 *)) \
    X(int, SSL_CTX_use_PrivateKey, (SSL_CTX *, EVP_PKEY *)) \
    X(int, SSL_CTX_set_alpn_protos, (SSL_CTX *, const unsigned char *, unsigned int)) \
    X(void, SSL_CTX_set_alpn_select_cb, (SSL_CTX *, alpn_select_callback, void *)) \
    X(int, SSL_select_next_proto, \
      (unsigned char **, unsigned char *, const unsigned char *, unsigned int, const unsigned char *, unsigned int)) \
    X(int, SSL_CTX_set_session_id_context, (SSL_CTX *, const unsigned char *, unsigned int)) \
    X(SSL *, SSL_new, (SSL_CTX *)) \
    X(void, SSL_free, (SSL *)) \
    X(void, SSL_set_bio, (SSL *, BIO *, BIO *)) \
    X(long, SSL_ctrl, (SSL *, int, long, void *)) \
    X(int, SSL_set1_host, (SSL *, const char *)) \
    X(X509_VERIFY_PARAM *, SSL_get0_param, (SSL *)) \
    X(int, X509_VERIFY_PARAM_set1_ip_asc, (X509_VERIFY_PARAM *, const char *)) \
    X(int, SSL_connect, (SSL *)) \
    X(int, SSL_accept, (SSL *)) \
    X(int, SSL_read, (SSL *, void *, int)) \
    X(int, SSL_write, (SSL *, const void *, int)) \
    X(int, SSL_get_error, (const SSL *, int)) \
    X(int, SSL_shutdown, (SSL *)) \
    X(int, SSL_is_init_finished, (const SSL *)) \
    X(void, SSL_set_shutdown, (SSL *, int)) \
    X(int, SSL_get_shutdown, (const SSL *)) \
    X(long, SSL_get_verify_result, (const SSL *)) \
    X(const char *, SSL_get_version, (const SSL *)) \
    X(const SSL_CIPHER *, SSL_get_current_cipher, (const SSL *)) \
    X(const char *, SSL_CIPHER_get_name, (const SSL_CIPHER *)) \
    X(int, SSL_session_reused, (const SSL *)) \
    X(void, SSL_get0_alpn_selected, (const SSL *, const unsigned char **, unsigned int *)) \
    X(SSL_SESSION *, SSL_get1_session, (SSL *)) \
    X(int, SSL_set_session, (SSL *, SSL_SESSION *)) \
    X(void, SSL_SESSION_free, (SSL_SESSION *)) \
    X(void, ERR_clear_error, (void)) \
    X(unsigned long, ERR_get_error, (void)) \
    X(unsigned long, ERR_peek_last_error, (void)) \
    X(void, ERR_error_string_n, (unsigned long, char *, size_t)) \
    X(const char *, ERR_reason_error_string, (unsigned long)) \
    X(const char *, X509_verify_cert_error_string, (long)) \
    X(int, X509_STORE_add_cert, (X509_STORE *, X509 *)) \
    X(BIO *, BIO_new, (const BIO_METHOD *)) \
    X(int, BIO_free, (BIO *)) \
    X(BIO *, BIO_new_mem_buf, (const void *, int)) \
    X(const BIO_METHOD *, BIO_s_mem, (void)) \
    X(long, BIO_ctrl, (BIO *, int, long, void *)) \
    X(int, BIO_get_new_index, (void)) \
    X(BIO_METHOD *, BIO_meth_new, (int, const char *)) \
    X(int, BIO_meth_set_write, (BIO_METHOD *, int (*)(BIO *, const char *, int))) \
    X(int, BIO_meth_set_read, (BIO_METHOD *, int (*)(BIO *, char *, int))) \
    X(int, BIO_meth_set_ctrl, (BIO_METHOD *, long (*)(BIO *, int, long, void *))) \
    X(void, BIO_set_data, (BIO *, void *)) \
    X(void *, BIO_get_data, (BIO *)) \
    X(void, BIO_set_init, (BIO *, int)) \
    X(void, BIO_set_flags, (BIO *, int)) \
    X(void, BIO_clear_flags, (BIO *, int)) \
    X(int, BIO_test_flags, (const BIO *, int)) \
    X(X509 *, PEM_read_bio_X509, (BIO *, X509 **, pem_password_callback, void *)) \
    X(X509 *, PEM_read_bio_X509_AUX, (BIO *, X509 **, pem_password_callback, void *)) \
    X(EVP_PKEY *, PEM_read_bio_PrivateKey, (BIO *, EVP_PKEY **, pem_password_callback, void *)) \
    X(int, PEM_write_bio_X509, (BIO *, X509 *)) \
    X(int, PEM_write_bio_PrivateKey, \
      (BIO *, EVP_PKEY *, const EVP_CIPHER *, const unsigned char *, int, void *, void *)) \
    X(X509 *, X509_new, (void)) \
    X(void, X509_free, (X509 *)) \
    X(int, X509_set_version, (X509 *, long)) \
    X(ASN1_INTEGER *, X509_get_serialNumber, (X509 *)) \
    X(int, ASN1_INTEGER_set, (ASN1_INTEGER *, long)) \
    X(ASN1_TIME *, X509_getm_notBefore, (const X509 *)) \
    X(ASN1_TIME *, X509_getm_notAfter, (const X509 *)) \
    X(ASN1_TIME *, X509_gmtime_adj, (ASN1_TIME *, long)) \
    X(X509_NAME *, X509_get_subject_name, (const X509 *)) \
    X(int, X509_NAME_add_entry_by_txt, (X509_NAME *, const char *, int, const unsigned char *, int, int, int)) \
    X(int, X509_set_issuer_name, (X509 *, const X509_NAME *)) \
    X(int, X509_set_pubkey, (X509 *, EVP_PKEY *)) \
    X(X509_EXTENSION *, X509V3_EXT_conf_nid, (void *, void *, int, const char *)) \
    X(int, X509_add_ext, (X509 *, X509_EXTENSION *, int)) \
    X(void, X509_EXTENSION_free, (X509_EXTENSION *)) \
    X(int, X509_sign, (X509 *, EVP_PKEY *, const EVP_MD *)) \
    X(const EVP_MD *, EVP_sha256, (void)) \
    X(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_id, (int, void *)) \
    X(int, EVP_PKEY_keygen_init, (EVP_PKEY_CTX *)) \
    X(int, EVP_PKEY_CTX_ctrl, (EVP_PKEY_CTX *, int, int, int, int, void *)) \
    X(int, EVP_PKEY_keygen, (EVP_PKEY_CTX *, EVP_PKEY **)) \
    X(void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *)) \
    X(void, EVP_PKEY_free, (EVP_PKEY *))

// Present in one version only; looked up, and used when found.
#define CTLS_OPTIONAL(X) \
    /* 3.x's name; its SSL_get_peer_certificate is a macro, not an export */ \
    X(X509 *, SSL_get1_peer_certificate, (const SSL *)) \
    /* 1.1's name */ \
    X(X509 *, SSL_get_peer_certificate, (const SSL *)) \
    /* 1.1.1 and 3.x; absent from 1.1.0 */ \
    X(int, SSL_SESSION_is_resumable, (const SSL_SESSION *)) \
    /* libcrypto's one-shot SHA-256, reached through libssl's dependencies (deprecated in 3.x, still exported) */ \
    X(unsigned char *, SHA256, (const unsigned char *, size_t, unsigned char *))

#define CTLS_FIELD(type, name, parameters) type(*name) parameters;
typedef struct {
    CTLS_REQUIRED(CTLS_FIELD)
    CTLS_OPTIONAL(CTLS_FIELD)
} ctls_functions;
#undef CTLS_FIELD

static ctls_functions ssl;
static void *library;
static const char *library_name;
static BIO_METHOD *socket_method;
static char load_error[1024];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
// Overridable when building the C file alone, to check it against another OpenSSL (bench/tls.sh).
#ifndef CTLS_LIBRARY_NAMES
#define CTLS_LIBRARY_NAMES "libssl.so.3", "libssl.so.1.1"
#endif
static const char *const default_names[] = {CTLS_LIBRARY_NAMES};

// MARK: Loading

static void append(char *message, size_t size, const char *text) {
    size_t used = strlen(message);
    if (used + 1 < size) snprintf(message + used, size - used, "%s", text);
}

/// Resolves every function from `handle` into `table`; 0 with the missing one named in `message`.
static int resolve(void *handle, const char *name, ctls_functions *table, char *message, size_t size) {
#define CTLS_RESOLVE(type, symbol, parameters)                                                            \
    table->symbol = (type(*) parameters)dlsym(handle, #symbol);                                           \
    if (table->symbol == NULL) {                                                                          \
        snprintf(message, size, "https needs OpenSSL's libssl, but %s has no function %s", name, #symbol); \
        return 0;                                                                                         \
    }
    CTLS_REQUIRED(CTLS_RESOLVE)
#undef CTLS_RESOLVE
#define CTLS_RESOLVE_OPTIONAL(type, symbol, parameters) table->symbol = (type(*) parameters)dlsym(handle, #symbol);
    CTLS_OPTIONAL(CTLS_RESOLVE_OPTIONAL)
#undef CTLS_RESOLVE_OPTIONAL
    if (table->SSL_get1_peer_certificate == NULL && table->SSL_get_peer_certificate == NULL) {
        snprintf(message, size,
            "https needs OpenSSL's libssl, but %s has neither SSL_get1_peer_certificate nor SSL_get_peer_certificate", name);
        return 0;
    }
    return 1;
}

/// Opens the first of `names` that loads, and resolves from it. The handle stays open on success.
static void *open_library(
    const char *const *names, int count, ctls_functions *table, const char **opened, char *message, size_t size) {
    char reasons[768] = "";
    for (int i = 0; i < count; i++) {
        void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *reason = dlerror();
            if (reasons[0] != 0) append(reasons, sizeof reasons, "; ");
            append(reasons, sizeof reasons, reason != NULL ? reason : names[i]);
            continue;
        }
        // A library that opens but lacks a function is reported as it is, not skipped: a
        // broken install should be named, not hidden behind an older library.
        if (!resolve(handle, names[i], table, message, size)) {
            dlclose(handle);
            return NULL;
        }
        *opened = names[i];
        return handle;
    }
    snprintf(message, size, "https needs OpenSSL's libssl (tried ");
    for (int i = 0; i < count; i++) {
        if (i > 0) append(message, size, ", ");
        append(message, size, names[i]);
    }
    append(message, size, "): ");
    append(message, size, reasons);
    return NULL;
}

static int socket_write(BIO *bio, const char *bytes, int count);
static int socket_read(BIO *bio, char *buffer, int size);
static long socket_ctrl(BIO *bio, int command, long number, void *pointer);

static void load(void) {
    int count = (int)(sizeof default_names / sizeof default_names[0]);
    library = open_library(default_names, count, &ssl, &library_name, load_error, sizeof load_error);
    if (library == NULL) return;
    socket_method = ssl.BIO_meth_new(ssl.BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "survey-bot socket");
    if (socket_method == NULL || !ssl.BIO_meth_set_write(socket_method, socket_write)
        || !ssl.BIO_meth_set_read(socket_method, socket_read) || !ssl.BIO_meth_set_ctrl(socket_method, socket_ctrl)) {
        snprintf(load_error, sizeof load_error, "https needs OpenSSL's libssl, but %s could not make a BIO method", library_name);
        library = NULL;
    }
}

// Whether this thread's OpenSSL error queue is known to be empty: after a read or a write, which
// leave it so (a success adds nothing to it, a failure takes what it added: `outcome`); any other
// call into OpenSSL through this file may leave something in it, and says so first.
static __thread int queue_known_empty = 0;

int ctls_load(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

const char *ctls_load_error(void) { return load_error; }

int ctls_sha256(const void *data, size_t length, unsigned char *digest) {
    queue_known_empty = 0;
    if (!ctls_load() || ssl.SHA256 == NULL) return 0;
    return ssl.SHA256((const unsigned char *)data, length, digest) != NULL;
}
const char *ctls_library_name(void) { return library_name; }
const char *ctls_version_text(void) { queue_known_empty = 0; return ssl.OpenSSL_version(0); }
unsigned long ctls_version_number(void) { queue_known_empty = 0; return ssl.OpenSSL_version_num(); }

int ctls_probe(const char *const *names, int count, char *message, size_t size) {
    ctls_functions table;
    const char *opened = NULL;
    message[0] = 0;
    void *handle = open_library(names, count, &table, &opened, message, size);
    if (handle == NULL) return 0;
    dlclose(handle);
    return 1;
}

// MARK: The socket BIO: send/recv with MSG_NOSIGNAL

// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE when the peer has gone; the
// engine never ignores SIGPIPE process-wide, so its TLS sockets go through these instead.

static int socket_write(BIO *bio, const char *bytes, int count) {
    int fd = (int)(intptr_t)ssl.BIO_get_data(bio);
    ssl.BIO_clear_flags(bio, BIO_FLAG_RWS | BIO_FLAG_SHOULD_RETRY);
    ssize_t sent;
    do {
        sent = send(fd, bytes, (size_t)count, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        ssl.BIO_set_flags(bio, BIO_FLAG_WRITE | BIO_FLAG_SHOULD_RETRY);
    }
    return (int)sent;
}

static int socket_read(BIO *bio, char *buffer, int size) {
    int fd = (int)(intptr_t)ssl.BIO_get_data(bio);
    ssl.BIO_clear_flags(bio, BIO_FLAG_RWS | BIO_FLAG_SHOULD_RETRY);
    ssize_t received;
    do {
        received = recv(fd, buffer, (size_t)size, 0);
    } while (received < 0 && errno == EINTR);
    if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        ssl.BIO_set_flags(bio, BIO_FLAG_READ | BIO_FLAG_SHOULD_RETRY);
    } else if (received == 0 && size > 0) {
        // 3.x asks BIO_eof() to tell the end of the stream from a failed read.
        ssl.BIO_set_flags(bio, BIO_FLAG_IN_EOF);
    }
    return (int)received;
}

static long socket_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    switch (command) {
    case BIO_COMMAND_FLUSH:
    case BIO_COMMAND_DUP:
        return 1;
    case BIO_COMMAND_EOF:
        return ssl.BIO_test_flags(bio, BIO_FLAG_IN_EOF) != 0;
    case BIO_COMMAND_GET_FD: {
        int fd = (int)(intptr_t)ssl.BIO_get_data(bio);
        if (pointer != NULL) *(int *)pointer = fd;
        return fd;
    }
    default:
        return 0;
    }
}

// MARK: Errors

void ctls_error_reason(unsigned long code, char *buffer, size_t size) {
    queue_known_empty = 0;
    if (size == 0) return;
    const char *reason = ssl.ERR_reason_error_string(code);
    if (reason != NULL) {
        snprintf(buffer, size, "%s", reason);
    } else {
        ssl.ERR_error_string_n(code, buffer, size);
    }
}

int ctls_take_error(char *buffer, size_t size) {
    queue_known_empty = 0;
    unsigned long code = ssl.ERR_get_error();
    ssl.ERR_clear_error();
    if (code == 0) return 0;
    ctls_error_reason(code, buffer, size);
    return 1;
}

/// Whether the error `code` is `reason` of the library `lib` (ERR_GET_LIB and ERR_GET_REASON,
/// which are macros, and pack errors differently in 1.1 and 3.x).
static int error_is(unsigned long code, int lib, int reason) {
    if (ssl.OpenSSL_version_num() >= 0x30000000UL) {
        // 3.x packs errors as: system flag (bit 31), library (8 bits at 23), reason (23 bits).
        return (code & 0x80000000UL) == 0 && (int)((code >> 23) & 0xFF) == lib && (int)(code & 0x7FFFFF) == reason;
    }
    // 1.1: library (8 bits at 24), function (12 bits), reason (12 bits).
    return (int)((code >> 24) & 0xFF) == lib && (int)(code & 0xFFF) == reason;
}

// 1.1.1e alone reported an EOF without close_notify so; 3.x does unless told to ignore it.
int ctls_error_is_unexpected_eof(unsigned long code) { return error_is(code, ERR_LIB_SSL, SSL_R_UNEXPECTED_EOF_WHILE_READING); }

const char *ctls_verify_reason(long code) { queue_known_empty = 0; return ssl.X509_verify_cert_error_string(code); }

// MARK: Contexts

// A server picks from `argument`, its protocols in wire form, preferred first: http/1.1 alone by
// default, h2 then http/1.1 once told to speak HTTP/2 (ctls_context_select_h2).
static int select_protocol(SSL *connection, const unsigned char **chosen, unsigned char *length, const unsigned char *offered,
    unsigned int offered_length, void *argument) {
    (void)connection;
    const unsigned char *ours = argument;
    unsigned int ours_length = ours == alpn_h2_http11 ? sizeof alpn_h2_http11 - 1 : sizeof alpn_http11 - 1;
    unsigned char *choice = NULL;
    if (ssl.SSL_select_next_proto(&choice, length, ours, ours_length, offered, offered_length) != NPN_NEGOTIATED) {
        return TLSEXT_NOACK;
    }
    *chosen = choice;
    return TLSEXT_OK;
}

SSL_CTX *ctls_context_new(int server) {
    queue_known_empty = 0;
    SSL_CTX *context = ssl.SSL_CTX_new(server ? ssl.TLS_server_method() : ssl.TLS_client_method());
    if (context == NULL) return NULL;
    ssl.SSL_CTX_ctrl(context, CTRL_MIN_VERSION, TLS_VERSION_1_2, NULL);
    // Buffers are released by connection, past the first ones (ctls_connection_new).
    ssl.SSL_CTX_ctrl(context, CTRL_MODE, MODE_ENABLE_PARTIAL_WRITE | MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
    // Bit 7 means "ignore unexpected EOF" from 3.0 on only; 1.1 reports such an EOF as a syscall
    // error with errno 0, which the Swift side reads as a close already.
    if (ssl.OpenSSL_version_num() >= 0x30000000UL) ssl.SSL_CTX_set_options(context, OPTION_IGNORE_UNEXPECTED_EOF);
    if (server) {
        static const unsigned char id[] = "survey-bot";
        ssl.SSL_CTX_set_alpn_select_cb(context, select_protocol, (void *)alpn_http11);
        // Resumption with client certificates requires a session id context.
        if (!ssl.SSL_CTX_set_session_id_context(context, id, sizeof id - 1)) goto failed;
    } else {
        // A client cache without its internal store: OpenSSL's client store keeps every session
        // of every connection (peer certificate included) up to 20,480 of them, measured here at
        // ~7 KB a connection, and never looks them up; resumption goes through TLSResumption.
        ssl.SSL_CTX_ctrl(context, CTRL_SESSION_CACHE_MODE, SESSION_CACHE_CLIENT | SESSION_CACHE_NO_INTERNAL, NULL);
        // Records read as many as the socket holds at once: without it, OpenSSL reads each
        // record's 5-byte header and then its body, two recv calls for every response. The
        // client's connections read until OpenSSL wants more from the socket, so nothing read
        // ahead waits unseen.
        ssl.SSL_CTX_ctrl(context, CTRL_SET_READ_AHEAD, 1, NULL);
        // The only call of its kind that returns 0 on success.
        if (ssl.SSL_CTX_set_alpn_protos(context, alpn_http11, sizeof alpn_http11 - 1) != 0) goto failed;
    }
    return context;
failed:
    ssl.SSL_CTX_free(context);
    return NULL;
}

void ctls_context_free(SSL_CTX *context) { queue_known_empty = 0; ssl.SSL_CTX_free(context); }

int ctls_context_set_alpn(SSL_CTX *context, const unsigned char *protocols, unsigned int length) {
    queue_known_empty = 0;
    // The only call of its kind that returns 0 on success.
    return ssl.SSL_CTX_set_alpn_protos(context, protocols, length) == 0;
}

void ctls_context_select_h2(SSL_CTX *context) { queue_known_empty = 0; ssl.SSL_CTX_set_alpn_select_cb(context, select_protocol, (void *)alpn_h2_http11); }

int ctls_context_set_versions(SSL_CTX *context, int minimum, int maximum) {
    queue_known_empty = 0;
    if (minimum != 0 && !ssl.SSL_CTX_ctrl(context, CTRL_MIN_VERSION, minimum, NULL)) return 0;
    if (maximum != 0 && !ssl.SSL_CTX_ctrl(context, CTRL_MAX_VERSION, maximum, NULL)) return 0;
    return 1;
}

void ctls_context_set_verify(SSL_CTX *context, int mode) { queue_known_empty = 0; ssl.SSL_CTX_set_verify(context, mode, NULL); }

int ctls_context_trust_system(SSL_CTX *context) { queue_known_empty = 0; return ssl.SSL_CTX_set_default_verify_paths(context) == 1; }

/// The pass phrase callback of every PEM read: it gives none, so an encrypted key fails to read
/// rather than OpenSSL's default callback prompting on the terminal. `asked` (an int, or NULL)
/// is set to say that a pass phrase was wanted.
static int refuse_pass_phrase(char *buffer, int size, int writing, void *asked) {
    (void)buffer;
    (void)size;
    (void)writing;
    if (asked != NULL) *(int *)asked = 1;
    return -1;
}

/// A read-only BIO over `length` bytes of `pem`, or NULL.
static BIO *memory_reader(const char *pem, size_t length) {
    if (length > 0x7FFFFFFF) return NULL;
    if (pem == NULL || length == 0) pem = "";  // an empty text, not OpenSSL's "passed a null parameter"
    return ssl.BIO_new_mem_buf(pem, (int)length);
}

/// After a loop of PEM reads: whether the read that ended it only found the end of the text
/// ("no start line"), which is then cleared, rather than a broken block, which stays queued.
/// How SSL_CTX_use_certificate_chain_file tells the two apart.
static int reached_end_of_text(void) {
    if (!error_is(ssl.ERR_peek_last_error(), ERR_LIB_PEM, PEM_R_NO_START_LINE)) return 0;
    ssl.ERR_clear_error();
    return 1;
}

int ctls_context_trust_pem(SSL_CTX *context, const char *pem, size_t length) {
    queue_known_empty = 0;
    BIO *bio = memory_reader(pem, length);
    if (bio == NULL) return -1;
    X509_STORE *store = ssl.SSL_CTX_get_cert_store(context);
    int trusted = 0;
    X509 *certificate;
    while ((certificate = ssl.PEM_read_bio_X509(bio, NULL, refuse_pass_phrase, NULL)) != NULL) {
        int added = ssl.X509_STORE_add_cert(store, certificate);
        ssl.X509_free(certificate);  // the store holds its own reference
        if (!added) {
            ssl.BIO_free(bio);
            return -1;
        }
        trusted++;
    }
    ssl.BIO_free(bio);
    return reached_end_of_text() ? trusted : -1;
}

int ctls_context_use_chain_pem(SSL_CTX *context, const char *pem, size_t length) {
    queue_known_empty = 0;
    BIO *bio = memory_reader(pem, length);
    if (bio == NULL) return 0;
    int used = 0;
    // The leaf as SSL_CTX_use_certificate_chain_file reads it (a TRUSTED CERTIFICATE too).
    X509 *leaf = ssl.PEM_read_bio_X509_AUX(bio, NULL, refuse_pass_phrase, NULL);
    if (leaf != NULL) {
        used = ssl.SSL_CTX_use_certificate(context, leaf) == 1;
        ssl.X509_free(leaf);  // the context holds its own reference
    }
    X509 *link;
    while (used && (link = ssl.PEM_read_bio_X509(bio, NULL, refuse_pass_phrase, NULL)) != NULL) {
        // add0: on success the context owns this reference; on failure it is still ours.
        if (!ssl.SSL_CTX_ctrl(context, CTRL_CHAIN_CERT, 0, link)) {
            ssl.X509_free(link);
            used = 0;
        }
    }
    ssl.BIO_free(bio);
    return used && reached_end_of_text();
}

int ctls_context_use_key_pem(SSL_CTX *context, const char *pem, size_t length) {
    queue_known_empty = 0;
    BIO *bio = memory_reader(pem, length);
    if (bio == NULL) return 0;
    int asked = 0;
    EVP_PKEY *key = ssl.PEM_read_bio_PrivateKey(bio, NULL, refuse_pass_phrase, &asked);
    ssl.BIO_free(bio);
    if (key == NULL) {
        if (!asked) return 0;
        ssl.ERR_clear_error();
        return -1;
    }
    int used = ssl.SSL_CTX_use_PrivateKey(context, key) == 1;
    ssl.EVP_PKEY_free(key);  // the context holds its own reference
    return used;
}

int ctls_context_check_key(SSL_CTX *context) { queue_known_empty = 0; return ssl.SSL_CTX_check_private_key(context) == 1; }

int ctls_context_use_identity(SSL_CTX *context, X509 *certificate, EVP_PKEY *key) {
    queue_known_empty = 0;
    return ssl.SSL_CTX_use_certificate(context, certificate) == 1 && ssl.SSL_CTX_use_PrivateKey(context, key) == 1
        && ssl.SSL_CTX_check_private_key(context) == 1;
}

// MARK: Connections

// The connections open in this process (made and not yet freed), of every context.
static atomic_long open_connections = 0;

SSL *ctls_connection_new(SSL_CTX *context, int fd) {
    queue_known_empty = 0;
    SSL *connection = ssl.SSL_new(context);
    if (connection == NULL) return NULL;
    BIO *bio = ssl.BIO_new(socket_method);
    if (bio == NULL) {
        ssl.SSL_free(connection);
        return NULL;
    }
    ssl.BIO_set_data(bio, (void *)(intptr_t)fd);
    ssl.BIO_set_init(bio, 1);
    // One BIO for both directions: SSL_set_bio takes over its single reference.
    ssl.SSL_set_bio(connection, bio, bio);
    // A connection holds a read and a write buffer, each room for a 16 KB record. Releasing them
    // whenever they are empty (SSL_MODE_RELEASE_BUFFERS) costs a malloc and a free of each for
    // every exchange, and new cache lines to touch: 0.6 µs of a 5 µs https request measured. Kept
    // while few connections are open, released past CTLS_KEEP_BUFFERS_UP_TO of them, where the
    // memory of thousands of waiting connections is what counts.
    if (atomic_fetch_add_explicit(&open_connections, 1, memory_order_relaxed) >= CTLS_KEEP_BUFFERS_UP_TO) {
        ssl.SSL_ctrl(connection, CTRL_MODE, MODE_RELEASE_BUFFERS, NULL);
    }
    return connection;
}

long ctls_open_connections(void) { return atomic_load_explicit(&open_connections, memory_order_relaxed); }

int ctls_connection_releases_buffers(SSL *connection) {
    queue_known_empty = 0;
    return (ssl.SSL_ctrl(connection, CTRL_MODE, 0, NULL) & MODE_RELEASE_BUFFERS) != 0;
}

void ctls_connection_free(SSL *connection, int clean) {
    queue_known_empty = 0;
    // SSL_free drops the session of a connection that did not send close_notify from resumption,
    // as if it had been cut. A connection that ended without an error is not a cut one: HTTP's
    // framing already told complete from truncated. So it counts as shut down.
    if (clean && ssl.SSL_is_init_finished(connection)) {
        ssl.SSL_set_shutdown(connection, ssl.SSL_get_shutdown(connection) | SENT_SHUTDOWN);
    }
    ssl.SSL_free(connection);
    atomic_fetch_sub_explicit(&open_connections, 1, memory_order_relaxed);
}

int ctls_connection_set_server_name(SSL *connection, const char *name) {
    queue_known_empty = 0;
    return ssl.SSL_ctrl(connection, CTRL_SERVER_NAME, 0 /* TLSEXT_NAMETYPE_host_name */, (void *)name) == 1;
}

int ctls_connection_expect_host(SSL *connection, const char *host) { queue_known_empty = 0; return ssl.SSL_set1_host(connection, host) == 1; }

int ctls_connection_expect_ip(SSL *connection, const char *ip) {
    queue_known_empty = 0;
    // SSL_set1_host matches IP literals in 3.x but not in 1.1; this call works in both.
    return ssl.X509_VERIFY_PARAM_set1_ip_asc(ssl.SSL_get0_param(connection), ip) == 1;
}

int ctls_connection_offer(SSL *connection, SSL_SESSION *saved) { queue_known_empty = 0; return ssl.SSL_set_session(connection, saved) == 1; }

static ctls_result outcome(SSL *connection, int value) {
    ctls_result result = {value, 0, errno, 0};
    if (value <= 0) {
        // SSL_get_error reads the queue, so it goes before the queue is emptied.
        result.error = ssl.SSL_get_error(connection, value);
        result.queued = ssl.ERR_get_error();
        ssl.ERR_clear_error();
    }
    return result;
}

// Each call starts from an empty error queue and errno 0: SSL_get_error answers for the latest
// failure on this thread, and an end of stream leaves errno as it was. A read or a write empties
// the queue only when something else may have filled it since (queue_known_empty): emptying it
// reads the thread's error state and clears each of its sixteen slots, some 850 instructions,
// twice an attempt — 3.6% of an https attempt — where a failed call empties it anyway.

ctls_result ctls_connection_connect(SSL *connection) {
    queue_known_empty = 0;
    ssl.ERR_clear_error();
    errno = 0;
    return outcome(connection, ssl.SSL_connect(connection));
}

ctls_result ctls_connection_accept(SSL *connection) {
    queue_known_empty = 0;
    ssl.ERR_clear_error();
    errno = 0;
    return outcome(connection, ssl.SSL_accept(connection));
}

ctls_result ctls_connection_read(SSL *connection, void *buffer, int size) {
    if (!queue_known_empty) ssl.ERR_clear_error();
    errno = 0;
    ctls_result result = outcome(connection, ssl.SSL_read(connection, buffer, size));
    queue_known_empty = 1;
    return result;
}

ctls_result ctls_connection_write(SSL *connection, const void *bytes, int count) {
    if (!queue_known_empty) ssl.ERR_clear_error();
    errno = 0;
    ctls_result result = outcome(connection, ssl.SSL_write(connection, bytes, count));
    queue_known_empty = 1;
    return result;
}

void ctls_connection_shutdown(SSL *connection) {
    queue_known_empty = 0;
    if (!ssl.SSL_is_init_finished(connection)) return;
    ssl.ERR_clear_error();
    (void)ssl.SSL_shutdown(connection);
    ssl.ERR_clear_error();
}

long ctls_connection_verify_result(const SSL *connection) { queue_known_empty = 0; return ssl.SSL_get_verify_result(connection); }

const char *ctls_connection_version(const SSL *connection) { queue_known_empty = 0; return ssl.SSL_get_version(connection); }

const char *ctls_connection_cipher(const SSL *connection) {
    queue_known_empty = 0;
    const SSL_CIPHER *cipher = ssl.SSL_get_current_cipher(connection);
    return cipher != NULL ? ssl.SSL_CIPHER_get_name(cipher) : NULL;
}

int ctls_connection_resumed(const SSL *connection) { queue_known_empty = 0; return ssl.SSL_session_reused(connection) == 1; }

void ctls_connection_alpn(const SSL *connection, const unsigned char **data, unsigned int *length) {
    queue_known_empty = 0;
    *data = NULL;
    *length = 0;
    ssl.SSL_get0_alpn_selected(connection, data, length);
}

int ctls_connection_peer_has_certificate(const SSL *connection) {
    queue_known_empty = 0;
    X509 *certificate = ssl.SSL_get1_peer_certificate != NULL ? ssl.SSL_get1_peer_certificate(connection)
                                                              : ssl.SSL_get_peer_certificate(connection);
    if (certificate == NULL) return 0;
    ssl.X509_free(certificate);  // both names return a new reference
    return 1;
}

SSL_SESSION *ctls_connection_save(const SSL *connection) {
    queue_known_empty = 0;
    SSL_SESSION *saved = ssl.SSL_get1_session((SSL *)connection);
    if (saved != NULL && ssl.SSL_SESSION_is_resumable != NULL && !ssl.SSL_SESSION_is_resumable(saved)) {
        ssl.SSL_SESSION_free(saved);
        return NULL;
    }
    return saved;
}

void ctls_resumption_free(SSL_SESSION *saved) { queue_known_empty = 0; ssl.SSL_SESSION_free(saved); }

// MARK: Certificates made in memory

/// A P-256 key through EVP_PKEY_CTX_ctrl, the function 1.1's EVP_PKEY_CTX_set_ec_paramgen_curve_nid
/// macro expands to; 3.x translates the same call to its provider's "group" parameter.
static EVP_PKEY *make_p256_key(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *generator = ssl.EVP_PKEY_CTX_new_id(PKEY_EC, NULL);
    if (generator == NULL) return NULL;
    if (ssl.EVP_PKEY_keygen_init(generator) <= 0
        || ssl.EVP_PKEY_CTX_ctrl(generator, PKEY_EC, PKEY_OP_PARAMGEN_KEYGEN, PKEY_CTRL_EC_PARAMGEN_CURVE_NID, NID_P256, NULL) <= 0
        || ssl.EVP_PKEY_keygen(generator, &key) <= 0) {
        key = NULL;
    }
    ssl.EVP_PKEY_CTX_free(generator);
    return key;
}

static int add_extension(X509 *certificate, int nid, const char *value) {
    X509_EXTENSION *extension = ssl.X509V3_EXT_conf_nid(NULL, NULL, nid, value);
    if (extension == NULL) return 0;
    int added = ssl.X509_add_ext(certificate, extension, -1);
    ssl.X509_EXTENSION_free(extension);  // X509_add_ext keeps a copy
    return added == 1;
}

int ctls_identity_make(const char *common_name, const char *alt_names, long not_before, long not_after, long serial,
    int authority, X509 *issuer, EVP_PKEY *issuer_key, X509 **certificate_out, EVP_PKEY **key_out) {
    queue_known_empty = 0;
    *certificate_out = NULL;
    *key_out = NULL;
    EVP_PKEY *key = make_p256_key();
    if (key == NULL) return 0;
    X509 *certificate = ssl.X509_new();
    if (certificate == NULL) goto failed;
    X509_NAME *subject = ssl.X509_get_subject_name(certificate);
    int made = ssl.X509_set_version(certificate, 2)  // v3
        && ssl.ASN1_INTEGER_set(ssl.X509_get_serialNumber(certificate), serial)
        && ssl.X509_gmtime_adj(ssl.X509_getm_notBefore(certificate), not_before) != NULL
        && ssl.X509_gmtime_adj(ssl.X509_getm_notAfter(certificate), not_after) != NULL
        && ssl.X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0)
        && ssl.X509_set_issuer_name(certificate, issuer != NULL ? ssl.X509_get_subject_name(issuer) : subject)
        && ssl.X509_set_pubkey(certificate, key)
        && (alt_names == NULL || alt_names[0] == 0 || add_extension(certificate, NID_SUBJECT_ALT_NAME, alt_names))
        && add_extension(certificate, NID_BASIC_CONSTRAINTS, authority ? "critical,CA:TRUE" : "critical,CA:FALSE")
        && (!authority || add_extension(certificate, NID_KEY_USAGE, "critical,keyCertSign,cRLSign"))
        && ssl.X509_sign(certificate, issuer_key != NULL ? issuer_key : key, ssl.EVP_sha256()) > 0;
    if (!made) goto failed;
    *certificate_out = certificate;
    *key_out = key;
    return 1;
failed:
    if (certificate != NULL) ssl.X509_free(certificate);
    ssl.EVP_PKEY_free(key);
    return 0;
}

/// The text a memory BIO holds, malloc'd and NUL-terminated.
static char *memory_text(BIO *bio) {
    char *data = NULL;
    long length = ssl.BIO_ctrl(bio, BIO_COMMAND_INFO, 0, &data);
    if (length < 0 || data == NULL) return NULL;
    char *text = malloc((size_t)length + 1);
    if (text == NULL) return NULL;
    memcpy(text, data, (size_t)length);
    text[length] = 0;
    return text;
}

char *ctls_certificate_pem(X509 *certificate) {
    queue_known_empty = 0;
    BIO *bio = ssl.BIO_new(ssl.BIO_s_mem());
    if (bio == NULL) return NULL;
    char *text = ssl.PEM_write_bio_X509(bio, certificate) == 1 ? memory_text(bio) : NULL;
    ssl.BIO_free(bio);
    return text;
}

char *ctls_key_pem(EVP_PKEY *key) {
    queue_known_empty = 0;
    BIO *bio = ssl.BIO_new(ssl.BIO_s_mem());
    if (bio == NULL) return NULL;
    char *text = ssl.PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1 ? memory_text(bio) : NULL;
    ssl.BIO_free(bio);
    return text;
}

void ctls_certificate_free(X509 *certificate) { queue_known_empty = 0; ssl.X509_free(certificate); }
void ctls_key_free(EVP_PKEY *key) { queue_known_empty = 0; ssl.EVP_PKEY_free(key); }
