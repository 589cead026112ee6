/* What the library's files share; nothing here is part of the public interface. */
#ifndef LICENSING_INTERNAL_H
#define LICENSING_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <pthread.h>

#include "licensing.h"

/* A failure on its way to the caller: the status, the code (static or owned), the service's data, a reason for logs. */
typedef struct lc_error {
  int status;
  char *code;
  char *data_json;
  char detail[200];
  long http_status;
} lc_error;

void lc__fail(lc_error *error, int status, const char *code, const char *detail_format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void lc__error_clear(lc_error *error);
int lc__out_of_memory(lc_error *error);

/* The application's public key as pinned in the program, and its RFC 7638 thumbprint. */
typedef struct lc_pinned {
  EVP_PKEY *key;
  char key_id[48];
} lc_pinned;

int lc__pin_key(lc_pinned *pinned, const char *public_key);
void lc__pinned_free(lc_pinned *pinned);
int lc__ed25519_verify(const lc_pinned *pinned, const unsigned char *message, size_t length, const unsigned char *signature, size_t signature_length);

/* The three signature fields of an answer, as received; `repeated` when one came more than once. */
typedef struct lc_signature_fields {
  const char *content_digest;
  const char *signature_input;
  const char *signature;
  int repeated;
} lc_signature_fields;

/* A verified success: the parsed body (owned), its message and data (inside it). */
typedef struct lc_answer {
  cJSON *body;
  const char *message;
  const cJSON *data;
} lc_answer;

void lc__answer_free(lc_answer *answer);

/* RFC 9530 Content-Digest (sha-256) of bytes, written into out (at least 64 bytes). */
void lc__content_digest(const unsigned char *bytes, size_t length, char *out);

/*
 * The verification of one answer, as transport.c applies it to every answer
 * and the recorded-answer tests apply it to each recorded case: LC_OK with the
 * success in *answer; LC_ERR_REFUSED for a verified refusal (code = its
 * message, data_json = its data); LC_ERR_INVALID_SIGNATURE for anything else.
 */
int lc__verify_answer(const lc_pinned *pinned, long status, const lc_signature_fields *fields, const unsigned char *body, size_t length,
                      const char *nonce, const char *request_digest, const char *license, lc_answer *answer, lc_error *error);

/* What an offline token must name; `now` < 0: judge nbf and exp by the token's own iat (a token that just came with its nonce);
 * nbf_leeway: how many seconds past `now` nbf may be. */
typedef struct lc_token_expect {
  const char *app_id;
  const char *license;
  const char *hwid;
  const char *nonce;
  int64_t now;
  int64_t nbf_leeway;
} lc_token_expect;

/* The token's claims once verified (owned by the caller): LC_OK, LC_ERR_OFFLINE_TOKEN_EXPIRED or LC_ERR_INVALID_SIGNATURE. */
int lc__verify_token(const lc_pinned *pinned, const char *token, const lc_token_expect *expect, cJSON **claims, lc_error *error);
/* A compact JWS's parts: the offsets of its two dots (0 unless there are exactly two); a part decoded as a JSON object (NULL
 * when it is none); whether its header (set, owned by the caller) names EdDSA and no critical extension and its signature
 * verifies with the pinned key. */
int lc__split_jws(const char *token, size_t *first, size_t *second);
cJSON *lc__decode_part(const char *text, size_t length);
int lc__jws_verifies(const lc_pinned *pinned, const char *token, size_t first, size_t second, cJSON **header);
/* The claims without any check (NULL when the token cannot be read): to tell a token of another license from a bad one. */
cJSON *lc__peek_claims(const char *token);
/* Whether claims name this license (when given) and device (when given; a token naming no device names every one). */
int lc__names_license_and_device(const cJSON *claims, const char *license, const char *hwid);

struct lc_thread_error;

struct lc_client {
  char *url;
  char *app_id;
  char *state_dir;
  char *token_path;
  long timeout_ms;
  lc_clock_fn clock;
  void *clock_data;
  lc_pinned pinned;
  /* Guards the table of the threads' last errors, the token file and the machine id. */
  pthread_mutex_t lock;
  struct lc_thread_error *errors;
  char *machine_id;
};

/* The client's clock in milliseconds since the epoch. */
int64_t lc__now_ms(const lc_client *client);
/* A monotonic clock in milliseconds, for deadlines and waits. */
int64_t lc__monotonic_ms(void);
void lc__sleep_ms(int64_t milliseconds);
/* A uniformly random number in [0, 1) from the system's random source. */
double lc__random_unit(void);

/* Base64url without padding of bytes into a new string; base64 (standard, padded) likewise. */
char *lc__base64url(const unsigned char *bytes, size_t length);
char *lc__base64(const unsigned char *bytes, size_t length);
/* Decodes base64url (no padding) or base64 (padding optional) into a new buffer; NULL when malformed. */
unsigned char *lc__base64url_decode(const char *text, size_t text_length, size_t *length);
unsigned char *lc__base64_decode(const char *text, size_t text_length, size_t *length);
char *lc__strdup(const char *text);
/* A copy of the text without the white space around it (space, tab, CR, LF). */
char *lc__trim(const char *text);
char *lc__format(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Milliseconds since the epoch of an ISO 8601 UTC instant as the service writes it; -1 when malformed. */
int64_t lc__parse_instant(const char *text);
/* The ISO 8601 UTC text of seconds since the epoch, with milliseconds, into out (at least 32 bytes). */
void lc__format_instant(int64_t seconds, char *out, size_t size);

/* A fresh random nonce (24 characters of base64url) into out (at least 25 bytes). */
int lc__nonce(char *out);

/*
 * POSTs one client-route request (`request`: its fields; app_id and a fresh
 * nonce are added) and verifies the answer; 429, 5xx and failed connections are
 * retried until the client's timeout. nonce_out (at least 25 bytes) receives
 * the nonce sent. `license`: the key asked about, or NULL.
 */
int lc__post(lc_client *client, const char *path, cJSON *request, const char *license, char *nonce_out, lc_answer *answer, lc_error *error);

/* lc__post of the fields (consumed) after app_id. */
int lc__call(lc_client *client, const char *path, cJSON *fields, const char *license, char *nonce_out, lc_answer *answer, lc_error *error);

/* Offline tokens kept in the state folder (token.c). */
int lc__keep_token(lc_client *client, const cJSON *data, const char *nonce, const char *username, const char *hwid, lc_error *error);
int lc__offline(lc_client *client, const lc_credentials *credentials, lc_error *network_error, lc_result **result, lc_error *error);
void lc__forget_token(lc_client *client, const lc_credentials *credentials);

/* The state folder's files (state.c), each read and replaced under the client's lock. */
/* Replaces the file whole, mode 0600, creating the folder: a crash or a concurrent reader sees the old content or the new, never part of one. */
int lc__replace_file(const char *folder, const char *path, const char *text);
/* The file's text (NULL when it cannot be read whole within `limit` bytes). */
char *lc__read_text(const char *path, size_t limit);
/* The stored license file, trimmed (NULL when none or no state folder); store writes it and one newline; drop deletes it only if it is still `compact`. */
char *lc__stored_license_file(lc_client *client);
int lc__store_license_file(lc_client *client, const char *compact);
void lc__drop_license_file(lc_client *client, const char *compact);
/* The activation requests waiting for their file, oldest first: an array of {license, hwid, nonce} (NULL when memory ran out). */
cJSON *lc__pending_requests(lc_client *client);
int lc__keep_request(lc_client *client, const char *license, const char *hwid, const char *nonce);
/* A file arrived for this license and device: every request waiting for one is answered. */
int lc__forget_requests(lc_client *client, const char *license, const char *hwid);
/* Before a stored token or file is trusted: CLOCK_MOVED_BACK when `now` (seconds) is more than a day behind the latest time
 * seen, else records it when later. Without a state folder nothing is stored to trust and nothing is judged. */
int lc__judge_clock(lc_client *client, double now, lc_error *error);
/* The service's time (iat) of a token or file that came with this request's nonce: the latest time seen from now on. */
void lc__saw_service_time(lc_client *client, double seconds);

/* License files (license_file.c): opened (decrypted when a JWE, signature checked) with this license and device, then their claims judged. */
typedef struct lc_file_expect {
  const char *license;
  const char *hwid;
  const char *nonce; /* NULL: any */
  double now;        /* < 0: not judged by a clock */
} lc_file_expect;
int lc__open_license_file(const lc_client *client, const char *text, const char *license, const char *hwid, cJSON **claims, lc_error *error);
int lc__check_file_claims(const lc_client *client, const cJSON *claims, const lc_file_expect *expect, lc_error *error);
/* The check answered from the stored license file: LC_OK with *result, a failure, or LC_ERR_NETWORK when no file is for these credentials. */
int lc__from_license_file(lc_client *client, const lc_credentials *credentials, lc_result **result, lc_error *error);
void lc__forget_license_file(lc_client *client, const lc_credentials *credentials);
/* Usernames as the service compares them (token.c). */
int lc__same_username(const char *a, const char *b);

/* The request fields of credentials: license, or username and password, and hwid. */
cJSON *lc__credentials_request(const lc_credentials *credentials);
/* POST /auth with the credentials and extra fields (consumed); a token in the answer is checked and kept. */
int lc__authenticate(lc_client *client, const lc_credentials *credentials, cJSON *extra, lc_result **result, lc_error *error);

lc_result *lc__result_new(const char *message, const cJSON *data, int offline);
const cJSON *lc__result_data(const lc_result *result);

/* Records the outcome of a public call for lc_last_error_*; returns error->status and clears error. */
int lc__finish(lc_client *client, lc_error *error);

/* The machine's own id (machine_id.c): the OS's id of the installation, or "host:<name>". */
char *lc__machine_source(void);
char *lc__user_name(void);

#endif
