/*
 * The pinned key, and the verification of signed answers: an HTTP Message
 * Signature (RFC 9421) over the answer's status, its Content-Digest (RFC 9530)
 * and this request's Content-Digest, with this request's nonce, by the pinned
 * Ed25519 key. docs/verifying-answers.md in the repository describes what the
 * service signs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>

#include "internal.h"

static const char *skip_space(const char *text) {
  while (isspace((unsigned char)*text)) text++;
  return text;
}

/* RFC 7638 thumbprint of an Ed25519 key: the required members in lexicographic order, no white space. */
static int thumbprint(EVP_PKEY *key, char *out, size_t size, char **x_out) {
  unsigned char raw[32];
  size_t length = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key, raw, &length) != 1 || length != 32) return 0;
  char *x = lc__base64url(raw, length);
  char *canonical = x == NULL ? NULL : lc__format("{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"%s\"}", x);
  unsigned char hash[32];
  unsigned int hash_length = 0;
  char *id = canonical != NULL && EVP_Digest(canonical, strlen(canonical), hash, &hash_length, EVP_sha256(), NULL) == 1 ? lc__base64url(hash, 32) : NULL;
  free(canonical);
  if (id == NULL || strlen(id) >= size) {
    free(id);
    free(x);
    return 0;
  }
  snprintf(out, size, "%s", id);
  free(id);
  if (x_out != NULL) *x_out = x;
  else free(x);
  return 1;
}

static EVP_PKEY *key_of_jwk(const char *text, const char **kid) {
  cJSON *jwk = cJSON_Parse(text);
  EVP_PKEY *key = NULL;
  const cJSON *kty = cJSON_GetObjectItemCaseSensitive(jwk, "kty");
  const cJSON *crv = cJSON_GetObjectItemCaseSensitive(jwk, "crv");
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(jwk, "x");
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(jwk, "kid");
  if (cJSON_IsString(kty) && strcmp(kty->valuestring, "OKP") == 0 && cJSON_IsString(crv) && strcmp(crv->valuestring, "Ed25519") == 0 &&
      cJSON_IsString(x) && (id == NULL || cJSON_IsString(id))) {
    size_t length = 0;
    unsigned char *raw = lc__base64url_decode(x->valuestring, strlen(x->valuestring), &length);
    if (raw != NULL && length == 32) key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, length);
    free(raw);
    if (key != NULL && id != NULL) *kid = lc__strdup(id->valuestring);
  }
  cJSON_Delete(jwk);
  return key;
}

int lc__pin_key(lc_pinned *pinned, const char *public_key) {
  memset(pinned, 0, sizeof *pinned);
  const char *kid = NULL;
  if (*skip_space(public_key) == '{') {
    pinned->key = key_of_jwk(public_key, &kid);
  } else {
    BIO *bio = BIO_new_mem_buf(public_key, -1);
    pinned->key = bio == NULL ? NULL : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
  }
  int ok = pinned->key != NULL && EVP_PKEY_get_base_id(pinned->key) == EVP_PKEY_ED25519 &&
           thumbprint(pinned->key, pinned->key_id, sizeof pinned->key_id, NULL) && (kid == NULL || strcmp(kid, pinned->key_id) == 0);
  free((char *)kid);
  if (!ok) lc__pinned_free(pinned);
  return ok;
}

void lc__pinned_free(lc_pinned *pinned) {
  EVP_PKEY_free(pinned->key);
  pinned->key = NULL;
}

int lc__ed25519_verify(const lc_pinned *pinned, const unsigned char *message, size_t length, const unsigned char *signature, size_t signature_length) {
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  int ok = context != NULL && EVP_DigestVerifyInit(context, NULL, NULL, NULL, pinned->key) == 1 &&
           EVP_DigestVerify(context, signature, signature_length, message, length) == 1;
  EVP_MD_CTX_free(context);
  return ok;
}

void lc__answer_free(lc_answer *answer) {
  cJSON_Delete(answer->body);
  memset(answer, 0, sizeof *answer);
}

static int invalid(lc_error *error, long status, const char *reason) {
  lc__fail(error, LC_ERR_INVALID_SIGNATURE, "INVALID_SIGNATURE", "%s", reason);
  error->http_status = status;
  return LC_ERR_INVALID_SIGNATURE;
}

#define COMPONENTS "(\"@status\" \"content-digest\" \"content-digest\";req)"

/*
 * The signature fields are not parsed as structured fields: the service writes
 * them as RFC 8941 serialises, which gives one text for one value, so each is
 * required to be exactly the text this request must get back, with only
 * `created` and the signature's bytes unknown. Anything else, an extra member or
 * parameter included, is refused: that refuses more than a parser would accept,
 * and it is the rule every client library of this service applies.
 */
static int check_signature(const lc_pinned *pinned, long status, const lc_signature_fields *fields, const unsigned char *body, size_t length,
                           const char *nonce, const char *request_digest, lc_error *error) {
  if (fields->content_digest == NULL || fields->signature_input == NULL || fields->signature == NULL) return invalid(error, status, "the answer is not signed");
  if (fields->repeated) return invalid(error, status, "a signature field came more than once");
  char digest[64];
  lc__content_digest(body, length, digest);
  if (strcmp(fields->content_digest, digest) != 0) return invalid(error, status, "the body does not match Content-Digest");

  const char *head = "sig1=" COMPONENTS ";created=";
  char *tail = lc__format(";keyid=\"%s\";alg=\"ed25519\";nonce=\"%s\"", pinned->key_id, nonce);
  if (tail == NULL) return lc__out_of_memory(error);
  const char *input = fields->signature_input;
  size_t input_length = strlen(input), head_length = strlen(head), tail_length = strlen(tail);
  size_t created_length = 0;
  int shaped = input_length > head_length + tail_length && strncmp(input, head, head_length) == 0 &&
               strcmp(input + input_length - tail_length, tail) == 0;
  if (shaped) {
    created_length = input_length - head_length - tail_length;
    for (size_t i = 0; i < created_length; i++)
      if (input[head_length + i] < '0' || input[head_length + i] > '9') shaped = 0;
  }
  if (!shaped || created_length < 1 || created_length > 12) {
    free(tail);
    return invalid(error, status, "Signature-Input is not for this request, nonce and key");
  }

  const char *signature = fields->signature;
  size_t signature_length = strlen(signature);
  if (signature_length <= 7 || strncmp(signature, "sig1=:", 6) != 0 || signature[signature_length - 1] != ':') {
    free(tail);
    return invalid(error, status, "Signature holds no sig1");
  }
  size_t raw_length = 0;
  unsigned char *raw = lc__base64_decode(signature + 6, signature_length - 7, &raw_length);
  if (raw == NULL) {
    free(tail);
    return invalid(error, status, "Signature holds no sig1");
  }

  /* RFC 9421 section 2.5: one line per component, then the parameters, no newline at the end. */
  char *base = lc__format("\"@status\": %ld\n\"content-digest\": %s\n\"content-digest\";req: %s\n\"@signature-params\": " COMPONENTS ";created=%.*s%s",
                          status, fields->content_digest, request_digest, (int)created_length, input + head_length, tail);
  free(tail);
  if (base == NULL) {
    free(raw);
    return lc__out_of_memory(error);
  }
  int verified = lc__ed25519_verify(pinned, (const unsigned char *)base, strlen(base), raw, raw_length);
  free(base);
  free(raw);
  return verified ? LC_OK : invalid(error, status, "the signature does not verify");
}

int lc__verify_answer(const lc_pinned *pinned, long status, const lc_signature_fields *fields, const unsigned char *body, size_t length,
                      const char *nonce, const char *request_digest, const char *license, lc_answer *answer, lc_error *error) {
  memset(answer, 0, sizeof *answer);
  int checked = check_signature(pinned, status, fields, body, length, nonce, request_digest, error);
  if (checked != LC_OK) return checked;

  cJSON *parsed = cJSON_ParseWithLength((const char *)body, length);
  const cJSON *message = cJSON_GetObjectItemCaseSensitive(parsed, "message");
  if (!cJSON_IsObject(parsed) || !cJSON_IsString(message)) {
    cJSON_Delete(parsed);
    return invalid(error, status, "the signed answer has no message");
  }
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(parsed, "data");
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(parsed, "success")) || status != 200) {
    lc__fail(error, LC_ERR_REFUSED, message->valuestring, "refused with HTTP %ld", status);
    error->http_status = status;
    if (data != NULL && (error->data_json = cJSON_PrintUnformatted(data)) == NULL) {
      cJSON_Delete(parsed);
      return lc__out_of_memory(error);
    }
    cJSON_Delete(parsed);
    return LC_ERR_REFUSED;
  }
  /* The request digest already ties the answer to this body; this keeps a license's data from ever passing for another's. */
  const cJSON *key = cJSON_IsObject(data) ? cJSON_GetObjectItemCaseSensitive(data, "key") : NULL;
  if (license != NULL && key != NULL && !(cJSON_IsString(key) && strcmp(key->valuestring, license) == 0)) {
    cJSON_Delete(parsed);
    return invalid(error, status, "the answer is about another license");
  }
  answer->body = parsed;
  answer->message = message->valuestring;
  answer->data = data;
  return LC_OK;
}
