/*
 * licensing.h: the client of the licensing service for programs written in C
 * (and, through licensing.hpp, C++). See README.md beside this folder.
 *
 * Every answer of the service is accepted only once it verifies against the
 * application's pinned Ed25519 public key: signed by that key (an HTTP Message
 * Signature over the answer's status, its body's digest and this very request's
 * digest), carrying this call's fresh nonce, and about the license asked for.
 *
 * Memory: every `const char *` a function returns is owned by the object it was
 * asked of and stays valid as the function's own comment says; nothing returned
 * is freed by the caller except with the `lc_*_free` function named for it.
 *
 * Threads: one lc_client may be used by any number of threads at once. Results
 * and heartbeats belong to the thread that holds them. There is no global state
 * and nothing to initialise first.
 *
 * Numbers passed to and from functions are fixed-width (int32_t, int64_t), so
 * that other languages can call the library; lc_options.timeout_ms is a long.
 */
#ifndef LICENSING_H
#define LICENSING_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(LICENSING_SHARED)
#if defined(LICENSING_BUILDING)
#define LC_API __declspec(dllexport)
#else
#define LC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && defined(LICENSING_SHARED)
#define LC_API __attribute__((visibility("default")))
#else
#define LC_API
#endif

/* What a call returns: 0 on success, else one of these; the code string of the
 * failure is lc_last_error_code(). A call given a NULL client returns
 * LC_ERR_INVALID_ARGUMENT and records nothing. */
enum {
  LC_OK = 0,
  /* The service refused (a verified answer): the code is its message, e.g.
   * LICENSE_EXPIRED, HWID_MISMATCH, SEATS_EXHAUSTED, or a 400's sentence. */
  LC_ERR_REFUSED = 1,
  /* INVALID_SIGNATURE: an answer that is unsigned, altered, replayed, relayed,
   * or signed by another key; or a stored offline token that does not verify. */
  LC_ERR_INVALID_SIGNATURE = 2,
  /* NETWORK_ERROR: no usable answer within the timeout (retries included). */
  LC_ERR_NETWORK = 3,
  /* OFFLINE_TOKEN_EXPIRED: the service was unreachable and the stored token is past its end. */
  LC_ERR_OFFLINE_TOKEN_EXPIRED = 4,
  /* INVALID_ARGUMENT: a NULL or malformed argument, or a call the handle does not allow now. */
  LC_ERR_INVALID_ARGUMENT = 5,
  /* INTERNAL_ERROR: out of memory, or the crypto or HTTP library failed. */
  LC_ERR_INTERNAL = 6,
  /* LICENSE_FILE_EXPIRED: the license file is past its exp (the data says when: expired_at). */
  LC_ERR_LICENSE_FILE_EXPIRED = 7,
  /* LICENSE_FILE_MISMATCH: the text is no license file of this application, license, device or request, or is not valid yet. */
  LC_ERR_LICENSE_FILE_MISMATCH = 8,
  /* CLOCK_MOVED_BACK: the computer clock is more than a day behind a time this program has seen (data: latest_seen_at). */
  LC_ERR_CLOCK_MOVED_BACK = 9
};

/* The clock offline tokens and heartbeats go by: milliseconds since the epoch. */
typedef int64_t (*lc_clock_fn)(void *clock_data);

typedef struct lc_options {
  /* The service's base URL (http:// or https://), e.g. the stack's ApiUrl; NULL: never online (an air-gapped program),
   * lc_check answers from the stored license file or token. */
  const char *url;
  /* The application's id (a UUID). */
  const char *app_id;
  /* The application's public key, pinned in the program: the PEM (SPKI) or the
   * JWK JSON that POST /app/signing-key answers as public_key_pem or jwk. */
  const char *public_key;
  /* A folder for the offline token, the license file, activation requests and the latest time seen (created when
   * missing, mode 0700; files mode 0600); NULL: no offline use. */
  const char *state_dir;
  /* The longest one call may take, retries included; 0: 10000. */
  long timeout_ms;
  /* NULL: the system's clock. Tests pass a clock they move by hand. */
  lc_clock_fn clock;
  void *clock_data;
} lc_options;

/* A license key, or the username and password registered for one (license
 * wins when both are set); hwid: the device, or NULL. Strings are UTF-8. */
typedef struct lc_credentials {
  const char *license;
  const char *username;
  const char *password;
  const char *hwid;
} lc_credentials;

typedef struct lc_client lc_client;
typedef struct lc_result lc_result;
typedef struct lc_heartbeat lc_heartbeat;

/* A client of one application; NULL when an option is missing or malformed
 * (url, app_id, public_key) or memory ran out. Free with lc_client_free. */
LC_API lc_client *lc_client_new(const lc_options *options);

/* Frees the client. Every heartbeat of it must have been stopped, and no call on
 * it may be running in another thread. NULL is allowed. */
LC_API void lc_client_free(lc_client *client);

/*
 * The calling thread's last failure on this client: its code (the service's
 * message, or INVALID_SIGNATURE, NETWORK_ERROR, OFFLINE_TOKEN_EXPIRED,
 * LICENSE_FILE_EXPIRED, LICENSE_FILE_MISMATCH, CLOCK_MOVED_BACK,
 * INVALID_ARGUMENT, INTERNAL_ERROR), the JSON of the data the service sent
 * with a refusal (NULL when none), and a sentence for logs (never for trust).
 * NULL after a call that succeeded. Owned by the client; valid until this
 * thread's next call on it.
 */
LC_API const char *lc_last_error_code(lc_client *client);
LC_API const char *lc_last_error_data_json(lc_client *client);
LC_API const char *lc_last_error_detail(lc_client *client);

/*
 * Authenticates (and on first use activates) the license: POST /auth. With a
 * state_dir, the answer's offline token is checked and kept there; when the
 * service cannot be reached (or no url is set), the kept license file answers,
 * else the kept token, while it verifies, has not expired and names this
 * license (or username) and device: then lc_result_offline() is true and the
 * message is LICENSE_FILE_VALID (the data: the file's claims, its `data` the
 * license data) or OFFLINE_TOKEN_VALID (the token's claims plus `key` and
 * `offline_until`). A stored token or file is refused with CLOCK_MOVED_BACK
 * when the clock is more than a day behind the latest time seen (kept in
 * state_dir as clock.json). A refusal of the license by the service (403)
 * deletes the kept token and license file of that license.
 * Returns LC_OK and sets *result (free it with lc_result_free), else non-zero
 * with *result set to NULL.
 */
LC_API int lc_check(lc_client *client, const lc_credentials *credentials, lc_result **result);

/* Holds this device's floating seat for `seconds` (60 up to the application's
 * max_borrow_seconds) to work offline, and keeps its offline token in
 * state_dir: POST /auth with borrow_seconds. credentials->hwid is required. */
LC_API int lc_borrow(lc_client *client, const lc_credentials *credentials, int64_t seconds, lc_result **result);

/* Gives this device's floating seat back at once: POST /release (message
 * SEAT_RELEASED). credentials->hwid is required. */
LC_API int lc_release(lc_client *client, const lc_credentials *credentials, lc_result **result);

/* Releases the device credentials->hwid, or every device of the license when
 * it is NULL, so another computer can take it: POST /reset-hwid (HWID_RESET). */
LC_API int lc_reset_hwid(lc_client *client, const lc_credentials *credentials, lc_result **result);

/* Sets or replaces the username and password of a license: POST /register. */
LC_API int lc_register(lc_client *client, const char *license, const char *username, const char *password, lc_result **result);

/*
 * Counts `amount` (1 to 1,000,000; 0 means 1) against a usage counter: POST
 * /usage (USAGE_RECORDED; the data is the counter). Every retry of the call
 * sends the same usage_id, so a lost answer is counted once. usage_id: NULL
 * makes a fresh one; pass your own (8 to 128 of A-Z a-z 0-9 . _ ~ + / = -) to
 * repeat a call that ended in NETWORK_ERROR without counting twice.
 */
LC_API int lc_record_usage(lc_client *client, const lc_credentials *credentials, const char *counter, int64_t amount, const char *usage_id,
                           lc_result **result);

/*
 * License files and air-gapped activation. A license file is a compact JWS by
 * the application's key (typ license+jwt) carrying the offline token's claims,
 * the license data (`data`) and `air_gapped`; or, asked for encrypted, a compact
 * JWE (dir, A256GCM) holding one, whose key is HKDF-SHA256 of the license key
 * and the HWID, so only that key on that device reads it. A file is accepted
 * only when it verifies with the pinned key and names this application, the
 * license, the device and (a file made from an activation request) the
 * request's nonce, within nbf and exp: else LICENSE_FILE_MISMATCH or
 * LICENSE_FILE_EXPIRED. It is kept in state_dir as license.lic (the compact
 * string and a newline), where lc_check finds it when the service cannot be
 * reached. The state folder's files are those of the TypeScript and Python
 * libraries: any of them reads a folder another wrote.
 */
typedef struct lc_file_options {
  int64_t lifetime_seconds; /* 0: the application's longest; else 3600 to 315360000 */
  bool encrypt;             /* encrypted for this license key and device */
} lc_file_options;

/* POST /license-file: a license file for credentials->hwid (required), with all of a check's effects (first use, binding,
 * on a floating license the seat borrowed for the file's lifetime), verified with this request's nonce and kept in
 * state_dir when set. The result is the service's answer; its data holds the license data and `license_file`. options may be NULL. */
LC_API int lc_license_file(lc_client *client, const lc_credentials *credentials, const lc_file_options *options, lc_result **result);

/* An activation request for a device that cannot reach the service: `lfr1.` and the base64url of {app_id, license, hwid,
 * nonce, lifetime_seconds?, encrypt?}, with a fresh nonce kept in state_dir (required) until the file made from it is
 * loaded. The result (message ACTIVATION_REQUEST) has the data {"request": ..., "link": "<portal_url>/activate/#<request>"}
 * (link only with a portal_url).
 * The owner's dashboard or the customer portal turns the request into a file. options and portal_url may be NULL. */
LC_API int lc_activation_request(lc_client *client, const char *license, const char *hwid, const lc_file_options *options, const char *portal_url,
                                 lc_result **result);

/* Accepts a license file made for one of this program's waiting activation requests (white space around it ignored) and
 * keeps it in state_dir: LC_OK with message LICENSE_FILE_VALID and the file's claims as data (its `data` member is the
 * license data); else LICENSE_FILE_MISMATCH, LICENSE_FILE_EXPIRED, INVALID_SIGNATURE or CLOCK_MOVED_BACK. */
LC_API int lc_load_license_file(lc_client *client, const char *text, lc_result **result);

/* Deletes the stored license file of this license and device and gives its return code (message RETURN_CODE, data {"return_code": "lfx1..."}:
 * the base64url of {app_id, license, hwid, jti}), which the dashboard or the customer portal takes to free the device under
 * the license's reset rules. The file itself stays valid until its exp. LICENSE_FILE_MISMATCH when no such file is stored. */
LC_API int lc_return_code(lc_client *client, const char *license, const char *hwid, lc_result **result);

/* Returns the stored license file online (POST /license-file/return, message LICENSE_FILE_RETURNED, data the license data
 * after it) and deletes it once the service took it back; a refusal (e.g. HWID_RESET_COOLDOWN) keeps it. */
LC_API int lc_return_license_file(lc_client *client, const char *license, const char *hwid, lc_result **result);

/* Asks for this device's trial: POST /trial. TRIAL_STARTED or, for a device whose trial runs, TRIAL_RESUMED, with the trial
 * license's data and its key in data.license (lc_result_string(result, "license")), which the program keeps and checks
 * with from then on. A trial that ended, was bought or cannot start is a refusal: TRIAL_EXPIRED, TRIAL_CONVERTED,
 * TRIAL_LIMIT_REACHED, TRIALS_DISABLED. */
LC_API int lc_start_trial(lc_client *client, const char *hwid, lc_result **result);

/* This machine's id for this application, for programs with no HWID of their
 * own: SHA-256 in hex of the system's machine id, the user's name and the app id
 * (README.md lists the sources). Owned by the client; NULL only when memory ran out. */
LC_API const char *lc_machine_id(lc_client *client);

/*
 * Verification alone, for a program that sends its requests through an HTTP
 * stack of its own (a game engine's, a platform's): the same checks every call
 * above applies. The request's body must carry a fresh random "nonce" (8 to 128
 * of A-Z a-z 0-9 . _ ~ + / = -) and the request a Content-Digest header of its
 * body (RFC 9530 sha-256); pass both, and the answer's status, its three
 * signature header fields (NULL when absent) and its body's bytes.
 */
typedef struct lc_exchange {
  const char *nonce;
  const char *request_digest;
  const char *license; /* the key asked about, or NULL */
  int32_t status;
  const char *content_digest;
  const char *signature_input;
  const char *signature;
  const char *body;
  int64_t body_length;
} lc_exchange;

/* LC_OK with the verified success in *result; LC_ERR_REFUSED for a verified refusal; else LC_ERR_INVALID_SIGNATURE. */
LC_API int lc_verify_answer(lc_client *client, const lc_exchange *exchange, lc_result **result);

/* An offline token checked as the library checks one: signature, typ, issuer,
 * nbf and exp at now_seconds (negative: the client's clock), and the license and
 * device of `expected` where given, and `nonce` where given. LC_OK with the claims as the
 * result's data (message OFFLINE_TOKEN_VALID), LC_ERR_OFFLINE_TOKEN_EXPIRED or LC_ERR_INVALID_SIGNATURE. */
LC_API int lc_verify_token(lc_client *client, const char *token, const lc_credentials *expected, const char *nonce, int64_t now_seconds,
                           lc_result **result);

/* A verified answer. Strings are owned by the result until lc_result_free. */
LC_API const char *lc_result_message(const lc_result *result);
/* The answer's `data` as JSON ("null" when it has none). */
LC_API const char *lc_result_data_json(const lc_result *result);
/* True when the answer came from the stored offline token. */
LC_API bool lc_result_offline(const lc_result *result);
/* A top-level string member of the data (NULL when absent or not a string),
 * e.g. "key", "expires_at", "subscription_name", "lease_expires_at", "offline_until". */
LC_API const char *lc_result_string(const lc_result *result, const char *name);
/* A top-level integer member of the data into *value (false when absent or not
 * an integer), e.g. "subscription_level", "remaining", "hwid_reset_cooldown". */
LC_API bool lc_result_integer(const lc_result *result, const char *name, long long *value);
/* Whether the data's `features` lists this entitlement. */
LC_API bool lc_result_has_feature(const lc_result *result, const char *feature);
LC_API void lc_result_free(lc_result *result);

/*
 * Floating seats. The heartbeat takes or renews this device's seat now
 * (returning the refusal, e.g. SEATS_EXHAUSTED, or LICENSE_NOT_FLOATING when
 * the answer holds no lease) and then keeps renewing it on a thread of its own
 * at about half the lease. A renewal that fails for want of an answer is
 * retried while the lease lasts; a refusal, or a lease that ended unrenewed
 * (NETWORK_ERROR), is reported once to on_lost, on the heartbeat's thread, and
 * ends the heartbeat. on_lost must not call lc_heartbeat_stop itself.
 */
typedef void (*lc_lost_fn)(void *user_data, const char *code, const char *data_json);

typedef struct lc_heartbeat_options {
  lc_lost_fn on_lost; /* NULL: the loss is only seen by lc_heartbeat_lost_code */
  void *user_data;
  int64_t interval_ms; /* 0: renew at about half of what is left of the lease (with jitter); else about every interval_ms */
} lc_heartbeat_options;

/* credentials->hwid is required; the credentials are copied. options may be NULL. */
LC_API int lc_heartbeat_start(lc_client *client, const lc_credentials *credentials, const lc_heartbeat_options *options,
                              lc_heartbeat **heartbeat);
/* Renews now instead of when planned (e.g. when the computer wakes from sleep); returns once done. */
LC_API int lc_heartbeat_renew_now(lc_heartbeat *heartbeat);
/* The end of the lease as of the last renewal, in milliseconds since the epoch (the service's clock). */
LC_API int64_t lc_heartbeat_lease_expires_at(lc_heartbeat *heartbeat);
/* Why the seat was lost (a code as lc_last_error_code gives), or NULL while it is held. Owned by the heartbeat. */
LC_API const char *lc_heartbeat_lost_code(lc_heartbeat *heartbeat);
/* Stops renewing, gives the seat back (POST /release) unless it was lost, and
 * frees the heartbeat. Returns the release's status; the heartbeat is freed
 * whatever it is. Call it before the program ends, or the seat lapses only
 * when its lease ends. NULL is allowed. */
LC_API int lc_heartbeat_stop(lc_heartbeat *heartbeat);

#ifdef __cplusplus
}
#endif

#endif
