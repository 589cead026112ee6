/* Small helpers: failures, base64, strings, clocks, randomness, instants. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "internal.h"

void lc__fail(lc_error *error, int status, const char *code, const char *detail_format, ...) {
  lc__error_clear(error);
  error->status = status;
  error->code = lc__strdup(code);
  va_list arguments;
  va_start(arguments, detail_format);
  vsnprintf(error->detail, sizeof error->detail, detail_format, arguments);
  va_end(arguments);
}

void lc__error_clear(lc_error *error) {
  free(error->code);
  free(error->data_json);
  memset(error, 0, sizeof *error);
}

int lc__out_of_memory(lc_error *error) {
  lc__fail(error, LC_ERR_INTERNAL, "INTERNAL_ERROR", "out of memory");
  return LC_ERR_INTERNAL;
}

char *lc__strdup(const char *text) {
  if (text == NULL) return NULL;
  size_t length = strlen(text) + 1;
  char *copy = malloc(length);
  if (copy != NULL) memcpy(copy, text, length);
  return copy;
}

char *lc__trim(const char *text) {
  while (*text == ' ' || *text == '\t' || *text == '\r' || *text == '\n') text++;
  size_t length = strlen(text);
  while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t' || text[length - 1] == '\r' || text[length - 1] == '\n')) length--;
  char *copy = malloc(length + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

char *lc__format(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(NULL, 0, format, arguments);
  va_end(arguments);
  if (length < 0) return NULL;
  char *text = malloc((size_t)length + 1);
  if (text == NULL) return NULL;
  va_start(arguments, format);
  vsnprintf(text, (size_t)length + 1, format, arguments);
  va_end(arguments);
  return text;
}

char *lc__base64(const unsigned char *bytes, size_t length) {
  if (length > (size_t)INT32_MAX / 2) return NULL;
  char *text = malloc(4 * ((length + 2) / 3) + 1);
  if (text == NULL) return NULL;
  EVP_EncodeBlock((unsigned char *)text, bytes, (int)length);
  return text;
}

char *lc__base64url(const unsigned char *bytes, size_t length) {
  char *text = lc__base64(bytes, length);
  if (text == NULL) return NULL;
  size_t end = strlen(text);
  while (end > 0 && text[end - 1] == '=') text[--end] = '\0';
  for (char *c = text; *c; c++) {
    if (*c == '+') *c = '-';
    else if (*c == '/') *c = '_';
  }
  return text;
}

/* Decodes standard base64 whose padding may be missing: OpenSSL's block decoder wants
 * whole quanta, so the padding is restored first and its bytes dropped after. */
static unsigned char *decode_quanta(char *padded, size_t text_length, size_t *length) {
  size_t missing = (4 - text_length % 4) % 4;
  if (missing == 3) return NULL;
  for (size_t i = 0; i < missing; i++) padded[text_length + i] = '=';
  size_t total = text_length + missing;
  padded[total] = '\0';
  size_t pad = 0;
  while (pad < total && pad < 2 && padded[total - 1 - pad] == '=') pad++;
  unsigned char *bytes = malloc(total / 4 * 3 + 1);
  if (bytes == NULL) return NULL;
  int decoded = total == 0 ? 0 : EVP_DecodeBlock(bytes, (const unsigned char *)padded, (int)total);
  if (decoded < 0 || (size_t)decoded < pad) {
    free(bytes);
    return NULL;
  }
  *length = (size_t)decoded - pad;
  return bytes;
}

static int in_alphabet(char c, int url) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return 1;
  return url ? (c == '-' || c == '_') : (c == '+' || c == '/');
}

static unsigned char *decode(const char *text, size_t text_length, size_t *length, int url) {
  if (text_length > (size_t)INT32_MAX / 2) return NULL;
  size_t data_end = text_length;
  if (!url)
    while (data_end > 0 && text_length - data_end < 2 && text[data_end - 1] == '=') data_end--;
  for (size_t i = 0; i < data_end; i++)
    if (!in_alphabet(text[i], url)) return NULL;
  char *padded = malloc(data_end + 4);
  if (padded == NULL) return NULL;
  for (size_t i = 0; i < data_end; i++) padded[i] = url ? (text[i] == '-' ? '+' : text[i] == '_' ? '/' : text[i]) : text[i];
  unsigned char *bytes = decode_quanta(padded, data_end, length);
  free(padded);
  return bytes;
}

unsigned char *lc__base64url_decode(const char *text, size_t text_length, size_t *length) { return decode(text, text_length, length, 1); }

unsigned char *lc__base64_decode(const char *text, size_t text_length, size_t *length) { return decode(text, text_length, length, 0); }

void lc__content_digest(const unsigned char *bytes, size_t length, char *out) {
  unsigned char hash[32];
  unsigned int size = 0;
  EVP_Digest(bytes, length, hash, &size, EVP_sha256(), NULL);
  unsigned char encoded[48];
  EVP_EncodeBlock(encoded, hash, 32);
  snprintf(out, 64, "sha-256=:%.44s:", (const char *)encoded);
}

int64_t lc__monotonic_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int64_t realtime_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int64_t lc__now_ms(const lc_client *client) { return client->clock != NULL ? client->clock(client->clock_data) : realtime_ms(); }

void lc__sleep_ms(int64_t milliseconds) {
  struct timespec wait = {(time_t)(milliseconds / 1000), (long)(milliseconds % 1000) * 1000000L};
  while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
  }
}

double lc__random_unit(void) {
  uint32_t bits = 0;
  if (RAND_bytes((unsigned char *)&bits, sizeof bits) != 1) return 0.5;
  return (double)bits / 4294967296.0;
}

int lc__nonce(char *out) {
  unsigned char bytes[18];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return 0;
  char *text = lc__base64url(bytes, sizeof bytes);
  if (text == NULL) return 0;
  memcpy(out, text, 25);
  free(text);
  return 1;
}

/* Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil):
 * timegm is not standard C and Windows lacks it. */
static int64_t days_from_civil(int64_t year, int month, int day) {
  year -= month <= 2;
  int64_t era = (year >= 0 ? year : year - 399) / 400;
  int64_t year_of_era = year - era * 400;
  int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

static int digits(const char *text, int count, int *value) {
  *value = 0;
  for (int i = 0; i < count; i++) {
    if (text[i] < '0' || text[i] > '9') return 0;
    *value = *value * 10 + (text[i] - '0');
  }
  return 1;
}

int64_t lc__parse_instant(const char *text) {
  if (text == NULL || strlen(text) < 20) return -1;
  int year, month, day, hour, minute, second, millis = 0;
  if (!digits(text, 4, &year) || text[4] != '-' || !digits(text + 5, 2, &month) || text[7] != '-' || !digits(text + 8, 2, &day) || text[10] != 'T' ||
      !digits(text + 11, 2, &hour) || text[13] != ':' || !digits(text + 14, 2, &minute) || text[16] != ':' || !digits(text + 17, 2, &second))
    return -1;
  const char *rest = text + 19;
  if (*rest == '.') {
    int fraction = 0, places = 0;
    for (rest++; *rest >= '0' && *rest <= '9'; rest++, places++)
      if (places < 3) fraction = fraction * 10 + (*rest - '0');
    if (places == 0) return -1;
    for (; places < 3; places++) fraction *= 10;
    millis = fraction;
  }
  if (strcmp(rest, "Z") != 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return -1;
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return seconds * 1000 + millis;
}

void lc__format_instant(int64_t seconds, char *out, size_t size) {
  time_t when = (time_t)seconds;
  struct tm parts;
  if (gmtime_r(&when, &parts) == NULL) {
    snprintf(out, size, "%s", "");
    return;
  }
  snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.000Z", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min,
           parts.tm_sec);
}
