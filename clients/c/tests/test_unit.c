/* The verification functions on answers and tokens made here with a key of the test's own: every rule, one at a time. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "../src/internal.h"
#include "harness.h"

static EVP_PKEY *private_key;
static lc_pinned pinned;

static int ensure_key(void) {
  if (private_key != NULL) return 1;
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
  int ok = context != NULL && EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_keygen(context, &private_key) == 1;
  EVP_PKEY_CTX_free(context);
  BIO *bio = BIO_new(BIO_s_mem());
  ok = ok && PEM_write_bio_PUBKEY(bio, private_key) == 1;
  char *pem = NULL;
  long length = ok ? BIO_get_mem_data(bio, &pem) : 0;
  char *text = ok ? malloc((size_t)length + 1) : NULL;
  if (text != NULL) {
    memcpy(text, pem, (size_t)length);
    text[length] = '\0';
  }
  BIO_free(bio);
  ok = ok && lc__pin_key(&pinned, text);
  free(text);
  return ok;
}

static char *sign_base64(const char *message, int url) {
  unsigned char signature[64];
  size_t length = sizeof signature;
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  EVP_DigestSignInit(context, NULL, NULL, NULL, private_key);
  EVP_DigestSign(context, signature, &length, (const unsigned char *)message, strlen(message));
  EVP_MD_CTX_free(context);
  return url ? lc__base64url(signature, length) : lc__base64(signature, length);
}

/* ---- answers ---- */

typedef struct made_answer {
  char digest[64];
  char input[512];
  char signature[256];
  const char *body;
  long status;
} made_answer;

#define NONCE "nonce-of-the-request-1234"
#define REQUEST_DIGEST "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:"

/* An answer signed as the service signs: over `components` with `params` after created. */
static void make_answer(made_answer *answer, long status, const char *body, const char *components, const char *params) {
  answer->body = body;
  answer->status = status;
  lc__content_digest((const unsigned char *)body, strlen(body), answer->digest);
  snprintf(answer->input, sizeof answer->input, "sig1=%s;created=1763856000%s", components, params);
  char base[1024];
  snprintf(base, sizeof base, "\"@status\": %ld\n\"content-digest\": %s\n\"content-digest\";req: %s\n\"@signature-params\": %s;created=1763856000%s",
           status, answer->digest, REQUEST_DIGEST, components, params);
  char *signature = sign_base64(base, 0);
  snprintf(answer->signature, sizeof answer->signature, "sig1=:%s:", signature);
  free(signature);
}

#define COMPONENTS "(\"@status\" \"content-digest\" \"content-digest\";req)"

static void standard_params(char *out, size_t size, const char *nonce) {
  snprintf(out, size, ";keyid=\"%s\";alg=\"ed25519\";nonce=\"%s\"", pinned.key_id, nonce);
}

static int verify(const made_answer *answer, const char *nonce, const char *request_digest, const char *license, lc_error *error) {
  lc_signature_fields fields = {answer->digest, answer->input, answer->signature, 0};
  lc_answer verified;
  int status = lc__verify_answer(&pinned, answer->status, &fields, (const unsigned char *)answer->body, strlen(answer->body), nonce, request_digest,
                                 license, &verified, error);
  lc__answer_free(&verified);
  return status;
}

static void an_answer_verifies_only_for_its_request_nonce_status_and_key(void) {
  CHECK(ensure_key());
  char params[256];
  standard_params(params, sizeof params, NONCE);
  made_answer answer;
  const char *body = "{\"success\":true,\"message\":\"LICENSE_VERIFIED_USED_KEY\",\"data\":{\"key\":\"AAAA-BBBB\"}}";
  make_answer(&answer, 200, body, COMPONENTS, params);
  lc_error error = {0};
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, "AAAA-BBBB", &error) == LC_OK);
  CHECK(verify(&answer, "another-nonce-123", REQUEST_DIGEST, "AAAA-BBBB", &error) == LC_ERR_INVALID_SIGNATURE);
  CHECK(verify(&answer, NONCE, "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:", "AAAA-BBBB", &error) == LC_ERR_INVALID_SIGNATURE);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, "CCCC-DDDD", &error) == LC_ERR_INVALID_SIGNATURE);
  CHECK_STR(error.detail, "the answer is about another license");

  made_answer altered = answer;
  altered.status = 403;
  CHECK(verify(&altered, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  altered = answer;
  altered.body = "{\"success\":true,\"message\":\"LICENSE_VERIFIED_USED_KEY\",\"data\":{\"key\":\"AAAA-BBBC\"}}";
  CHECK(verify(&altered, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  lc__content_digest((const unsigned char *)altered.body, strlen(altered.body), altered.digest);
  CHECK(verify(&altered, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  altered = answer;
  altered.signature[8] = altered.signature[8] == 'A' ? 'B' : 'A';
  CHECK(verify(&altered, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  altered = answer;
  altered.signature[strlen(altered.signature) - 5] = ':';
  altered.signature[strlen(altered.signature) - 4] = '\0';
  CHECK(verify(&altered, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);

  lc_signature_fields unsigned_fields = {NULL, NULL, NULL, 0};
  lc_answer verified;
  CHECK(lc__verify_answer(&pinned, 200, &unsigned_fields, (const unsigned char *)body, strlen(body), NONCE, REQUEST_DIGEST, NULL, &verified, &error) ==
        LC_ERR_INVALID_SIGNATURE);
  CHECK_STR(error.detail, "the answer is not signed");
  lc_signature_fields repeated = {answer.digest, answer.input, answer.signature, 1};
  CHECK(lc__verify_answer(&pinned, 200, &repeated, (const unsigned char *)body, strlen(body), NONCE, REQUEST_DIGEST, NULL, &verified, &error) ==
        LC_ERR_INVALID_SIGNATURE);
  lc__error_clear(&error);
}

static void a_signature_without_the_request_digest_or_with_more_parameters_is_refused(void) {
  CHECK(ensure_key());
  const char *body = "{\"success\":true,\"message\":\"LICENSE_VERIFIED_USED_KEY\",\"data\":{}}";
  char params[256];
  standard_params(params, sizeof params, NONCE);
  made_answer answer;
  lc_error error = {0};
  make_answer(&answer, 200, body, "(\"@status\" \"content-digest\")", params);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  char more[300];
  snprintf(more, sizeof more, "%s;expires=1999999999", params);
  make_answer(&answer, 200, body, COMPONENTS, more);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  snprintf(more, sizeof more, ";keyid=\"another-key-id\";alg=\"ed25519\";nonce=\"%s\"", NONCE);
  make_answer(&answer, 200, body, COMPONENTS, more);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  make_answer(&answer, 200, body, COMPONENTS, params);
  strcat(answer.signature, ", sig2=:AAAA:");
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  lc__error_clear(&error);
}

static void a_signed_refusal_is_its_code_with_its_data(void) {
  CHECK(ensure_key());
  char params[256];
  standard_params(params, sizeof params, NONCE);
  made_answer answer;
  make_answer(&answer, 403, "{\"success\":false,\"message\":\"SEATS_EXHAUSTED\",\"data\":{\"max_devices\":1}}", COMPONENTS, params);
  lc_error error = {0};
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_REFUSED);
  CHECK_STR(error.code, "SEATS_EXHAUSTED");
  CHECK_STR(error.data_json, "{\"max_devices\":1}");
  CHECK(error.http_status == 403);
  make_answer(&answer, 200, "{\"success\":false,\"message\":\"LICENSE_EXPIRED\"}", COMPONENTS, params);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_REFUSED);
  CHECK(error.data_json == NULL);
  make_answer(&answer, 200, "[1,2]", COMPONENTS, params);
  CHECK(verify(&answer, NONCE, REQUEST_DIGEST, NULL, &error) == LC_ERR_INVALID_SIGNATURE);
  lc__error_clear(&error);
}

/* ---- keys ---- */

static void a_pem_and_its_jwk_pin_the_same_rfc_7638_key_id(void) {
  lc_pinned from_pem, from_jwk;
  CHECK(lc__pin_key(&from_pem, PUBLIC_KEY_PEM));
  CHECK(lc__pin_key(&from_jwk, PUBLIC_JWK));
  CHECK_STR(from_pem.key_id, from_jwk.key_id);
  cJSON *jwk = cJSON_Parse(PUBLIC_JWK);
  CHECK_STR(cJSON_GetObjectItemCaseSensitive(jwk, "kid")->valuestring, from_pem.key_id);
  cJSON_ReplaceItemInObjectCaseSensitive(jwk, "kid", cJSON_CreateString("not-the-thumbprint"));
  char *wrong_kid = cJSON_PrintUnformatted(jwk);
  cJSON_Delete(jwk);
  lc_pinned refused;
  CHECK(!lc__pin_key(&refused, wrong_kid));
  free(wrong_kid);
  CHECK(!lc__pin_key(&refused, "not a key"));
  CHECK(!lc__pin_key(&refused, "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"c2hvcnQ\"}"));
  CHECK(!lc__pin_key(&refused, "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AAAA\",\"y\":\"AAAA\"}"));
  lc__pinned_free(&from_pem);
  lc__pinned_free(&from_jwk);
}

static void a_client_needs_a_uuid_an_ed25519_key_and_an_http_url_if_any(void) {
  lc_options options = {SERVICE_URL, APP_ID, PUBLIC_KEY_PEM, NULL, 0, NULL, NULL};
  lc_client *client = lc_client_new(&options);
  CHECK(client != NULL);
  lc_client_free(client);
  /* No URL: a client that never goes online (an air-gapped program). */
  options.url = NULL;
  client = lc_client_new(&options);
  CHECK(client != NULL);
  lc_client_free(client);
  options.app_id = "not-a-uuid";
  CHECK(lc_client_new(&options) == NULL);
  options.app_id = APP_ID;
  options.url = "ftp://example.com";
  CHECK(lc_client_new(&options) == NULL);
  options.url = SERVICE_URL;
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
  EVP_PKEY *ec = NULL;
  EVP_PKEY_keygen_init(context);
  EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1);
  EVP_PKEY_keygen(context, &ec);
  EVP_PKEY_CTX_free(context);
  BIO *bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, ec);
  char *pem = NULL;
  long length = BIO_get_mem_data(bio, &pem);
  char *text = malloc((size_t)length + 1);
  memcpy(text, pem, (size_t)length);
  text[length] = '\0';
  BIO_free(bio);
  EVP_PKEY_free(ec);
  options.public_key = text;
  client = lc_client_new(&options);
  free(text);
  CHECK(client == NULL);
  CHECK(lc_check(NULL, NULL, NULL) == LC_ERR_INVALID_ARGUMENT);
}

/* ---- tokens ---- */

static char *make_token(const char *header, const char *payload) {
  char *h = lc__base64url((const unsigned char *)header, strlen(header));
  char *p = lc__base64url((const unsigned char *)payload, strlen(payload));
  char *input = lc__format("%s.%s", h, p);
  char *signature = sign_base64(input, 1);
  char *token = lc__format("%s.%s", input, signature);
  free(h);
  free(p);
  free(input);
  free(signature);
  return token;
}

#define APP "00000000-0000-4000-8000-000000000001"
#define CLAIMS(extra)                                                                                                                   \
  "{\"iss\":\"" APP "\",\"sub\":\"KEY-1\",\"hwid\":\"pc-1\",\"hwids\":[\"pc-1\",\"pc-2\"],\"iat\":1000,\"nbf\":1000,\"exp\":2000,\"jti\":\"j\"," \
  "\"nonce\":\"n-1\"" extra "}"
#define HEADER "{\"alg\":\"EdDSA\",\"typ\":\"JWT\",\"kid\":\"k\"}"

static int token_status(const char *header, const char *payload, const char *license, const char *hwid, const char *nonce, int64_t now) {
  char *token = make_token(header, payload);
  lc_token_expect expect = {APP, license, hwid, nonce, now, 0};
  cJSON *claims = NULL;
  lc_error error = {0};
  int status = lc__verify_token(&pinned, token, &expect, &claims, &error);
  cJSON_Delete(claims);
  lc__error_clear(&error);
  free(token);
  return status;
}

static void a_token_is_checked_as_jose_checks_it_then_for_this_request_license_and_device(void) {
  CHECK(ensure_key());
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", "pc-2", "n-1", 1500) == LC_OK);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", "pc-1", NULL, -1) == LC_OK);
  CHECK(token_status("{\"alg\":\"EdDSA\",\"typ\":\"application/jwt\"}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_OK);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", NULL, NULL, 2000) == LC_ERR_OFFLINE_TOKEN_EXPIRED);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", NULL, NULL, 999) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-2", NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", "pc-3", NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, CLAIMS(""), "KEY-1", NULL, "n-2", 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status("{\"alg\":\"none\",\"typ\":\"JWT\"}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status("{\"alg\":\"EdDSA\"}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status("{\"alg\":\"EdDSA\",\"typ\":\"license+jwt\"}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status("{\"alg\":\"EdDSA\",\"typ\":\"JWT\",\"crit\":[\"exp\"]}", CLAIMS(""), NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, "{\"iss\":\"" APP "\",\"sub\":\"KEY-1\",\"iat\":1000,\"nbf\":1000}", NULL, NULL, NULL, 1500) == LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, "{\"iss\":\"another-app\",\"sub\":\"KEY-1\",\"iat\":1000,\"nbf\":1000,\"exp\":2000}", NULL, NULL, NULL, 1500) ==
        LC_ERR_INVALID_SIGNATURE);
  CHECK(token_status(HEADER, "{\"iss\":\"" APP "\",\"sub\":\"KEY-1\",\"iat\":1000,\"nbf\":\"1000\",\"exp\":2000}", NULL, NULL, NULL, 1500) ==
        LC_ERR_INVALID_SIGNATURE);
  /* A license without an HWID lock names no device: any device may use its token. */
  CHECK(token_status(HEADER, "{\"iss\":\"" APP "\",\"sub\":\"KEY-1\",\"hwid\":null,\"hwids\":[],\"iat\":1000,\"nbf\":1000,\"exp\":2000}", "KEY-1", "pc-9",
                     NULL, 1500) == LC_OK);
}

static void an_altered_or_foreign_token_is_invalid_signature(void) {
  CHECK(ensure_key());
  char *token = make_token(HEADER, CLAIMS(""));
  char *forged_payload = lc__base64url((const unsigned char *)CLAIMS(",\"level\":99"), strlen(CLAIMS(",\"level\":99")));
  char *dot = strchr(token, '.');
  char *second = strchr(dot + 1, '.');
  char *forged = lc__format("%.*s.%s%s", (int)(dot - token), token, forged_payload, second);
  lc_token_expect expect = {APP, NULL, NULL, NULL, 1500, 0};
  cJSON *claims = NULL;
  lc_error error = {0};
  int status = lc__verify_token(&pinned, forged, &expect, &claims, &error);
  lc_pinned other;
  int pinned_other = lc__pin_key(&other, PUBLIC_JWK);
  int foreign = pinned_other ? lc__verify_token(&other, token, &expect, &claims, &error) : -1;
  int malformed = lc__verify_token(&pinned, "a.b", &expect, &claims, &error);
  lc__pinned_free(&other);
  lc__error_clear(&error);
  free(token);
  free(forged_payload);
  free(forged);
  CHECK(status == LC_ERR_INVALID_SIGNATURE);
  CHECK(foreign == LC_ERR_INVALID_SIGNATURE);
  CHECK(malformed == LC_ERR_INVALID_SIGNATURE);
  CHECK(claims == NULL);
}

/* ---- helpers ---- */

static void digests_base64_and_instants_are_what_the_service_writes(void) {
  char digest[64];
  lc__content_digest((const unsigned char *)"", 0, digest);
  CHECK_STR(digest, "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
  size_t length = 0;
  unsigned char *bytes = lc__base64_decode("aGk", 3, &length);
  CHECK(bytes != NULL && length == 2 && memcmp(bytes, "hi", 2) == 0);
  free(bytes);
  bytes = lc__base64_decode("aGk=", 4, &length);
  CHECK(bytes != NULL && length == 2);
  free(bytes);
  CHECK(lc__base64_decode("aG=k", 4, &length) == NULL);
  CHECK(lc__base64_decode("a", 1, &length) == NULL);
  bytes = lc__base64url_decode("_-8", 3, &length);
  CHECK(bytes != NULL && length == 2 && bytes[0] == 0xff && bytes[1] == 0xef);
  free(bytes);
  CHECK(lc__base64url_decode("ab+c", 4, &length) == NULL);
  CHECK(lc__parse_instant("2026-03-01T12:30:45.250Z") == 1772368245250LL);
  CHECK(lc__parse_instant("1970-01-01T00:00:00Z") == 0);
  CHECK(lc__parse_instant("2026-03-01 12:30:45Z") == -1);
  CHECK(lc__parse_instant("2026-03-01T12:30:45.250+01:00") == -1);
  char instant[40];
  lc__format_instant(1772368245, instant, sizeof instant);
  CHECK_STR(instant, "2026-03-01T12:30:45.000Z");
}

void unit_tests_done(void) {
  EVP_PKEY_free(private_key);
  lc__pinned_free(&pinned);
  private_key = NULL;
}

const test_case unit_tests[] = {
    {"unit: an answer verifies only for its request, nonce, status and key", an_answer_verifies_only_for_its_request_nonce_status_and_key},
    {"unit: a signature without the request digest or with more parameters is refused",
     a_signature_without_the_request_digest_or_with_more_parameters_is_refused},
    {"unit: a signed refusal is its code with its data", a_signed_refusal_is_its_code_with_its_data},
    {"unit: a PEM and its JWK pin the same RFC 7638 key id", a_pem_and_its_jwk_pin_the_same_rfc_7638_key_id},
    {"unit: a client needs a UUID, an Ed25519 key and an http(s) URL if it has one", a_client_needs_a_uuid_an_ed25519_key_and_an_http_url_if_any},
    {"unit: a token is checked as jose checks it, then for this request, license and device",
     a_token_is_checked_as_jose_checks_it_then_for_this_request_license_and_device},
    {"unit: an altered or foreign token is INVALID_SIGNATURE", an_altered_or_foreign_token_is_invalid_signature},
    {"unit: digests, base64 and instants are what the service writes", digests_base64_and_instants_are_what_the_service_writes},
    {NULL, NULL}};
