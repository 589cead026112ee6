/* Checks, registration, resets, usage, retries and the machine id, against the service. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../src/internal.h"
#include "harness.h"

static int64_t monotonic_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Whether the license's record binds exactly this device. */
static int bound_to(const char *key, const char *hwid) {
  char *body = lc__format("{\"license_key\":\"%s\"}", key);
  cJSON *record = manage("/license/get", body);
  free(body);
  const cJSON *bound = cJSON_GetObjectItemCaseSensitive(record, "hwid");
  int same = cJSON_IsString(bound) && strcmp(bound->valuestring, hwid) == 0;
  cJSON_Delete(record);
  return same;
}

static void a_license_key_is_checked_with_the_pinned_jwk_then_the_pem(void) {
  char *key = new_license("");
  CHECK(key != NULL);
  lc_client *by_jwk = client_for(NULL, NULL, NULL, 0);
  lc_client *by_pem = client_for(PROXY_URL, PUBLIC_KEY_PEM, NULL, 0);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *first = NULL, *second = NULL;
  int first_status = lc_check(by_jwk, &credentials, &first);
  int second_status = lc_check(by_pem, &credentials, &second);
  cJSON *log = proxy_log();
  if (first_status == LC_OK && second_status == LC_OK) {
    CHECK_STR(lc_result_message(first), "LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY");
    CHECK_STR(lc_result_message(second), "LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY");
    CHECK_STR(lc_result_string(second, "key"), key);
    CHECK_STR(lc_result_string(second, "subscription_name"), "C client tests");
    long long level = 0;
    CHECK(lc_result_integer(second, "subscription_level", &level) && level == 3);
    CHECK(!lc_result_offline(second));
    CHECK(strstr(lc_result_data_json(second), "\"offline_token\"") == NULL);
    CHECK(lc_last_error_code(by_pem) == NULL);
    const cJSON *sent = cJSON_GetArrayItem(log, 0);
    CHECK(cJSON_GetArraySize(log) == 1);
    CHECK(strlen(cJSON_GetObjectItemCaseSensitive(sent, "nonce")->valuestring) == 24);
    CHECK(cJSON_GetObjectItemCaseSensitive(sent, "offline_token") == NULL);
  }
  cJSON_Delete(log);
  lc_result_free(first);
  lc_result_free(second);
  lc_client_free(by_jwk);
  lc_client_free(by_pem);
  free(key);
  CHECK(first_status == LC_OK && second_status == LC_OK);
}

static void every_call_sends_a_fresh_nonce(void) {
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials credentials = {"NO-SUCH-LICENSE", NULL, NULL, NULL};
  lc_result *result = NULL;
  for (int i = 0; i < 3; i++) lc_check(client, &credentials, &result);
  cJSON *log = proxy_log();
  int count = cJSON_GetArraySize(log);
  const char *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 0), "nonce")->valuestring;
  const char *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 1), "nonce")->valuestring;
  const char *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 2), "nonce")->valuestring;
  int fresh = strcmp(a, b) != 0 && strcmp(b, c) != 0 && strcmp(a, c) != 0;
  cJSON_Delete(log);
  lc_client_free(client);
  CHECK(count == 3);
  CHECK(fresh);
}

static void register_then_check_by_username_and_password(void) {
  char *key = new_license("");
  lc_client *client = client_for(NULL, NULL, NULL, 0);
  char username[64], shouted[64];
  snprintf(username, sizeof username, "c-user-%ld-%ld", (long)getpid(), (long)monotonic_ms());
  for (size_t i = 0; i <= strlen(username); i++) shouted[i] = (char)(username[i] >= 'a' && username[i] <= 'z' ? username[i] - 32 : username[i]);
  lc_result *result = NULL;
  int registered = lc_register(client, key, username, "password-123", &result);
  if (registered == LC_OK) {
    CHECK_STR(lc_result_message(result), "License credentials updated successfully");
    CHECK_STR(lc_result_data_json(result), "null");
  }
  lc_result_free(result);
  result = NULL;
  lc_credentials by_name = {NULL, shouted, "password-123", NULL};
  int checked = lc_check(client, &by_name, &result);
  if (checked == LC_OK) CHECK_STR(lc_result_string(result, "key"), key);
  lc_result_free(result);
  result = NULL;
  lc_credentials wrong = {NULL, username, "password-456", NULL};
  int refused = lc_check(client, &wrong, &result);
  if (refused != LC_OK) CHECK_STR(lc_last_error_code(client), "INVALID_USERNAME_OR_PASSWORD");
  lc_client_free(client);
  free(key);
  CHECK(registered == LC_OK && checked == LC_OK && refused == LC_ERR_REFUSED);
}

static void the_services_refusals_are_codes_with_their_data_not_retried(void) {
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials missing = {"NO-SUCH-LICENSE", NULL, NULL, NULL};
  lc_result *result = NULL;
  int status = lc_check(client, &missing, &result);
  cJSON *log = proxy_log();
  int requests = cJSON_GetArraySize(log);
  cJSON_Delete(log);
  CHECK_CODE(client, status, result, "LICENSE_NOT_FOUND");
  CHECK(status == LC_ERR_REFUSED);
  CHECK(lc_last_error_data_json(client) == NULL);
  CHECK(requests == 1);

  char *key = new_license("\"hwid_lock\":true");
  lc_credentials first = {key, NULL, NULL, "first-pc"}, second = {key, NULL, NULL, "second-pc"};
  int bound = lc_check(client, &first, &result);
  lc_result_free(result);
  status = lc_check(client, &second, &result);
  free(key);
  CHECK(bound == LC_OK);
  CHECK_CODE(client, status, result, "HWID_MISMATCH");
  CHECK(strstr(lc_last_error_data_json(client), "\"hwid_reset_allowed\":true") != NULL);
  lc_client_free(client);
}

static void reset_hwid_moves_a_locked_license_to_another_device(void) {
  char *key = new_license("\"hwid_lock\":true");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials pc1 = {key, NULL, NULL, "pc-1"}, pc2 = {key, NULL, NULL, "pc-2"};
  lc_result *result = NULL;
  int bound = lc_check(client, &pc1, &result);
  lc_result_free(result);
  int mismatch = lc_check(client, &pc2, &result);
  int reset = lc_reset_hwid(client, &pc1, &result);
  if (reset == LC_OK) CHECK_STR(lc_result_message(result), "HWID_RESET");
  lc_result_free(result);
  int moved = lc_check(client, &pc2, &result);
  lc_result_free(result);
  int on_pc2 = bound_to(key, "pc-2");
  lc_client_free(client);
  free(key);
  CHECK(bound == LC_OK && mismatch == LC_ERR_REFUSED && reset == LC_OK && moved == LC_OK && on_pc2);
}

static void usage_is_recorded_and_refused_past_the_limit(void) {
  char *key = new_license("\"hwid_lock\":true");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials pc = {key, NULL, NULL, "pc-1"};
  lc_result *result = NULL;
  int before = lc_record_usage(client, &pc, "exports", 1, NULL, &result);
  CHECK_CODE(client, before, result, "LICENSE_NOT_ACTIVATED");
  CHECK(lc_check(client, &pc, &result) == LC_OK);
  lc_result_free(result);
  int recorded = lc_record_usage(client, &pc, "exports", 5, NULL, &result);
  long long remaining = -1;
  if (recorded == LC_OK) {
    CHECK_STR(lc_result_message(result), "USAGE_RECORDED");
    CHECK(lc_result_integer(result, "remaining", &remaining) && remaining == 0);
  }
  lc_result_free(result);
  int past = lc_record_usage(client, &pc, "exports", 0, NULL, &result);
  int limit_data = past == LC_ERR_REFUSED && strstr(lc_last_error_data_json(client), "\"used\":5") != NULL;
  CHECK_CODE(client, past, result, "USAGE_LIMIT_REACHED");
  int unknown = lc_record_usage(client, &pc, "imports", 1, NULL, &result);
  CHECK_CODE(client, unknown, result, "USAGE_COUNTER_UNKNOWN");
  lc_client_free(client);
  free(key);
  CHECK(recorded == LC_OK && limit_data);
}

static void a_lost_answer_is_retried_with_the_same_usage_id_and_counted_once(void) {
  char *key = new_license("");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 15000);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  CHECK(lc_check(client, &credentials, &result) == LC_OK);
  lc_result_free(result);
  proxy_mode("lose-answer", 1, NULL);
  int status = lc_record_usage(client, &credentials, "exports", 2, NULL, &result);
  cJSON *log = proxy_log();
  long long used = -1;
  if (status == LC_OK) lc_result_integer(result, "used", &used);
  lc_result_free(result);
  int attempts = cJSON_GetArraySize(log);
  const cJSON *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 0), "usage_id");
  const cJSON *second = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 1), "usage_id");
  int same = cJSON_IsString(first) && cJSON_IsString(second) && strcmp(first->valuestring, second->valuestring) == 0;
  /* The caller may repeat the call itself with the id it chose: still counted once. */
  int repeated = lc_record_usage(client, &credentials, "exports", 2, "my-own-usage-id-1", &result);
  lc_result_free(result);
  int again = lc_record_usage(client, &credentials, "exports", 2, "my-own-usage-id-1", &result);
  long long after = -1;
  if (again == LC_OK) lc_result_integer(result, "used", &after);
  lc_result_free(result);
  cJSON_Delete(log);
  lc_client_free(client);
  free(key);
  CHECK(status == LC_OK);
  CHECK(attempts == 2 && same);
  CHECK(used == 2);
  CHECK(repeated == LC_OK && again == LC_OK && after == 4);
}

static void gateway_answers_are_retried_then_succeed(void) {
  char *key = new_license("");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 15000);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  proxy_mode("gateway-502", 2, NULL);
  int after_502 = lc_check(client, &credentials, &result);
  lc_result_free(result);
  proxy_mode("rate-limited", 1, NULL);
  int64_t started = monotonic_ms();
  int after_429 = lc_check(client, &credentials, &result);
  int64_t waited = monotonic_ms() - started;
  lc_result_free(result);
  lc_client_free(client);
  free(key);
  CHECK(after_502 == LC_OK);
  CHECK(after_429 == LC_OK);
  CHECK(waited >= 1000); /* the 429's Retry-After: 1 */
}

static void unsigned_5xx_and_429_until_the_timeout_are_network_error(void) {
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 1500);
  lc_credentials credentials = {"ANY-KEY", NULL, NULL, NULL};
  lc_result *result = NULL;
  proxy_mode("gateway-502", 0, NULL);
  int64_t started = monotonic_ms();
  int after_502 = lc_check(client, &credentials, &result);
  int64_t took = monotonic_ms() - started;
  const char *code = lc_last_error_code(client);
  int network_502 = after_502 == LC_ERR_NETWORK && result == NULL && code != NULL && strcmp(code, "NETWORK_ERROR") == 0;
  /* The proxy logs the 429s it makes: an attempt after each Retry-After second, until the timeout. */
  lc_client *patient = client_for(PROXY_URL, NULL, NULL, 3500);
  proxy_mode("rate-limited", 0, NULL);
  int after_429 = lc_check(patient, &credentials, &result);
  cJSON *log = proxy_log();
  int attempts = cJSON_GetArraySize(log);
  cJSON_Delete(log);
  lc_client_free(client);
  lc_client_free(patient);
  CHECK(network_502);
  CHECK(took < 1500 + 1000);
  CHECK(after_429 == LC_ERR_NETWORK && result == NULL);
  CHECK(attempts >= 2 && attempts <= 4);
}

static void nothing_listening_is_network_error_within_the_timeout(void) {
  lc_client *client = client_for("http://127.0.0.1:9", NULL, NULL, 1200);
  lc_credentials credentials = {"ANY-KEY", NULL, NULL, NULL};
  lc_result *result = NULL;
  int64_t started = monotonic_ms();
  int status = lc_check(client, &credentials, &result);
  int64_t took = monotonic_ms() - started;
  CHECK_CODE(client, status, result, "NETWORK_ERROR");
  CHECK(took < 1200 + 1000);
  lc_client_free(client);
}

static void the_machine_id_is_the_other_libraries_one_and_serves_as_a_locked_hwid(void) {
  lc_client *client = client_for(NULL, NULL, NULL, 0);
  const char *id = lc_machine_id(client);
  CHECK(id != NULL && strlen(id) == 64);
  CHECK(strspn(id, "0123456789abcdef") == 64);
  CHECK(lc_machine_id(client) == id);
  const char *expected = getenv("LICENSING_EXPECTED_MACHINE_ID");
  CHECK(expected != NULL);
  CHECK_STR(id, expected);
  lc_options other = {SERVICE_URL, "11111111-2222-4333-8444-555555555555", PUBLIC_JWK, NULL, 0, NULL, NULL};
  lc_client *another_app = lc_client_new(&other);
  CHECK(another_app != NULL);
  int differs = strcmp(lc_machine_id(another_app), id) != 0;
  lc_client_free(another_app);
  CHECK(differs);
  char *key = new_license("\"hwid_lock\":true");
  lc_credentials here = {key, NULL, NULL, id};
  lc_result *result = NULL;
  int status = lc_check(client, &here, &result);
  lc_result_free(result);
  int bound_here = bound_to(key, id);
  lc_client_free(client);
  free(key);
  CHECK(status == LC_OK && bound_here);
}

typedef struct threaded {
  lc_client *client;
  const char *license;
  char hwid[16];
  int status;
  char code[64];
} threaded;

static void *check_in_thread(void *argument) {
  threaded *work = argument;
  lc_credentials credentials = {work->license, NULL, NULL, work->hwid};
  lc_result *result = NULL;
  work->status = lc_check(work->client, &credentials, &result);
  lc_result_free(result);
  /* Another thread's failure in the meantime must not show here. */
  struct timespec pause = {0, 200000000L};
  nanosleep(&pause, NULL);
  const char *code = lc_last_error_code(work->client);
  snprintf(work->code, sizeof work->code, "%s", code ? code : "none");
  return NULL;
}

static void one_client_serves_several_threads_each_with_its_own_last_error(void) {
  char *key = floating_license(3);
  lc_client *shared = client_for(NULL, NULL, NULL, 0);
  threaded work[4] = {{shared, key, "a", 0, ""}, {shared, key, "b", 0, ""}, {shared, key, "c", 0, ""}, {shared, "NO-SUCH-LICENSE", "d", 0, ""}};
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, check_in_thread, &work[i]);
  for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
  lc_client_free(shared);
  free(key);
  for (int i = 0; i < 3; i++) {
    CHECK(work[i].status == LC_OK);
    CHECK_STR(work[i].code, "none");
  }
  CHECK(work[3].status == LC_ERR_REFUSED);
  CHECK_STR(work[3].code, "LICENSE_NOT_FOUND");
}

const test_case check_tests[] = {
    {"check: a license key is checked with the pinned JWK, then the PEM", a_license_key_is_checked_with_the_pinned_jwk_then_the_pem},
    {"check: every call sends a fresh nonce", every_call_sends_a_fresh_nonce},
    {"check: register, then check by username and password", register_then_check_by_username_and_password},
    {"check: the service's refusals are codes with their data, not retried", the_services_refusals_are_codes_with_their_data_not_retried},
    {"check: reset_hwid moves a locked license to another device", reset_hwid_moves_a_locked_license_to_another_device},
    {"check: usage is recorded and refused past the limit", usage_is_recorded_and_refused_past_the_limit},
    {"check: a lost answer is retried with the same usage_id and counted once", a_lost_answer_is_retried_with_the_same_usage_id_and_counted_once},
    {"check: gateway answers (502, 429) are retried, then succeed", gateway_answers_are_retried_then_succeed},
    {"check: unsigned 5xx and 429 until the timeout are NETWORK_ERROR", unsigned_5xx_and_429_until_the_timeout_are_network_error},
    {"check: nothing listening is NETWORK_ERROR within the timeout", nothing_listening_is_network_error_within_the_timeout},
    {"check: the machine id is the other libraries' one and serves as a locked HWID",
     the_machine_id_is_the_other_libraries_one_and_serves_as_a_locked_hwid},
    {"check: one client serves several threads, each with its own last error", one_client_serves_several_threads_each_with_its_own_last_error},
    {NULL, NULL}};
