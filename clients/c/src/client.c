/* The client handle, the calls of licensing.h, their results, and each thread's last failure. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/rand.h>

#include "internal.h"

/* ---- each thread's last failure ----------------------------------------------------------- */

/*
 * One entry per thread that has called the client, found by its thread id and
 * freed with the client. No thread-exit hook is used: one could run while the
 * client is being freed. A thread id is reused by the threads that come after
 * one that ended, so the table grows with the threads alive at once.
 */
struct lc_thread_error {
  pthread_t thread;
  lc_error error;
  struct lc_thread_error *next;
};

static struct lc_thread_error *entry_of(lc_client *client, int create) {
  pthread_t self = pthread_self();
  for (struct lc_thread_error *entry = client->errors; entry != NULL; entry = entry->next)
    if (pthread_equal(entry->thread, self)) return entry;
  if (!create) return NULL;
  struct lc_thread_error *entry = calloc(1, sizeof *entry);
  if (entry == NULL) return NULL;
  entry->thread = self;
  entry->next = client->errors;
  client->errors = entry;
  return entry;
}

int lc__finish(lc_client *client, lc_error *error) {
  int status = error->status;
  pthread_mutex_lock(&client->lock);
  struct lc_thread_error *entry = entry_of(client, status != LC_OK);
  if (entry != NULL) {
    lc__error_clear(&entry->error);
    entry->error = *error;
    memset(error, 0, sizeof *error);
  }
  pthread_mutex_unlock(&client->lock);
  lc__error_clear(error);
  return status;
}

static const char *last(lc_client *client, int which) {
  if (client == NULL) return NULL;
  pthread_mutex_lock(&client->lock);
  struct lc_thread_error *entry = entry_of(client, 0);
  const char *value = NULL;
  if (entry != NULL && entry->error.status != LC_OK)
    value = which == 0 ? entry->error.code : which == 1 ? entry->error.data_json : entry->error.detail;
  pthread_mutex_unlock(&client->lock);
  return value;
}

const char *lc_last_error_code(lc_client *client) { return last(client, 0); }
const char *lc_last_error_data_json(lc_client *client) { return last(client, 1); }
const char *lc_last_error_detail(lc_client *client) { return last(client, 2); }

/* ---- the handle ---------------------------------------------------------------------------- */

static int is_uuid(const char *text) {
  if (text == NULL || strlen(text) != 36) return 0;
  for (int i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return 0;
    } else if (!isxdigit((unsigned char)text[i])) {
      return 0;
    }
  }
  return 1;
}

static int is_service_url(const char *url) { return url != NULL && (strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0) && strlen(url) > 8; }

lc_client *lc_client_new(const lc_options *options) {
  if (options == NULL || (options->url != NULL && !is_service_url(options->url)) || !is_uuid(options->app_id) || options->public_key == NULL) return NULL;
  if (options->state_dir != NULL && options->state_dir[0] == '\0') return NULL;
  lc_client *client = calloc(1, sizeof *client);
  if (client == NULL) return NULL;
  if (pthread_mutex_init(&client->lock, NULL) != 0) {
    free(client);
    return NULL;
  }
  /* Thread-safe and counted in the libcurl this is built for (7.84 and later); lc_client_free undoes it. */
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    pthread_mutex_destroy(&client->lock);
    free(client);
    return NULL;
  }
  client->url = lc__strdup(options->url);
  client->app_id = lc__strdup(options->app_id);
  client->timeout_ms = options->timeout_ms > 0 ? options->timeout_ms : 10000;
  client->clock = options->clock;
  client->clock_data = options->clock_data;
  if (options->state_dir != NULL) {
    client->state_dir = lc__strdup(options->state_dir);
    client->token_path = lc__format("%s/offline-token.json", options->state_dir);
  }
  int ok = (options->url == NULL || client->url != NULL) && client->app_id != NULL && (options->state_dir == NULL || (client->state_dir != NULL && client->token_path != NULL)) &&
           lc__pin_key(&client->pinned, options->public_key);
  if (!ok) {
    lc_client_free(client);
    return NULL;
  }
  size_t end = client->url == NULL ? 0 : strlen(client->url);
  while (end > 0 && client->url[end - 1] == '/') client->url[--end] = '\0';
  return client;
}

void lc_client_free(lc_client *client) {
  if (client == NULL) return;
  for (struct lc_thread_error *entry = client->errors, *next; entry != NULL; entry = next) {
    next = entry->next;
    lc__error_clear(&entry->error);
    free(entry);
  }
  lc__pinned_free(&client->pinned);
  pthread_mutex_destroy(&client->lock);
  free(client->url);
  free(client->app_id);
  free(client->state_dir);
  free(client->token_path);
  free(client->machine_id);
  free(client);
  curl_global_cleanup();
}

/* ---- results ------------------------------------------------------------------------------- */

struct lc_result {
  char *message;
  char *data_json;
  cJSON *data;
  bool offline;
};

lc_result *lc__result_new(const char *message, const cJSON *data, int offline) {
  lc_result *result = calloc(1, sizeof *result);
  if (result == NULL) return NULL;
  result->message = lc__strdup(message);
  result->data = data == NULL ? cJSON_CreateNull() : cJSON_Duplicate(data, 1);
  result->data_json = result->data == NULL ? NULL : cJSON_PrintUnformatted(result->data);
  result->offline = offline != 0;
  if (result->message == NULL || result->data_json == NULL) {
    lc_result_free(result);
    return NULL;
  }
  return result;
}

const cJSON *lc__result_data(const lc_result *result) { return result->data; }

const char *lc_result_message(const lc_result *result) { return result == NULL ? NULL : result->message; }
const char *lc_result_data_json(const lc_result *result) { return result == NULL ? NULL : result->data_json; }
bool lc_result_offline(const lc_result *result) { return result != NULL && result->offline; }

const char *lc_result_string(const lc_result *result, const char *name) {
  if (result == NULL || name == NULL || !cJSON_IsObject(result->data)) return NULL;
  const cJSON *member = cJSON_GetObjectItemCaseSensitive(result->data, name);
  return cJSON_IsString(member) ? member->valuestring : NULL;
}

bool lc_result_integer(const lc_result *result, const char *name, long long *value) {
  if (result == NULL || name == NULL || value == NULL || !cJSON_IsObject(result->data)) return false;
  const cJSON *member = cJSON_GetObjectItemCaseSensitive(result->data, name);
  /* JSON numbers are doubles: integers are exact up to 2^53. */
  if (!cJSON_IsNumber(member) || !(member->valuedouble <= 9007199254740992.0 && member->valuedouble >= -9007199254740992.0) ||
      member->valuedouble != (double)(long long)member->valuedouble)
    return false;
  *value = (long long)member->valuedouble;
  return true;
}

bool lc_result_has_feature(const lc_result *result, const char *feature) {
  if (result == NULL || feature == NULL || !cJSON_IsObject(result->data)) return false;
  const cJSON *features = cJSON_GetObjectItemCaseSensitive(result->data, "features");
  const cJSON *each;
  if (cJSON_IsArray(features)) cJSON_ArrayForEach(each, features) {
      if (cJSON_IsString(each) && strcmp(each->valuestring, feature) == 0) return true;
    }
  return false;
}

void lc_result_free(lc_result *result) {
  if (result == NULL) return;
  free(result->message);
  free(result->data_json);
  cJSON_Delete(result->data);
  free(result);
}

/* ---- the calls ----------------------------------------------------------------------------- */

static int bad_argument(lc_error *error, const char *what) {
  lc__fail(error, LC_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "%s", what);
  return LC_ERR_INVALID_ARGUMENT;
}

cJSON *lc__credentials_request(const lc_credentials *credentials) {
  cJSON *request = cJSON_CreateObject();
  int ok = request != NULL;
  if (ok && credentials->license != NULL) {
    ok = cJSON_AddStringToObject(request, "license", credentials->license) != NULL;
  } else if (ok) {
    if (credentials->username != NULL) ok = cJSON_AddStringToObject(request, "username", credentials->username) != NULL;
    if (ok && credentials->password != NULL) ok = cJSON_AddStringToObject(request, "password", credentials->password) != NULL;
  }
  if (ok && credentials->hwid != NULL) ok = cJSON_AddStringToObject(request, "hwid", credentials->hwid) != NULL;
  if (!ok) {
    cJSON_Delete(request);
    return NULL;
  }
  return request;
}

/* The request: app_id first, then the fields (consumed). */
static cJSON *request_of(const lc_client *client, cJSON *fields) {
  cJSON *request = cJSON_CreateObject();
  if (request == NULL || fields == NULL || cJSON_AddStringToObject(request, "app_id", client->app_id) == NULL) {
    cJSON_Delete(request);
    cJSON_Delete(fields);
    return NULL;
  }
  while (fields->child != NULL) {
    cJSON *field = cJSON_DetachItemViaPointer(fields, fields->child);
    cJSON_AddItemToObject(request, field->string, field);
  }
  cJSON_Delete(fields);
  return request;
}

/* Moves every member of `extra` (consumed) into `fields`; NULL extra adds nothing. */
static int merge(cJSON *fields, cJSON *extra) {
  if (extra == NULL) return 1;
  if (fields == NULL) {
    cJSON_Delete(extra);
    return 0;
  }
  while (extra->child != NULL) {
    cJSON *field = cJSON_DetachItemViaPointer(extra, extra->child);
    cJSON_AddItemToObject(fields, field->string, field);
  }
  cJSON_Delete(extra);
  return 1;
}

int lc__call(lc_client *client, const char *path, cJSON *fields, const char *license, char *nonce, lc_answer *answer, lc_error *error) {
  memset(answer, 0, sizeof *answer);
  cJSON *request = request_of(client, fields);
  if (request == NULL) return lc__out_of_memory(error);
  int status = lc__post(client, path, request, license, nonce, answer, error);
  cJSON_Delete(request);
  return status;
}

static int call(lc_client *client, const char *path, cJSON *fields, const char *license, lc_result **result, lc_error *error) {
  char nonce[32];
  lc_answer answer;
  int status = lc__call(client, path, fields, license, nonce, &answer, error);
  if (status != LC_OK) return status;
  *result = lc__result_new(answer.message, answer.data, 0);
  lc__answer_free(&answer);
  return *result == NULL ? lc__out_of_memory(error) : LC_OK;
}

int lc__authenticate(lc_client *client, const lc_credentials *credentials, cJSON *extra, lc_result **result, lc_error *error) {
  cJSON *fields = lc__credentials_request(credentials);
  if (!merge(fields, extra)) return lc__out_of_memory(error);
  cJSON *request = request_of(client, fields);
  if (request == NULL) return lc__out_of_memory(error);
  char nonce[32];
  lc_answer answer;
  int status = lc__post(client, "/auth", request, credentials->license, nonce, &answer, error);
  cJSON_Delete(request);
  if (status != LC_OK) return status;
  status = lc__keep_token(client, answer.data, nonce, credentials->license == NULL ? credentials->username : NULL, credentials->hwid, error);
  if (status == LC_OK) {
    *result = lc__result_new(answer.message, answer.data, 0);
    if (*result == NULL) status = lc__out_of_memory(error);
  }
  lc__answer_free(&answer);
  return status;
}

/* Checks the arguments every call takes; LC_OK or INVALID_ARGUMENT (then *result is NULL). */
static int start(const lc_credentials *credentials, lc_result **result, int needs_hwid, lc_error *error) {
  if (result != NULL) *result = NULL;
  if (result == NULL || credentials == NULL) return bad_argument(error, "credentials and result are required");
  if (needs_hwid && credentials->hwid == NULL) return bad_argument(error, "this call needs the device's hwid");
  return LC_OK;
}

int lc_check(lc_client *client, const lc_credentials *credentials, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(credentials, result, 0, &error) != LC_OK) return lc__finish(client, &error);
  cJSON *extra = client->state_dir == NULL ? NULL : cJSON_CreateObject();
  if (extra != NULL && cJSON_AddTrueToObject(extra, "offline_token") == NULL) {
    cJSON_Delete(extra);
    lc__out_of_memory(&error);
    return lc__finish(client, &error);
  }
  int status = lc__authenticate(client, credentials, extra, result, &error);
  if (status == LC_ERR_NETWORK && client->state_dir != NULL) {
    lc_error network = error, from_file = {0};
    memset(&error, 0, sizeof error);
    /* The license file first (it carries the license data), then the token; when something stored is for this check but
     * cannot be used (expired, altered, the clock set back), the first such reason is the failure. */
    int file_status = lc__from_license_file(client, credentials, result, &from_file);
    if (file_status == LC_OK) {
      error = from_file;
    } else if (lc__offline(client, credentials, &network, result, &error) != LC_OK && file_status > LC_OK) {
      lc__error_clear(&error);
      error = from_file;
    } else {
      lc__error_clear(&from_file);
    }
    lc__error_clear(&network);
  } else if (status == LC_ERR_REFUSED && error.http_status == 403) {
    /* The service refused this license (paused, expired, another device): its old token and file must not outlive that. */
    lc__forget_token(client, credentials);
    lc__forget_license_file(client, credentials);
  }
  return lc__finish(client, &error);
}

int lc_borrow(lc_client *client, const lc_credentials *credentials, int64_t seconds, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(credentials, result, 1, &error) != LC_OK) return lc__finish(client, &error);
  cJSON *extra = cJSON_CreateObject();
  if (extra == NULL || cJSON_AddNumberToObject(extra, "borrow_seconds", (double)seconds) == NULL) {
    cJSON_Delete(extra);
    lc__out_of_memory(&error);
  } else {
    lc__authenticate(client, credentials, extra, result, &error);
  }
  return lc__finish(client, &error);
}

static int simple_call(lc_client *client, const char *path, const lc_credentials *credentials, int needs_hwid, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(credentials, result, needs_hwid, &error) == LC_OK) {
    cJSON *fields = lc__credentials_request(credentials);
    if (fields == NULL) lc__out_of_memory(&error);
    else call(client, path, fields, credentials->license, result, &error);
  }
  return lc__finish(client, &error);
}

int lc_release(lc_client *client, const lc_credentials *credentials, lc_result **result) { return simple_call(client, "/release", credentials, 1, result); }

int lc_reset_hwid(lc_client *client, const lc_credentials *credentials, lc_result **result) {
  return simple_call(client, "/reset-hwid", credentials, 0, result);
}

int lc_register(lc_client *client, const char *license, const char *username, const char *password, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  lc_credentials none = {0};
  if (start(&none, result, 0, &error) != LC_OK) return lc__finish(client, &error);
  if (license == NULL || username == NULL || password == NULL) {
    bad_argument(&error, "license, username and password are required");
    return lc__finish(client, &error);
  }
  cJSON *fields = cJSON_CreateObject();
  if (fields == NULL || cJSON_AddStringToObject(fields, "license", license) == NULL || cJSON_AddStringToObject(fields, "username", username) == NULL ||
      cJSON_AddStringToObject(fields, "password", password) == NULL) {
    cJSON_Delete(fields);
    lc__out_of_memory(&error);
  } else {
    call(client, "/register", fields, license, result, &error);
  }
  return lc__finish(client, &error);
}

int lc_record_usage(lc_client *client, const lc_credentials *credentials, const char *counter, int64_t amount, const char *usage_id,
                    lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (start(credentials, result, 0, &error) != LC_OK) return lc__finish(client, &error);
  if (counter == NULL) {
    bad_argument(&error, "counter is required");
    return lc__finish(client, &error);
  }
  char generated[32];
  if (usage_id == NULL && !lc__nonce(generated)) {
    lc__out_of_memory(&error);
    return lc__finish(client, &error);
  }
  cJSON *fields = lc__credentials_request(credentials);
  if (fields == NULL || cJSON_AddStringToObject(fields, "counter", counter) == NULL ||
      cJSON_AddNumberToObject(fields, "amount", (double)(amount == 0 ? 1 : amount)) == NULL ||
      cJSON_AddStringToObject(fields, "usage_id", usage_id != NULL ? usage_id : generated) == NULL) {
    cJSON_Delete(fields);
    lc__out_of_memory(&error);
  } else {
    call(client, "/usage", fields, credentials->license, result, &error);
  }
  return lc__finish(client, &error);
}

int lc_verify_answer(lc_client *client, const lc_exchange *exchange, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (result != NULL) *result = NULL;
  if (result == NULL || exchange == NULL || exchange->nonce == NULL || exchange->request_digest == NULL || exchange->body_length < 0 ||
      (exchange->body == NULL && exchange->body_length > 0)) {
    bad_argument(&error, "an exchange with its nonce, request digest and body, and a result, are required");
    return lc__finish(client, &error);
  }
  lc_signature_fields fields = {exchange->content_digest, exchange->signature_input, exchange->signature, 0};
  lc_answer answer;
  const unsigned char *body = exchange->body == NULL ? (const unsigned char *)"" : (const unsigned char *)exchange->body;
  if (lc__verify_answer(&client->pinned, exchange->status, &fields, body, (size_t)exchange->body_length, exchange->nonce, exchange->request_digest,
                        exchange->license, &answer, &error) == LC_OK) {
    *result = lc__result_new(answer.message, answer.data, 0);
    if (*result == NULL) lc__out_of_memory(&error);
  }
  lc__answer_free(&answer);
  return lc__finish(client, &error);
}

int lc_verify_token(lc_client *client, const char *token, const lc_credentials *expected, const char *nonce, int64_t now_seconds, lc_result **result) {
  if (client == NULL) return LC_ERR_INVALID_ARGUMENT;
  lc_error error = {0};
  if (result != NULL) *result = NULL;
  if (result == NULL || token == NULL) {
    bad_argument(&error, "a token and a result are required");
    return lc__finish(client, &error);
  }
  lc_token_expect expect = {client->app_id, expected == NULL ? NULL : expected->license, expected == NULL ? NULL : expected->hwid, nonce,
                            now_seconds >= 0 ? now_seconds : lc__now_ms(client) / 1000, 0};
  cJSON *claims = NULL;
  if (lc__verify_token(&client->pinned, token, &expect, &claims, &error) == LC_OK) {
    *result = lc__result_new("OFFLINE_TOKEN_VALID", claims, 1);
    if (*result == NULL) lc__out_of_memory(&error);
  }
  cJSON_Delete(claims);
  return lc__finish(client, &error);
}

const char *lc_machine_id(lc_client *client) {
  if (client == NULL) return NULL;
  pthread_mutex_lock(&client->lock);
  if (client->machine_id == NULL) {
    char *source = lc__machine_source();
    char *user = lc__user_name();
    if (source != NULL && user != NULL) {
      /* The parts joined by NUL bytes, as the other client libraries of this service hash them. */
      static const char prefix[] = "licensing-machine-id-v1";
      size_t lengths[4] = {sizeof prefix - 1, strlen(client->app_id), strlen(source), strlen(user)};
      const char *parts[4] = {prefix, client->app_id, source, user};
      EVP_MD_CTX *context = EVP_MD_CTX_new();
      unsigned char hash[32];
      unsigned int size = 0;
      int ok = context != NULL && EVP_DigestInit_ex(context, EVP_sha256(), NULL) == 1;
      for (int i = 0; i < 4 && ok; i++) ok = (i == 0 || EVP_DigestUpdate(context, "", 1) == 1) && EVP_DigestUpdate(context, parts[i], lengths[i]) == 1;
      ok = ok && EVP_DigestFinal_ex(context, hash, &size) == 1;
      EVP_MD_CTX_free(context);
      char *hex = ok ? malloc(65) : NULL;
      if (hex != NULL) {
        for (int i = 0; i < 32; i++) {
          hex[2 * i] = "0123456789abcdef"[hash[i] >> 4];
          hex[2 * i + 1] = "0123456789abcdef"[hash[i] & 15];
        }
        hex[64] = '\0';
      }
      client->machine_id = hex;
    }
    free(source);
    free(user);
  }
  const char *id = client->machine_id;
  pthread_mutex_unlock(&client->lock);
  return id;
}
