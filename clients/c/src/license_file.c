/*
 * License files (a compact JWS `typ: license+jwt` by the application's key,
 * or a compact JWE `dir`/`A256GCM` holding one, keyed by HKDF-SHA256 of the
 * license key and the HWID), air-gapped activation requests, return codes and
 * trials. The checks and their codes are those of the TypeScript library, in
 * the same order, so a file fails here with the same code as there.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <openssl/kdf.h>

#include "internal.h"

/* The service's iat may be a little ahead of a computer's clock that is right: nbf (= iat) gets this leeway, exp none. */
#define FILE_NBF_LEEWAY 60
/* Nothing stored answers this check: the failure stays the network's. */
#define NOTHING_STORED (-1)

static int mismatch(lc_error *error, const char *reason) {
  lc__fail(error, LC_ERR_LICENSE_FILE_MISMATCH, "LICENSE_FILE_MISMATCH", "%s", reason);
  return LC_ERR_LICENSE_FILE_MISMATCH;
}

static int invalid(lc_error *error, const char *reason) {
  lc__fail(error, LC_ERR_INVALID_SIGNATURE, "INVALID_SIGNATURE", "%s", reason);
  return LC_ERR_INVALID_SIGNATURE;
}

static int bad_argument(lc_error *error, const char *what) {
  lc__fail(error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "%s", what);
  return LC_ERR_INVALID_ARGUMENT;
}

static int is_string(const cJSON *item, const char *value) { return cJSON_IsString(item) && strcmp(item->valuestring, value) == 0; }

static const cJSON *member(const cJSON *object, const char *name) { return cJSON_GetObjectItemCaseSensitive(object, name); }

/* ---- opening a file ------------------------------------------------------------------------ */

/* The key of an encrypted file: HKDF-SHA256(ikm = license key, salt = HWID, info = "license-file"), 32 bytes. */
static int file_key(const char *license, const char *hwid, unsigned char key[32]) {
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
  size_t length = 32;
  int ok = context != NULL && EVP_PKEY_derive_init(context) == 1 && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1 &&
           EVP_PKEY_CTX_set1_hkdf_salt(context, (const unsigned char *)hwid, (int)strlen(hwid)) == 1 &&
           EVP_PKEY_CTX_set1_hkdf_key(context, (const unsigned char *)license, (int)strlen(license)) == 1 &&
           EVP_PKEY_CTX_add1_hkdf_info(context, (const unsigned char *)"license-file", 12) == 1 && EVP_PKEY_derive(context, key, &length) == 1 &&
           length == 32;
  EVP_PKEY_CTX_free(context);
  return ok;
}

/* The parts of a compact JWE at the offsets of its four dots. */
static int split_jwe(const char *text, size_t dots[4]) {
  size_t found = 0;
  for (size_t i = 0; text[i] != '\0'; i++)
    if (text[i] == '.') {
      if (found == 4) return 0;
      dots[found++] = i;
    }
  return found == 4;
}

/* The JWS inside a JWE made for this license and device (a new string), or NULL when it does not decrypt or holds no license file. */
static char *decrypt(const char *text, const char *license, const char *hwid) {
  size_t dots[4];
  if (!split_jwe(text, dots)) return NULL;
  cJSON *header = lc__decode_part(text, dots[0]);
  /* Only what the service makes is read: a key wrapped in the file, compression or a critical extension is none of it. */
  int expected = header != NULL && is_string(member(header, "alg"), "dir") && is_string(member(header, "enc"), "A256GCM") &&
                 is_string(member(header, "cty"), "license+jwt") && member(header, "zip") == NULL && member(header, "crit") == NULL &&
                 dots[1] == dots[0] + 1;
  cJSON_Delete(header);
  if (!expected) return NULL;
  size_t iv_length = 0, cipher_length = 0, tag_length = 0;
  unsigned char *iv = lc__base64url_decode(text + dots[1] + 1, dots[2] - dots[1] - 1, &iv_length);
  unsigned char *cipher = lc__base64url_decode(text + dots[2] + 1, dots[3] - dots[2] - 1, &cipher_length);
  unsigned char *tag = lc__base64url_decode(text + dots[3] + 1, strlen(text + dots[3] + 1), &tag_length);
  unsigned char key[32];
  unsigned char *plain = cipher == NULL ? NULL : malloc(cipher_length + 1);
  EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
  int length = 0, final_length = 0;
  int ok = iv != NULL && iv_length == 12 && tag != NULL && tag_length == 16 && plain != NULL && cipher_length > 0 && cipher_length < (1 << 20) &&
           context != NULL && file_key(license, hwid, key) && EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
           EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 && EVP_DecryptInit_ex(context, NULL, NULL, key, iv) == 1 &&
           /* The additional data is the protected header as it is written in the file. */
           EVP_DecryptUpdate(context, NULL, &length, (const unsigned char *)text, (int)dots[0]) == 1 &&
           EVP_DecryptUpdate(context, plain, &length, cipher, (int)cipher_length) == 1 &&
           EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1 && EVP_DecryptFinal_ex(context, plain + length, &final_length) == 1;
  EVP_CIPHER_CTX_free(context);
  OPENSSL_cleanse(key, sizeof key);
  free(iv);
  free(cipher);
  free(tag);
  if (ok) {
    size_t total = (size_t)length + (size_t)final_length;
    plain[total] = '\0';
    ok = memchr(plain, '\0', total) == NULL;
  }
  if (!ok) {
    free(plain);
    return NULL;
  }
  return (char *)plain;
}

int lc__open_license_file(const lc_client *client, const char *text, const char *license, const char *hwid, cJSON **claims, lc_error *error) {
  *claims = NULL;
  char *compact = lc__trim(text);
  if (compact == NULL) return lc__out_of_memory(error);
  size_t dots = 0;
  for (const char *c = compact; *c; c++) dots += *c == '.';
  char *jws = NULL;
  if (dots == 4) {
    jws = decrypt(compact, license, hwid);
    free(compact);
    if (jws == NULL) return mismatch(error, "the encrypted license file does not decrypt with this license key and device");
  } else if (dots == 2) {
    jws = compact;
  } else {
    free(compact);
    return mismatch(error, "the text is no license file");
  }
  size_t first, second;
  cJSON *header = lc__split_jws(jws, &first, &second) ? lc__decode_part(jws, first) : NULL;
  int status = LC_OK;
  if (header == NULL) {
    status = mismatch(error, "the text is no license file");
  } else if (!is_string(member(header, "kid"), client->pinned.key_id)) {
    status = invalid(error, "the license file is signed with another key");
  } else {
    cJSON_Delete(header);
    header = NULL;
    if (!lc__jws_verifies(&client->pinned, jws, first, second, &header)) {
      status = invalid(error, "the license file does not verify");
    } else if (!is_string(member(header, "typ"), "license+jwt")) {
      /* Checked once the signature holds, so an offline token or another signed document passed as a file is a mismatch, not a forgery. */
      status = mismatch(error, "the signed text is not a license file");
    } else {
      *claims = lc__decode_part(jws + first + 1, second - first - 1);
      if (*claims == NULL) status = mismatch(error, "the license file holds no claims");
    }
  }
  cJSON_Delete(header);
  free(jws);
  return status;
}

int lc__check_file_claims(const lc_client *client, const cJSON *claims, const lc_file_expect *expect, lc_error *error) {
  if (!is_string(member(claims, "iss"), client->app_id)) return mismatch(error, "the license file is for another application");
  if (!is_string(member(claims, "sub"), expect->license)) return mismatch(error, "the license file is for another license");
  if (!lc__names_license_and_device(claims, NULL, expect->hwid)) return mismatch(error, "the license file is for another device");
  const cJSON *data = member(claims, "data");
  if (!cJSON_IsObject(data) || !is_string(member(data, "key"), expect->license)) return mismatch(error, "the license file holds no license data of its license");
  const cJSON *iat = member(claims, "iat"), *nbf = member(claims, "nbf"), *exp = member(claims, "exp");
  if (!cJSON_IsString(member(claims, "jti")) || !cJSON_IsNumber(iat) || !cJSON_IsNumber(nbf) || !cJSON_IsNumber(exp))
    return mismatch(error, "the license file lacks its jti, iat, nbf or exp");
  if (expect->nonce != NULL && !is_string(member(claims, "nonce"), expect->nonce)) return mismatch(error, "the license file was made for another request");
  if (expect->now >= 0) {
    if (expect->now + FILE_NBF_LEEWAY < nbf->valuedouble) return mismatch(error, "the license file is not valid yet");
    if (expect->now >= exp->valuedouble) {
      char ended[40];
      lc__format_instant((int64_t)exp->valuedouble, ended, sizeof ended);
      lc__fail(error, LC_ERR_LICENSE_FILE_EXPIRED, "LICENSE_FILE_EXPIRED", "the license file has expired");
      error->data_json = lc__format("{\"expired_at\":\"%s\"}", ended);
      return error->data_json == NULL ? lc__out_of_memory(error) : LC_ERR_LICENSE_FILE_EXPIRED;
    }
  }
  return LC_OK;
}

/* ---- the stored file ----------------------------------------------------------------------- */

/*
 * The stored license file when it is about these credentials and this device, its signature verified (NOTHING_STORED when
 * there is none, or it is another license's or device's). An encrypted file is read only with the license key and the
 * device, which its key is made of; a signed one names its license, which a check by username reads unverified first.
 */
static int stored_file(lc_client *client, const lc_credentials *credentials, char **text, cJSON **claims, lc_error *error) {
  *claims = NULL;
  *text = credentials->hwid == NULL ? NULL : lc__stored_license_file(client);
  if (*text == NULL) return NOTHING_STORED;
  cJSON *peeked = credentials->license == NULL ? lc__peek_claims(*text) : NULL;
  const cJSON *sub = member(peeked, "sub");
  const char *license = credentials->license != NULL ? credentials->license : cJSON_IsString(sub) ? sub->valuestring : NULL;
  int status = license == NULL ? NOTHING_STORED : lc__open_license_file(client, *text, license, credentials->hwid, claims, error);
  cJSON_Delete(peeked);
  if (status == LC_ERR_LICENSE_FILE_MISMATCH) {
    lc__error_clear(error);
    status = NOTHING_STORED;
  }
  if (status == LC_OK) {
    const cJSON *username = member(member(*claims, "data"), "username");
    int asked = credentials->license != NULL ? is_string(member(*claims, "sub"), credentials->license)
                                             : credentials->username != NULL && cJSON_IsString(username) && lc__same_username(username->valuestring, credentials->username);
    if (!asked || !lc__names_license_and_device(*claims, NULL, credentials->hwid)) status = NOTHING_STORED;
  }
  if (status != LC_OK) {
    cJSON_Delete(*claims);
    *claims = NULL;
    free(*text);
    *text = NULL;
  }
  return status;
}

int lc__from_license_file(lc_client *client, const lc_credentials *credentials, lc_result **result, lc_error *error) {
  char *text = NULL;
  cJSON *claims = NULL;
  int status = stored_file(client, credentials, &text, &claims, error);
  free(text);
  if (status != LC_OK) return status;
  double now = (double)lc__now_ms(client) / 1000.0;
  status = lc__judge_clock(client, now, error);
  if (status == LC_OK) {
    lc_file_expect expect = {member(claims, "sub")->valuestring, credentials->hwid, NULL, now};
    status = lc__check_file_claims(client, claims, &expect, error);
  }
  if (status == LC_OK) {
    *result = lc__result_new("LICENSE_FILE_VALID", claims, 1);
    if (*result == NULL) status = lc__out_of_memory(error);
  }
  cJSON_Delete(claims);
  return status;
}

void lc__forget_license_file(lc_client *client, const lc_credentials *credentials) {
  char *text = NULL;
  cJSON *claims = NULL;
  lc_error ignored = {0};
  if (stored_file(client, credentials, &text, &claims, &ignored) == LC_OK) lc__drop_license_file(client, text);
  lc__error_clear(&ignored);
  cJSON_Delete(claims);
  free(text);
}

/* ---- the calls ----------------------------------------------------------------------------- */

static int valid_lifetime(int64_t seconds) { return seconds == 0 || (seconds >= 3600 && seconds <= 315360000); }

/* `<prefix>` and the base64url (no padding) of the fields' JSON (consumed). */
static char *encode_code(const char *prefix, cJSON *fields) {
  char *json = fields == NULL ? NULL : cJSON_PrintUnformatted(fields);
  cJSON_Delete(fields);
  char *encoded = json == NULL ? NULL : lc__base64url((const unsigned char *)json, strlen(json));
  char *code = encoded == NULL ? NULL : lc__format("%s%s", prefix, encoded);
  free(json);
  free(encoded);
  return code;
}

static int set_result(lc_result **result, const char *message, const cJSON *data, int offline, lc_error *error) {
  *result = lc__result_new(message, data, offline);
  return *result == NULL ? lc__out_of_memory(error) : LC_OK;
}

/* Checks what every call below is given; LC_OK or INVALID_ARGUMENT (with *result NULL). */
static int start(lc_client *client, lc_result **result, int needs_state, lc_error *error) {
  if (result != NULL) *result = NULL;
  if (result == NULL) return bad_argument(error, "a result is required");
  if (needs_state && client->state_dir == NULL) return bad_argument(error, "this call needs the state_dir option: that is where the license file and activation requests are kept");
  return LC_OK;
}

int lc_license_file(lc_client *client, const lc_credentials *credentials, const lc_file_options *options, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 0, &error) != LC_OK) return lc__finish(client, &error);
  if (credentials == NULL || credentials->hwid == NULL) {
    bad_argument(&error, "a license file is made for a device: credentials->hwid is required");
    return lc__finish(client, &error);
  }
  cJSON *fields = lc__credentials_request(credentials);
  int ok = fields != NULL;
  if (ok && options != NULL && options->lifetime_seconds != 0) ok = cJSON_AddNumberToObject(fields, "lifetime_seconds", (double)options->lifetime_seconds) != NULL;
  if (ok && options != NULL && options->encrypt) ok = cJSON_AddTrueToObject(fields, "encrypt") != NULL;
  char nonce[32];
  lc_answer answer = {0};
  if (!ok) {
    cJSON_Delete(fields);
    lc__out_of_memory(&error);
    return lc__finish(client, &error);
  }
  if (lc__call(client, "/license-file", fields, credentials->license, nonce, &answer, &error) != LC_OK) return lc__finish(client, &error);
  const cJSON *file = member(answer.data, "license_file"), *key = member(answer.data, "key");
  cJSON *claims = NULL;
  if (!cJSON_IsString(file) || !cJSON_IsString(key)) {
    invalid(&error, "success without the license file asked for");
  } else {
    lc_file_expect expect = {key->valuestring, credentials->hwid, nonce, -1};
    int status = lc__open_license_file(client, file->valuestring, key->valuestring, credentials->hwid, &claims, &error);
    if (status == LC_OK) status = lc__check_file_claims(client, claims, &expect, &error);
    if (status != LC_OK && status != LC_ERR_INVALID_SIGNATURE && status != LC_ERR_INTERNAL) {
      /* Like a token in an answer: a file that is not this request's makes the answer no answer. */
      char reason[sizeof error.detail + 32];
      snprintf(reason, sizeof reason, "the license file in the answer: %s", error.detail);
      lc__error_clear(&error);
      invalid(&error, reason);
    } else if (status == LC_OK) {
      if (client->state_dir != NULL && lc__store_license_file(client, file->valuestring))
        lc__saw_service_time(client, member(claims, "iat")->valuedouble);
      set_result(result, answer.message, answer.data, 0, &error);
    }
  }
  cJSON_Delete(claims);
  lc__answer_free(&answer);
  return lc__finish(client, &error);
}

int lc_activation_request(lc_client *client, const char *license, const char *hwid, const lc_file_options *options, const char *portal_url,
                          lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 1, &error) != LC_OK) return lc__finish(client, &error);
  if (license == NULL || license[0] == '\0' || hwid == NULL || hwid[0] == '\0' || strlen(hwid) > 256) {
    bad_argument(&error, "license must be the license key and hwid 1 to 256 characters");
    return lc__finish(client, &error);
  }
  if (options != NULL && !valid_lifetime(options->lifetime_seconds)) {
    bad_argument(&error, "lifetime_seconds must be 0 (the application's longest) or 3600 to 315360000");
    return lc__finish(client, &error);
  }
  char nonce[32];
  if (!lc__nonce(nonce)) {
    lc__out_of_memory(&error);
    return lc__finish(client, &error);
  }
  cJSON *fields = cJSON_CreateObject();
  int ok = fields != NULL && cJSON_AddStringToObject(fields, "app_id", client->app_id) != NULL && cJSON_AddStringToObject(fields, "license", license) != NULL &&
           cJSON_AddStringToObject(fields, "hwid", hwid) != NULL && cJSON_AddStringToObject(fields, "nonce", nonce) != NULL;
  if (ok && options != NULL && options->lifetime_seconds != 0) ok = cJSON_AddNumberToObject(fields, "lifetime_seconds", (double)options->lifetime_seconds) != NULL;
  if (ok && options != NULL && options->encrypt) ok = cJSON_AddTrueToObject(fields, "encrypt") != NULL;
  char *request = ok ? encode_code("lfr1.", fields) : NULL;
  if (!ok) cJSON_Delete(fields);
  cJSON *data = request == NULL ? NULL : cJSON_CreateObject();
  ok = data != NULL && cJSON_AddStringToObject(data, "request", request) != NULL;
  if (ok && portal_url != NULL) {
    size_t end = strlen(portal_url);
    while (end > 0 && portal_url[end - 1] == '/') end--;
    char *link = lc__format("%.*s/activate/#%s", (int)end, portal_url, request);
    ok = link != NULL && cJSON_AddStringToObject(data, "link", link) != NULL;
    free(link);
  }
  if (!ok) lc__out_of_memory(&error);
  else if (!lc__keep_request(client, license, hwid, nonce)) lc__fail(&error, LC_ERR_INTERNAL, "INTERNAL_ERROR", "the activation request could not be kept in the state folder");
  else set_result(result, "ACTIVATION_REQUEST", data, 0, &error);
  cJSON_Delete(data);
  free(request);
  return lc__finish(client, &error);
}

int lc_load_license_file(lc_client *client, const char *text, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 1, &error) != LC_OK) return lc__finish(client, &error);
  if (text == NULL) {
    bad_argument(&error, "the license file's text is required");
    return lc__finish(client, &error);
  }
  cJSON *pending = lc__pending_requests(client);
  double now = (double)lc__now_ms(client) / 1000.0;
  if (pending == NULL) {
    lc__out_of_memory(&error);
  } else if (cJSON_GetArraySize(pending) == 0) {
    mismatch(&error, "no activation request of this program is waiting for a license file");
  } else if (lc__judge_clock(client, now, &error) == LC_OK) {
    lc_error failure = {0};
    /* The newest request first; another request's mismatch says less about this file than the right request's refusal. */
    for (int i = cJSON_GetArraySize(pending) - 1; i >= 0; i--) {
      const cJSON *request = cJSON_GetArrayItem(pending, i);
      const char *license = member(request, "license")->valuestring, *hwid = member(request, "hwid")->valuestring;
      lc_error attempt = {0};
      cJSON *claims = NULL;
      int status = lc__open_license_file(client, text, license, hwid, &claims, &attempt);
      if (status == LC_OK) {
        lc_file_expect expect = {license, hwid, cJSON_IsTrue(member(claims, "air_gapped")) ? member(request, "nonce")->valuestring : NULL, now};
        status = lc__check_file_claims(client, claims, &expect, &attempt);
      }
      if (status == LC_OK) {
        char *compact = lc__trim(text);
        if (compact == NULL || !lc__store_license_file(client, compact)) lc__fail(&attempt, LC_ERR_INTERNAL, "INTERNAL_ERROR", "the license file could not be stored");
        else if (!lc__forget_requests(client, license, hwid)) lc__fail(&attempt, LC_ERR_INTERNAL, "INTERNAL_ERROR", "the answered request could not be forgotten");
        else set_result(result, "LICENSE_FILE_VALID", claims, 1, &attempt);
        free(compact);
        cJSON_Delete(claims);
        lc__error_clear(&failure);
        failure = attempt;
        break;
      }
      cJSON_Delete(claims);
      if (failure.status == LC_OK || failure.status == LC_ERR_LICENSE_FILE_MISMATCH) {
        lc__error_clear(&failure);
        failure = attempt;
      } else {
        lc__error_clear(&attempt);
      }
    }
    error = failure;
  }
  cJSON_Delete(pending);
  return lc__finish(client, &error);
}

/* The stored file of this license and device, verified, and its return code. */
static int returnable(lc_client *client, const char *license, const char *hwid, char **text, char **code, lc_error *error) {
  *code = NULL;
  if (license == NULL || hwid == NULL) return bad_argument(error, "license and hwid are required");
  *text = lc__stored_license_file(client);
  if (*text == NULL) return mismatch(error, "no license file is stored");
  cJSON *claims = NULL;
  lc_file_expect expect = {license, hwid, NULL, -1};
  int status = lc__open_license_file(client, *text, license, hwid, &claims, error);
  if (status == LC_OK) status = lc__check_file_claims(client, claims, &expect, error);
  if (status == LC_OK) {
    cJSON *fields = cJSON_CreateObject();
    if (fields != NULL && cJSON_AddStringToObject(fields, "app_id", client->app_id) != NULL && cJSON_AddStringToObject(fields, "license", license) != NULL &&
        cJSON_AddStringToObject(fields, "hwid", hwid) != NULL && cJSON_AddStringToObject(fields, "jti", member(claims, "jti")->valuestring) != NULL)
      *code = encode_code("lfx1.", fields);
    else cJSON_Delete(fields);
    if (*code == NULL) status = lc__out_of_memory(error);
  }
  cJSON_Delete(claims);
  if (status != LC_OK) {
    free(*text);
    *text = NULL;
  }
  return status;
}

int lc_return_code(lc_client *client, const char *license, const char *hwid, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 1, &error) != LC_OK) return lc__finish(client, &error);
  char *text = NULL, *code = NULL;
  if (returnable(client, license, hwid, &text, &code, &error) == LC_OK) {
    cJSON *data = cJSON_CreateObject();
    if (data == NULL || cJSON_AddStringToObject(data, "return_code", code) == NULL) lc__out_of_memory(&error);
    else if (set_result(result, "RETURN_CODE", data, 0, &error) == LC_OK) lc__drop_license_file(client, text);
    cJSON_Delete(data);
  }
  free(text);
  free(code);
  return lc__finish(client, &error);
}

int lc_return_license_file(lc_client *client, const char *license, const char *hwid, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 1, &error) != LC_OK) return lc__finish(client, &error);
  char *text = NULL, *code = NULL;
  if (returnable(client, license, hwid, &text, &code, &error) == LC_OK) {
    cJSON *fields = cJSON_CreateObject();
    char nonce[32];
    lc_answer answer = {0};
    if (fields == NULL || cJSON_AddStringToObject(fields, "request", code) == NULL) {
      cJSON_Delete(fields);
      lc__out_of_memory(&error);
    } else if (lc__call(client, "/license-file/return", fields, license, nonce, &answer, &error) == LC_OK) {
      if (!cJSON_IsObject(answer.data) || !is_string(member(answer.data, "key"), license)) invalid(&error, "the answer is about another license");
      else if (set_result(result, answer.message, answer.data, 0, &error) == LC_OK) lc__drop_license_file(client, text);
    }
    lc__answer_free(&answer);
  }
  free(text);
  free(code);
  return lc__finish(client, &error);
}

int lc_start_trial(lc_client *client, const char *hwid, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(client, result, 0, &error) != LC_OK) return lc__finish(client, &error);
  if (hwid == NULL) {
    bad_argument(&error, "a trial is for a device: hwid is required");
    return lc__finish(client, &error);
  }
  cJSON *fields = cJSON_CreateObject();
  char nonce[32];
  lc_answer answer = {0};
  if (fields == NULL || cJSON_AddStringToObject(fields, "hwid", hwid) == NULL) {
    cJSON_Delete(fields);
    lc__out_of_memory(&error);
  } else if (lc__call(client, "/trial", fields, NULL, nonce, &answer, &error) == LC_OK) {
    const cJSON *license = member(answer.data, "license"), *key = member(answer.data, "key");
    if (!cJSON_IsString(license) || license->valuestring[0] == '\0' || (key != NULL && !is_string(key, license->valuestring)))
      invalid(&error, "the trial answer names no license of its own");
    else set_result(result, answer.message, answer.data, 0, &error);
  }
  lc__answer_free(&answer);
  return lc__finish(client, &error);
}
