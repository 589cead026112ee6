/*
 * One client-route call over libcurl: a fresh nonce in the body, the body's
 * Content-Digest on the request, the answer verified (answer.c); a 429, a 5xx
 * or a failed connection retried with backoff until the client's timeout, the
 * same bytes sent again each time (every client route is safe to repeat).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "internal.h"

/* An answer bigger than this is no answer of the service's. */
#define MAX_ANSWER_BYTES (1024 * 1024)

typedef struct received {
  unsigned char *body;
  size_t length;
  int too_big;
  char *fields[3]; /* content-digest, signature-input, signature */
  int repeated;
  long retry_after_ms;
} received;

static const char *const signature_fields[3] = {"content-digest", "signature-input", "signature"};

static void received_reset_headers(received *answer) {
  for (int i = 0; i < 3; i++) {
    free(answer->fields[i]);
    answer->fields[i] = NULL;
  }
  answer->repeated = 0;
  answer->retry_after_ms = -1;
}

static void received_free(received *answer) {
  received_reset_headers(answer);
  free(answer->body);
  memset(answer, 0, sizeof *answer);
}

static size_t on_body(char *bytes, size_t size, size_t count, void *context) {
  received *answer = context;
  size_t length = size * count;
  if (answer->length + length > MAX_ANSWER_BYTES) {
    answer->too_big = 1;
    return 0;
  }
  unsigned char *grown = realloc(answer->body, answer->length + length + 1);
  if (grown == NULL) return 0;
  memcpy(grown + answer->length, bytes, length);
  answer->body = grown;
  answer->length += length;
  return length;
}

static size_t on_header(char *line, size_t size, size_t count, void *context) {
  received *answer = context;
  size_t length = size * count;
  /* A new status line starts a new answer (after a 100 Continue): only the last one's fields count. */
  if (length >= 5 && strncmp(line, "HTTP/", 5) == 0) {
    received_reset_headers(answer);
    return length;
  }
  const char *colon = memchr(line, ':', length);
  if (colon == NULL) return length;
  size_t name_length = (size_t)(colon - line);
  const char *value = colon + 1;
  size_t value_length = length - name_length - 1;
  while (value_length > 0 && (*value == ' ' || *value == '\t')) value++, value_length--;
  while (value_length > 0 && isspace((unsigned char)value[value_length - 1])) value_length--;
  for (int i = 0; i < 3; i++) {
    if (strlen(signature_fields[i]) != name_length || strncasecmp(line, signature_fields[i], name_length) != 0) continue;
    if (answer->fields[i] != NULL) {
      answer->repeated = 1;
      return length;
    }
    answer->fields[i] = malloc(value_length + 1);
    if (answer->fields[i] == NULL) return 0;
    memcpy(answer->fields[i], value, value_length);
    answer->fields[i][value_length] = '\0';
  }
  if (name_length == 11 && strncasecmp(line, "retry-after", 11) == 0) {
    long seconds = 0;
    size_t i = 0;
    for (; i < value_length && i < 7 && isdigit((unsigned char)value[i]); i++) seconds = seconds * 10 + (value[i] - '0');
    answer->retry_after_ms = i > 0 && i == value_length ? seconds * 1000 : -1;
  }
  return length;
}

/* One attempt: the status, or 0 when no answer came (the connection failed or timed out). */
static long attempt(const char *url, const char *body, const char *request_digest, long remaining_ms, received *answer,
                    char *failure, size_t failure_size) {
  CURL *curl = curl_easy_init();
  if (curl == NULL) {
    snprintf(failure, failure_size, "libcurl could not start a transfer");
    return 0;
  }
  char *digest_header = lc__format("Content-Digest: %s", request_digest);
  struct curl_slist *headers = NULL, *added = NULL;
  /* "Expect:" keeps libcurl from waiting for a 100 Continue before sending a larger body. */
  const char *lines[] = {"Content-Type: application/json", "Accept-Encoding: identity", "Expect:", digest_header};
  for (size_t i = 0; i < sizeof lines / sizeof *lines && lines[i] != NULL; i++) {
    added = curl_slist_append(headers, lines[i]);
    if (added == NULL) break;
    headers = added;
  }
  char error_buffer[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, remaining_ms);
  /* Signals are the program's; a thread must not get one for a name lookup's timeout. */
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  /* A redirect is no answer of the service: it is the unsigned 3xx it is. */
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, answer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, answer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  CURLcode outcome = digest_header != NULL && added != NULL ? curl_easy_perform(curl) : CURLE_OUT_OF_MEMORY;
  long status = 0;
  if (outcome == CURLE_OK || (outcome == CURLE_WRITE_ERROR && answer->too_big)) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  else snprintf(failure, failure_size, "%s", error_buffer[0] ? error_buffer : curl_easy_strerror(outcome));
  curl_slist_free_all(headers);
  free(digest_header);
  curl_easy_cleanup(curl);
  return status;
}

/* The first waits before a retry; later ones repeat the last, all within the call's timeout. */
static const long backoff_ms[] = {250, 1000, 4000};

int lc__post(lc_client *client, const char *path, cJSON *request, const char *license, char *nonce_out, lc_answer *result, lc_error *error) {
  memset(result, 0, sizeof *result);
  if (client->url == NULL) {
    lc__fail(error, LC_ERR_NETWORK, "NETWORK_ERROR", "no service URL is set: this client works offline only");
    return LC_ERR_NETWORK;
  }
  if (!lc__nonce(nonce_out) || cJSON_AddStringToObject(request, "nonce", nonce_out) == NULL) return lc__out_of_memory(error);
  char *body = cJSON_PrintUnformatted(request);
  char *url = lc__format("%s%s", client->url, path);
  if (body == NULL || url == NULL) {
    free(body);
    free(url);
    return lc__out_of_memory(error);
  }
  char request_digest[64];
  lc__content_digest((const unsigned char *)body, strlen(body), request_digest);
  int64_t deadline = lc__monotonic_ms() + client->timeout_ms;
  char failure[CURL_ERROR_SIZE + 32] = "no attempt was made";
  int outcome = -1;
  for (size_t tries = 0; outcome < 0; tries++) {
    int64_t remaining = deadline - lc__monotonic_ms();
    if (remaining <= 0) break;
    received answer = {0};
    answer.retry_after_ms = -1;
    long status = attempt(url, body, request_digest, (long)remaining, &answer, failure, sizeof failure);
    if (status != 0 && status != 429 && status < 500) {
      lc_signature_fields fields = {answer.fields[0], answer.fields[1], answer.fields[2], answer.repeated};
      if (answer.too_big) {
        lc__fail(error, LC_ERR_INVALID_SIGNATURE, "INVALID_SIGNATURE", "the answer is larger than any the service gives");
        outcome = LC_ERR_INVALID_SIGNATURE;
      } else {
        outcome = lc__verify_answer(&client->pinned, status, &fields, answer.body == NULL ? (const unsigned char *)"" : answer.body, answer.length,
                                    nonce_out, request_digest, license, result, error);
      }
      received_free(&answer);
      break;
    }
    if (status != 0) {
      /* The service's own 5xx is signed: one that carries a signature which does not verify was altered on the way. */
      if (answer.fields[0] != NULL || answer.fields[1] != NULL || answer.fields[2] != NULL) {
        lc_signature_fields fields = {answer.fields[0], answer.fields[1], answer.fields[2], answer.repeated};
        lc_answer unused;
        int checked = lc__verify_answer(&client->pinned, status, &fields, answer.body == NULL ? (const unsigned char *)"" : answer.body,
                                        answer.length, nonce_out, request_digest, NULL, &unused, error);
        lc__answer_free(&unused);
        if (checked == LC_ERR_INVALID_SIGNATURE || checked == LC_ERR_INTERNAL) {
          received_free(&answer);
          outcome = checked;
          break;
        }
        lc__error_clear(error);
      }
      snprintf(failure, sizeof failure, "HTTP %ld", status);
    }
    long wait = answer.retry_after_ms;
    received_free(&answer);
    if (wait < 0) {
      long planned = backoff_ms[tries < 2 ? tries : 2];
      /* Jitter keeps many programs that lost the service together from coming back in step. */
      wait = (long)((double)planned * (0.8 + lc__random_unit() * 0.4));
    }
    if (lc__monotonic_ms() + wait >= deadline) break;
    lc__sleep_ms(wait);
  }
  free(body);
  free(url);
  if (outcome >= 0) return outcome;
  lc__fail(error, LC_ERR_NETWORK, "NETWORK_ERROR", "no usable answer from the licensing service within %ld ms (%s)", client->timeout_ms, failure);
  return LC_ERR_NETWORK;
}
