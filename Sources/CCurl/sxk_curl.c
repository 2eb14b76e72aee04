// See include/sxk_curl.h: libcurl resolved with dlopen/dlsym on first use.
#include <errno.h>
#include <fcntl.h>
#include "sxk_curl.h"
#include "sxk_dl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
    curl_version_info_data *(*version_info)(CURLversion);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

// Starts `run(arg)` on a detached thread with the platform's default stack, or 1 MiB where the default
// (RLIMIT_STACK) is smaller: the loading thread may go on to run libcurl's transfers for the rest of
// the process. 0 when it started, else pthread's error. Nothing joins these threads.
// Every signal but a fault's is blocked on them, whatever thread starts them: the shell's reader takes
// the signals sxk handles, and libcurl's waits are never cut short by one. A fault still reaches its
// handler (a crash report).
static int start_detached(void *(*run)(void *), void *arg) {
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0) return rc;
    (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    size_t stack = 0;
    if (pthread_attr_getstacksize(&attr, &stack) == 0 && stack < (1 << 20)) (void)pthread_attr_setstacksize(&attr, 1 << 20);
    sigset_t all, previous;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    rc = pthread_create(&thread, &attr, run, arg);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attr);
    return rc;
}

#ifndef __APPLE__
// Two public keys (SubjectPublicKeyInfo, DER), made for this purpose and matching no certificate: an
// EC P-256 and an RSA 2048 one, the kinds servers' certificates carry; the warm-up below decodes them.
static const unsigned char warm_ec_p256[91] = {
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04, 0x7a, 0x5a, 0x0d, 0x1a, 0x9e,
    0x82, 0x4b, 0xa1, 0x94, 0x54, 0x2a, 0xf7, 0x7f, 0x33, 0x01, 0x15, 0x11, 0xba, 0xa7, 0x4e, 0xfc,
    0x92, 0x9f, 0xad, 0xef, 0x60, 0xcc, 0x65, 0x96, 0xd2, 0x92, 0x71, 0x43, 0xe5, 0xff, 0x5f, 0x78,
    0x3f, 0x95, 0xbb, 0x6c, 0x5a, 0x10, 0xc9, 0x5a, 0x69, 0x52, 0x30, 0x97, 0xb8, 0xe7, 0x42, 0x15,
    0xd4, 0xfe, 0xfd, 0xaf, 0x92, 0x57, 0x31, 0x18, 0x1a, 0xa0, 0xa8,
};
static const unsigned char warm_rsa_2048[294] = {
    0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01,
    0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00, 0x30, 0x82, 0x01, 0x0a, 0x02, 0x82, 0x01, 0x01,
    0x00, 0xab, 0xfb, 0x1c, 0xd7, 0xee, 0x8d, 0x1e, 0xeb, 0x95, 0x15, 0x9b, 0x83, 0xdd, 0x82, 0xf2,
    0x71, 0xe8, 0x6c, 0x03, 0xa8, 0xa0, 0x80, 0x00, 0xbb, 0x43, 0x02, 0xf5, 0x1c, 0xdf, 0x7e, 0xe4,
    0x04, 0xa5, 0x08, 0xa7, 0xfd, 0xbd, 0xd4, 0xb0, 0x8b, 0xe7, 0x40, 0x30, 0x6a, 0xdf, 0xfa, 0xe9,
    0xe1, 0xe4, 0xb0, 0x83, 0x02, 0x37, 0x64, 0x6d, 0x45, 0x17, 0x45, 0xbe, 0x88, 0x36, 0x0d, 0x7f,
    0x40, 0x1f, 0xe2, 0xc0, 0x13, 0x02, 0x53, 0x04, 0x74, 0x6a, 0xc7, 0xd2, 0x31, 0xdb, 0x28, 0x2a,
    0xc3, 0xbc, 0xc7, 0x59, 0x77, 0x4d, 0x56, 0x9e, 0x59, 0x93, 0xee, 0xbd, 0xaa, 0xeb, 0x96, 0xfb,
    0x0d, 0x94, 0xb3, 0xd7, 0xb8, 0x45, 0x50, 0xe9, 0x99, 0x52, 0xa0, 0x8d, 0xad, 0x08, 0xe3, 0xd1,
    0x77, 0x0b, 0x86, 0xb6, 0xc6, 0x00, 0x41, 0xb9, 0xc8, 0x28, 0x1f, 0x2f, 0x70, 0x71, 0x82, 0x6c,
    0x3b, 0x08, 0x90, 0x6b, 0xdb, 0x0e, 0x69, 0xf7, 0x31, 0x16, 0xac, 0x5a, 0x68, 0xe9, 0x60, 0x7e,
    0xea, 0x87, 0x3c, 0xc3, 0x64, 0xd4, 0x8d, 0xaf, 0xbf, 0x7a, 0x12, 0x92, 0x87, 0x8b, 0x39, 0x81,
    0xe9, 0xf8, 0x97, 0x02, 0x3b, 0x0a, 0x70, 0xf8, 0x25, 0x7f, 0x9a, 0x68, 0x4b, 0x14, 0x31, 0x24,
    0x3d, 0x85, 0x8f, 0xa9, 0xc2, 0xfa, 0xfe, 0x6f, 0xf0, 0xa6, 0x61, 0x93, 0x8d, 0xfb, 0x33, 0xdb,
    0xd3, 0x33, 0x07, 0xb3, 0x38, 0x05, 0xbe, 0xc5, 0xcd, 0x6f, 0xde, 0xc4, 0x74, 0xec, 0xcf, 0x63,
    0x12, 0xb9, 0xb5, 0x13, 0xd4, 0x93, 0xf7, 0x2e, 0x5a, 0xfd, 0x7c, 0x76, 0xe9, 0xbc, 0xff, 0x75,
    0xa3, 0x16, 0xf2, 0x6b, 0xea, 0xe1, 0x4b, 0x77, 0xfa, 0x4f, 0x2e, 0xd4, 0x63, 0xe5, 0xdf, 0x7b,
    0x15, 0x2e, 0x0a, 0x6c, 0x8e, 0xdb, 0x92, 0xb7, 0x47, 0xab, 0x5f, 0xad, 0x46, 0x71, 0x1d, 0xcd,
    0x1d, 0x02, 0x03, 0x01, 0x00, 0x01,
};

// OpenSSL 3's first SSL_CTX_new in a process fetches every cipher, digest and group from its providers
// into the library context's caches: ≈ 2.2 ms here, the next one ≈ 0.3 ms. libcurl makes its first
// context when the first https connection is up, between the TCP handshake and the ClientHello. One
// made and freed on a thread of its own as soon as libcurl is initialised fills those caches while
// the engine starts and the connection is made. It only warms caches: the context libcurl builds
// is its own, with its own options. Found through the libssl libcurl itself loaded (RTLD_NOLOAD);
// a libcurl on another TLS library, or a libssl without these functions, skips it.
static void *warm_tls(void *unused) {
    (void)unused;
    // Checking the server certificate's dates calls gmtime, whose first call in a process reads the
    // time zone file (/etc/localtime): done here, not between the ServerHello and the Finished.
    tzset();
    void *ssl = dlopen("libssl.so.3", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!ssl) return NULL;
    const void *(*client_method)(void) = (const void *(*)(void))dlsym(ssl, "TLS_client_method");
    void *(*ctx_new)(const void *) = (void *(*)(const void *))dlsym(ssl, "SSL_CTX_new");
    void (*ctx_free)(void *) = (void (*)(void *))dlsym(ssl, "SSL_CTX_free");
    if (client_method && ctx_new && ctx_free) {
        void *ctx = ctx_new(client_method());
        if (ctx) ctx_free(ctx);
    }
    // Parsing a certificate decodes its public key through OpenSSL 3's decoders, whose first use in a
    // process fetches them (≈ 0.4 ms more per certificate kind); the server's chain is parsed between
    // its first answer and the client's Finished. Decoding one key of each common kind here, while the
    // ClientHello is on its way, leaves that fetch done. (Found through libssl: dlsym searches the
    // libcrypto it depends on.)
    void *(*d2i_pubkey)(void **, const unsigned char **, long) = (void *(*)(void **, const unsigned char **, long))dlsym(ssl, "d2i_PUBKEY");
    void (*pkey_free)(void *) = (void (*)(void *))dlsym(ssl, "EVP_PKEY_free");
    if (d2i_pubkey && pkey_free) {
        const unsigned char *ec = warm_ec_p256, *rsa = warm_rsa_2048;
        pkey_free(d2i_pubkey(NULL, &ec, (long)sizeof warm_ec_p256));
        pkey_free(d2i_pubkey(NULL, &rsa, (long)sizeof warm_rsa_2048));
    }
    dlclose(ssl);  // drops the reference RTLD_NOLOAD took; libcurl's keeps it loaded
    return NULL;
}

#endif

static void load(void) {
    static const char *const sonames[] = {
#ifdef __APPLE__
        "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib",
#else
        // The soname of Debian's libcurl4 (and every libcurl since 7.16).
        "libcurl.so.4",
#endif
        NULL};
    static const sxk_dl_symbol symbols[] = {
        {"curl_global_init", (void **)&api.global_init}, {"curl_easy_init", (void **)&api.easy_init},
        {"curl_easy_cleanup", (void **)&api.easy_cleanup}, {"curl_easy_strerror", (void **)&api.easy_strerror},
        {"curl_easy_setopt", (void **)&api.easy_setopt}, {"curl_easy_getinfo", (void **)&api.easy_getinfo},
        {"curl_slist_append", (void **)&api.slist_append}, {"curl_slist_free_all", (void **)&api.slist_free_all},
        {"curl_multi_init", (void **)&api.multi_init}, {"curl_multi_add_handle", (void **)&api.multi_add_handle},
        {"curl_multi_remove_handle", (void **)&api.multi_remove_handle}, {"curl_multi_perform", (void **)&api.multi_perform},
        {"curl_multi_info_read", (void **)&api.multi_info_read}, {"curl_multi_poll", (void **)&api.multi_poll},
        {"curl_multi_wakeup", (void **)&api.multi_wakeup}, {"curl_multi_setopt", (void **)&api.multi_setopt},
        {"curl_share_init", (void **)&api.share_init}, {"curl_share_setopt", (void **)&api.share_setopt},
        {"curl_version_info", (void **)&api.version_info},
    };
    // RTLD_LOCAL keeps its dependencies out of the global symbol scope.
#ifdef __APPLE__
    int flags = RTLD_NOW | RTLD_LOCAL;
#else
    // Debian's libcurl pulls in GnuTLS (through librtmp and libldap), whose library constructor
    // initialises it on load (system priority file, p11-kit): about 0.5 ms and 0.5 MB of memory for
    // a library sxk never calls, since only http and https are enabled and they run on OpenSSL.
    // GnuTLS's documented switch skips that for this load; the variable is removed again at once,
    // so no child process (the pager) inherits it. A value the user set is left alone. Other threads
    // may read the environment meanwhile: sxk sets no other variable, so glibc's first setenv copies
    // the array instead of freeing it, and unsetenv only moves entries within its own copy.
    int set_here = getenv("GNUTLS_NO_IMPLICIT_INIT") == NULL && setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0) == 0;
    // RTLD_LAZY: functions of the ~30 libraries are bound when first called, not all here. libcurl,
    // OpenSSL and most of the others are linked with BIND_NOW, which the loader honours whatever the
    // flag, so a libcurl missing a symbol it imports still fails here, as one exit-4 error; binding
    // the rest (Kerberos, GSSAPI, librtmp, gmp: ~1,800 functions sxk never calls) up front cost
    // 0.5-1 ms of every one-shot's first request.
    int flags = RTLD_LAZY | RTLD_LOCAL;
#endif
    void *lib = sxk_dl_open("libcurl", sonames, flags, symbols, sizeof symbols / sizeof symbols[0],
                            "install libcurl: apt-get install libcurl4", load_error, sizeof load_error);
#ifndef __APPLE__
    if (set_here) unsetenv("GNUTLS_NO_IMPLICIT_INIT");
#endif
    if (!lib) return;
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl could not initialise");
        return;
    }
    loaded = 1;
#ifndef __APPLE__
    // Only when libcurl's TLS is OpenSSL 3: another library may have loaded a libssl libcurl does not use.
    const curl_version_info_data *info = api.version_info(CURLVERSION_NOW);
    if (info && info->ssl_version && strncmp(info->ssl_version, "OpenSSL/3", 9) == 0) (void)start_detached(warm_tls, NULL);
#endif
}

int sxk_curl_load(void) {
    pthread_once(&once, load);
    return loaded ? 0 : -1;
}

// `then` travels as the job's argument (POSIX lets a function pointer round-trip through void *, as dlsym needs).
static void load_then(void *then) {
    pthread_once(&once, load);
    if (then) ((void (*)(void))then)();
}

int sxk_curl_load_in_background(void (*then)(void)) {
    // Detached: a later sxk_curl_load() waits for the load itself (pthread_once blocks until the
    // first call returns).
    return sxk_curl_start_thread(load_then, (void *)then) == 0 ? 0 : -1;
}

struct thread_job { void (*run)(void *); void *arg; };

static void *run_job(void *raw) {
    struct thread_job job = *(struct thread_job *)raw;
    free(raw);
    job.run(job.arg);
    return NULL;
}

int sxk_curl_start_thread(void (*run)(void *), void *arg) {
    struct thread_job *job = malloc(sizeof *job);
    if (!job) return ENOMEM;
    job->run = run;
    job->arg = arg;
    int rc = start_detached(run_job, job);
    if (rc != 0) free(job);
    return rc;
}

const char *sxk_curl_load_error(void) { return load_error; }

CURL *sxk_curl_easy_init(void) { return api.easy_init(); }
void sxk_curl_easy_cleanup(CURL *h) { api.easy_cleanup(h); }
const char *sxk_curl_easy_strerror(CURLcode code) { return api.easy_strerror(code); }
struct curl_slist *sxk_curl_slist_append(struct curl_slist *list, const char *text) { return api.slist_append(list, text); }
void sxk_curl_slist_free_all(struct curl_slist *list) { api.slist_free_all(list); }
CURLM *sxk_curl_multi_init(void) { return api.multi_init(); }
CURLMcode sxk_curl_multi_add_handle(CURLM *m, CURL *h) { return api.multi_add_handle(m, h); }
CURLMcode sxk_curl_multi_remove_handle(CURLM *m, CURL *h) { return api.multi_remove_handle(m, h); }
CURLMcode sxk_curl_multi_perform(CURLM *m, int *running) { return api.multi_perform(m, running); }
CURLMsg *sxk_curl_multi_info_read(CURLM *m, int *left) { return api.multi_info_read(m, left); }
CURLMcode sxk_curl_multi_poll(CURLM *m, int timeout_ms) { return api.multi_poll(m, NULL, 0, timeout_ms, NULL); }
CURLMcode sxk_curl_multi_wakeup(CURLM *m) { return api.multi_wakeup(m); }
CURLSH *sxk_curl_share_init(void) { return api.share_init(); }

CURLcode sxk_easy_setopt_long(CURL *h, CURLoption o, long v) { return api.easy_setopt(h, o, v); }
CURLcode sxk_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return api.easy_setopt(h, o, v); }
CURLcode sxk_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return api.easy_setopt(h, o, v); }
CURLcode sxk_easy_setopt_data_fn(CURL *h, CURLoption o, sxk_curl_data_fn v) { return api.easy_setopt(h, o, v); }
CURLcode sxk_easy_setopt_xferinfo_fn(CURL *h, sxk_curl_xferinfo_fn v) { return api.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }
CURLcode sxk_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return api.easy_getinfo(h, i, v); }
CURLcode sxk_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return api.easy_getinfo(h, i, v); }
CURLcode sxk_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return api.easy_getinfo(h, i, v); }
CURLSHcode sxk_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return api.share_setopt(s, o, v); }
CURLMcode sxk_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return api.multi_setopt(m, o, v); }

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user) {
    (void)h; (void)access;
    pthread_mutex_lock(&((pthread_mutex_t *)user)[data]);
}
static void share_unlock(CURL *h, curl_lock_data data, void *user) {
    (void)h;
    pthread_mutex_unlock(&((pthread_mutex_t *)user)[data]);
}

int sxk_share_set_locks(CURLSH *s) {
    pthread_mutex_t *locks = (pthread_mutex_t *)calloc(CURL_LOCK_DATA_LAST, sizeof(pthread_mutex_t));
    if (!locks) return -1;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&locks[i], NULL);
    if (api.share_setopt(s, CURLSHOPT_USERDATA, (void *)locks) != CURLSHE_OK) return -1;
    if (api.share_setopt(s, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK) return -1;
    if (api.share_setopt(s, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK) return -1;
    return 0;
}

CURLcode sxk_curl_msg_result(const CURLMsg *m) { return m->data.result; }

int sxk_sockaddr_is_loopback(const struct sockaddr *a) {
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(v6)) return 1;
        return IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127;
    }
    return 0;
}

static curl_socket_t gate_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a) {
    sxk_socket_gate *gate = (sxk_socket_gate *)clientp;
    (void)purpose;
    if (!gate->allow_any && !sxk_sockaddr_is_loopback(&a->addr)) {
        gate->refused = 1;
        const void *raw = a->family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)&a->addr)->sin6_addr
                                                : (const void *)&((const struct sockaddr_in *)&a->addr)->sin_addr;
        if (!inet_ntop(a->family, raw, gate->address, sizeof gate->address)) strcpy(gate->address, "?");
        return CURL_SOCKET_BAD;
    }
#ifdef SOCK_CLOEXEC
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
#else
    curl_socket_t fd = socket(a->family, a->socktype, a->protocol);
    if (fd != CURL_SOCKET_BAD) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#endif
}

CURLcode sxk_easy_set_socket_gate(CURL *h, sxk_socket_gate *gate) {
    CURLcode rc = api.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, gate_open_socket);
    if (rc != CURLE_OK) return rc;
    return api.easy_setopt(h, CURLOPT_OPENSOCKETDATA, gate);
}
