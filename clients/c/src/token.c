/*
 * Offline tokens: a compact JWS (EdDSA) by the application's key, checked as
 * it arrives, kept in the state folder, and trusted while the service cannot be
 * reached only while it verifies and has not expired. The checks are those of
 * the TypeScript client (which uses jose), in the same order, so that a token
 * fails here with the same code as there.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(_WIN32)
#include <io.h>
#endif

#include "internal.h"

/* A token is issued at the service's time (nbf = iat, whole seconds): a computer whose clock is a little behind
 * must not refuse a kept token it has just been given. exp gets no such leeway. */
#define KEPT_TOKEN_NBF_LEEWAY 60

static int invalid(lc_error *error, const char *reason) {
  lc__fail(error, LC_ERR_INVALID_SIGNATURE, "INVALID_SIGNATURE", "%s", reason);
  return LC_ERR_INVALID_SIGNATURE;
}

cJSON *lc__decode_part(const char *text, size_t length) {
  size_t size = 0;
  unsigned char *bytes = lc__base64url_decode(text, length, &size);
  if (bytes == NULL) return NULL;
  cJSON *parsed = cJSON_ParseWithLength((const char *)bytes, size);
  free(bytes);
  if (!cJSON_IsObject(parsed)) {
    cJSON_Delete(parsed);
    return NULL;
  }
  return parsed;
}

/* The three parts of a compact JWS: offsets of the two dots; 0 unless there are exactly two. */
int lc__split_jws(const char *token, size_t *first, size_t *second) {
  const char *a = strchr(token, '.');
  const char *b = a == NULL ? NULL : strchr(a + 1, '.');
  if (b == NULL || strchr(b + 1, '.') != NULL) return 0;
  *first = (size_t)(a - token);
  *second = (size_t)(b - token);
  return 1;
}

cJSON *lc__peek_claims(const char *token) {
  size_t first, second;
  if (token == NULL || !lc__split_jws(token, &first, &second)) return NULL;
  return lc__decode_part(token + first + 1, second - first - 1);
}

int lc__names_license_and_device(const cJSON *claims, const char *license, const char *hwid) {
  const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
  if (license != NULL && !(cJSON_IsString(sub) && strcmp(sub->valuestring, license) == 0)) return 0;
  if (hwid == NULL) return 1;
  int devices = 0;
  const cJSON *bound = cJSON_GetObjectItemCaseSensitive(claims, "hwid");
  if (bound != NULL && !cJSON_IsNull(bound)) {
    devices++;
    if (cJSON_IsString(bound) && strcmp(bound->valuestring, hwid) == 0) return 1;
  }
  const cJSON *hwids = cJSON_GetObjectItemCaseSensitive(claims, "hwids");
  const cJSON *device;
  if (cJSON_IsArray(hwids)) cJSON_ArrayForEach(device, hwids) {
      if (cJSON_IsNull(device)) continue;
      devices++;
      if (cJSON_IsString(device) && strcmp(device->valuestring, hwid) == 0) return 1;
    }
  /* A token of a license without an HWID lock names no device, and any device may use that license. */
  return devices == 0;
}

/* jose's reading of `typ`: case-insensitive, "application/" implied when no media type is given. */
static int is_jwt_typ(const cJSON *typ) {
  if (!cJSON_IsString(typ)) return 0;
  char lower[32];
  size_t length = strlen(typ->valuestring);
  if (length >= sizeof lower) return 0;
  for (size_t i = 0; i <= length; i++) lower[i] = (char)tolower((unsigned char)typ->valuestring[i]);
  return strcmp(lower, "jwt") == 0 || strcmp(lower, "application/jwt") == 0;
}

int lc__jws_verifies(const lc_pinned *pinned, const char *token, size_t first, size_t second, cJSON **header) {
  *header = lc__decode_part(token, first);
  if (*header == NULL) return 0;
  /* No critical extension is understood here, so a header that names one is refused. */
  if (cJSON_GetObjectItemCaseSensitive(*header, "crit") != NULL) return 0;
  const cJSON *alg = cJSON_GetObjectItemCaseSensitive(*header, "alg");
  if (!cJSON_IsString(alg) || strcmp(alg->valuestring, "EdDSA") != 0) return 0;
  size_t signature_length = 0;
  const char *encoded = token + second + 1;
  unsigned char *signature = lc__base64url_decode(encoded, strlen(encoded), &signature_length);
  if (signature == NULL) return 0;
  int verified = lc__ed25519_verify(pinned, (const unsigned char *)token, second, signature, signature_length);
  free(signature);
  return verified;
}

int lc__verify_token(const lc_pinned *pinned, const char *token, const lc_token_expect *expect, cJSON **claims_out, lc_error *error) {
  *claims_out = NULL;
  size_t first, second;
  if (token == NULL || !lc__split_jws(token, &first, &second)) return invalid(error, "the offline token is no compact JWS");
  cJSON *header = NULL;
  int signed_ok = lc__jws_verifies(pinned, token, first, second, &header);
  cJSON *claims = signed_ok ? lc__decode_part(token + first + 1, second - first - 1) : NULL;
  int typ_ok = signed_ok && is_jwt_typ(cJSON_GetObjectItemCaseSensitive(header, "typ"));
  cJSON_Delete(header);
  if (claims == NULL || !typ_ok) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token does not verify");
  }
  static const char *const required[] = {"iss", "iat", "nbf", "exp", "sub"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (cJSON_GetObjectItemCaseSensitive(claims, required[i]) == NULL) {
      cJSON_Delete(claims);
      return invalid(error, "the offline token lacks a required claim");
    }
  const cJSON *iss = cJSON_GetObjectItemCaseSensitive(claims, "iss");
  const cJSON *iat = cJSON_GetObjectItemCaseSensitive(claims, "iat");
  const cJSON *nbf = cJSON_GetObjectItemCaseSensitive(claims, "nbf");
  const cJSON *exp = cJSON_GetObjectItemCaseSensitive(claims, "exp");
  if (!cJSON_IsString(iss) || strcmp(iss->valuestring, expect->app_id) != 0) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token is of another application");
  }
  if (!cJSON_IsNumber(iat) || !cJSON_IsNumber(nbf) || !cJSON_IsNumber(exp)) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token's times are no numbers");
  }
  /* Without a time given, a token that has just come with its request's nonce is judged at its own iat:
   * it is fresh, and the computer's clock being wrong must not refuse it. */
  double now = expect->now >= 0 ? (double)expect->now : iat->valuedouble;
  if (nbf->valuedouble > now + (double)expect->nbf_leeway) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token is not valid yet");
  }
  if (exp->valuedouble <= now) {
    char ended[40];
    lc__format_instant((int64_t)exp->valuedouble, ended, sizeof ended);
    cJSON_Delete(claims);
    lc__fail(error, LC_ERR_OFFLINE_TOKEN_EXPIRED, "OFFLINE_TOKEN_EXPIRED", "the offline token has expired");
    error->data_json = lc__format("{\"expired_at\":\"%s\"}", ended);
    return error->data_json == NULL ? lc__out_of_memory(error) : LC_ERR_OFFLINE_TOKEN_EXPIRED;
  }
  const cJSON *nonce = cJSON_GetObjectItemCaseSensitive(claims, "nonce");
  if (expect->nonce != NULL && !(cJSON_IsString(nonce) && strcmp(nonce->valuestring, expect->nonce) == 0)) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token is for another request");
  }
  if (!lc__names_license_and_device(claims, expect->license, expect->hwid)) {
    cJSON_Delete(claims);
    return invalid(error, "the offline token is for another license or device");
  }
  *claims_out = claims;
  return LC_OK;
}

/* ---- the token file ---------------------------------------------------------------------- */

/* Replaces the token file whole (lc__replace_file). */
static int store(lc_client *client, const char *token, const char *username) {
  cJSON *record = cJSON_CreateObject();
  if (record == NULL || cJSON_AddStringToObject(record, "token", token) == NULL ||
      (username != NULL && cJSON_AddStringToObject(record, "username", username) == NULL)) {
    cJSON_Delete(record);
    return 0;
  }
  char *text = cJSON_PrintUnformatted(record);
  cJSON_Delete(record);
  int ok = text != NULL && lc__replace_file(client->state_dir, client->token_path, text);
  free(text);
  return ok;
}

/* The stored record ({token, username?}); NULL when there is none or it holds something else. */
static cJSON *load(const lc_client *client) {
  FILE *file = fopen(client->token_path, "rb");
  if (file == NULL) return NULL;
  char buffer[65536];
  size_t length = fread(buffer, 1, sizeof buffer, file);
  int whole = feof(file);
  fclose(file);
  if (!whole) return NULL;
  cJSON *record = cJSON_ParseWithLength(buffer, length);
  const cJSON *username = cJSON_GetObjectItemCaseSensitive(record, "username");
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(record, "token")) || (username != NULL && !cJSON_IsString(username))) {
    cJSON_Delete(record);
    return NULL;
  }
  return record;
}

/* The trimmed name as a run of bytes [*start, *start + *length). */
static void trimmed(const char *name, const char **start, size_t *length) {
  while (isspace((unsigned char)*name)) name++;
  size_t end = strlen(name);
  while (end > 0 && isspace((unsigned char)name[end - 1])) end--;
  *start = name;
  *length = end;
}

/*
 * Usernames as the service compares them: trimmed and in any case. The service
 * also folds Unicode case and normalises to NFC; without a Unicode library here,
 * only ASCII letters are folded, so a name that differs from the stored one in a
 * non-ASCII letter's case gets no offline answer (NETWORK_ERROR), never a wrong one.
 */
int lc__same_username(const char *a, const char *b) {
  const char *x, *y;
  size_t x_length, y_length;
  trimmed(a, &x, &x_length);
  trimmed(b, &y, &y_length);
  if (x_length != y_length) return 0;
  for (size_t i = 0; i < x_length; i++)
    if (tolower((unsigned char)x[i]) != tolower((unsigned char)y[i])) return 0;
  return 1;
}

int lc__keep_token(lc_client *client, const cJSON *data, const char *nonce, const char *username, const char *hwid, lc_error *error) {
  const cJSON *token = cJSON_IsObject(data) ? cJSON_GetObjectItemCaseSensitive(data, "offline_token") : NULL;
  if (token == NULL) return LC_OK;
  if (!cJSON_IsString(token)) return invalid(error, "the offline token is no string");
  const cJSON *key = cJSON_GetObjectItemCaseSensitive(data, "key");
  lc_token_expect expect = {client->app_id, cJSON_IsString(key) ? key->valuestring : NULL, hwid, nonce, -1, 0};
  cJSON *claims = NULL;
  int verified = lc__verify_token(&client->pinned, token->valuestring, &expect, &claims, error);
  double issued = verified == LC_OK ? cJSON_GetObjectItemCaseSensitive(claims, "iat")->valuedouble : 0;
  cJSON_Delete(claims);
  if (verified != LC_OK) return verified;
  if (client->state_dir != NULL) {
    pthread_mutex_lock(&client->lock);
    /* The service said yes: a folder that cannot be written costs the offline fallback, not this check. */
    int stored = store(client, token->valuestring, username);
    pthread_mutex_unlock(&client->lock);
    if (stored) lc__saw_service_time(client, issued);
  }
  return LC_OK;
}

void lc__forget_token(lc_client *client, const lc_credentials *credentials) {
  if (client->state_dir == NULL) return;
  pthread_mutex_lock(&client->lock);
  cJSON *record = load(client);
  if (record != NULL) {
    const cJSON *username = cJSON_GetObjectItemCaseSensitive(record, "username");
    cJSON *claims = lc__peek_claims(cJSON_GetObjectItemCaseSensitive(record, "token")->valuestring);
    int for_this = claims == NULL ||
                   (credentials->license != NULL ? lc__names_license_and_device(claims, credentials->license, NULL)
                                                 : credentials->username != NULL && username != NULL && lc__same_username(username->valuestring, credentials->username));
    if (for_this) unlink(client->token_path);
    cJSON_Delete(claims);
    cJSON_Delete(record);
  }
  pthread_mutex_unlock(&client->lock);
}

int lc__offline(lc_client *client, const lc_credentials *credentials, lc_error *network_error, lc_result **result, lc_error *error) {
  pthread_mutex_lock(&client->lock);
  cJSON *record = load(client);
  pthread_mutex_unlock(&client->lock);
  const cJSON *username = cJSON_GetObjectItemCaseSensitive(record, "username");
  const char *token = record == NULL ? NULL : cJSON_GetObjectItemCaseSensitive(record, "token")->valuestring;
  cJSON *peeked = lc__peek_claims(token);
  int64_t now = lc__now_ms(client) / 1000;
  const cJSON *nbf = cJSON_GetObjectItemCaseSensitive(peeked, "nbf");
  /* A token of another license, user or device is no answer to this check: the failure stays the network's. */
  int asked_for = peeked != NULL && lc__names_license_and_device(peeked, credentials->license, credentials->hwid) &&
                  (credentials->license != NULL || credentials->username == NULL ||
                   (username != NULL && lc__same_username(username->valuestring, credentials->username)));
  /* A clock set back is refused before the token is judged by it; a token not valid yet by a clock that has not gone
   * back (past the leeway) is no answer either. */
  int judged = asked_for ? lc__judge_clock(client, (double)lc__now_ms(client) / 1000.0, error) : LC_OK;
  asked_for = asked_for && judged == LC_OK && !(cJSON_IsNumber(nbf) && nbf->valuedouble > (double)(now + KEPT_TOKEN_NBF_LEEWAY));
  cJSON_Delete(peeked);
  if (judged != LC_OK) {
    cJSON_Delete(record);
    return judged;
  }
  if (!asked_for) {
    cJSON_Delete(record);
    *error = *network_error;
    memset(network_error, 0, sizeof *network_error);
    return error->status;
  }
  lc_token_expect expect = {client->app_id, credentials->license, credentials->hwid, NULL, now, KEPT_TOKEN_NBF_LEEWAY};
  cJSON *claims = NULL;
  int verified = lc__verify_token(&client->pinned, token, &expect, &claims, error);
  cJSON_Delete(record);
  if (verified != LC_OK) return verified;
  const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
  char until[40];
  lc__format_instant((int64_t)cJSON_GetObjectItemCaseSensitive(claims, "exp")->valuedouble, until, sizeof until);
  int ok = cJSON_IsString(sub) && cJSON_AddStringToObject(claims, "key", sub->valuestring) != NULL && cJSON_AddStringToObject(claims, "offline_until", until) != NULL;
  *result = ok ? lc__result_new("OFFLINE_TOKEN_VALID", claims, 1) : NULL;
  cJSON_Delete(claims);
  if (*result == NULL) return ok ? lc__out_of_memory(error) : invalid(error, "the offline token's sub is no string");
  return LC_OK;
}
