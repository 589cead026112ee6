/* The offline token: kept as it arrives, answering while the service is dark, and only while it verifies. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/internal.h"
#include "harness.h"

static char *token_path_of(const char *folder) { return lc__format("%s/offline-token.json", folder); }

/* A generous deadline online (a busy machine); a short one once the service is dark, where every try fails at once. */
enum { ONLINE_MS = 15000, DARK_MS = 1000 };

static lc_client *folder_client(const char *url, const char *folder, long timeout_ms, fake_clock *clock) {
  lc_options options = {url, APP_ID, PUBLIC_JWK, folder, timeout_ms, clock ? fake_clock_now : NULL, clock};
  return lc_client_new(&options);
}

static lc_client *online_client(const char *folder, fake_clock *clock) { return folder_client(SERVICE_URL, folder, ONLINE_MS, clock); }

static lc_client *offline_client(const char *folder, fake_clock *clock) { return folder_client(SERVICE_URL, folder, DARK_MS, clock); }

/* A new license checked online once in a fresh state folder, which so keeps its token, and a client of that folder with timeout_ms. */
typedef struct kept {
  char *key;
  char *path;
  lc_client *client;
  lc_credentials credentials;
  int online;
} kept;

static kept keep_a_token(const char *url, long timeout_ms, fake_clock *clock) {
  const char *folder = state_folder();
  kept token = {new_license(""), token_path_of(folder), NULL, {NULL, NULL, NULL, NULL}, 0};
  token.credentials.license = token.key;
  lc_client *online = folder_client(url, folder, ONLINE_MS, clock);
  lc_result *result = NULL;
  token.online = lc_check(online, &token.credentials, &result) == LC_OK;
  lc_result_free(result);
  lc_client_free(online);
  token.client = folder_client(url, folder, timeout_ms, clock);
  return token;
}

static void kept_free(kept *token) {
  lc_client_free(token->client);
  free(token->path);
  free(token->key);
}

static void a_success_keeps_the_offline_token_atomically_and_privately(void) {
  char *key = new_license("\"hwid_lock\":true");
  const char *folder = state_folder();
  char *path = token_path_of(folder);
  lc_client *client = online_client(folder, NULL);
  lc_credentials laptop = {key, NULL, NULL, "laptop"};
  lc_result *result = NULL;
  int status = lc_check(client, &laptop, &result);
  char *text = read_file(path);
  cJSON *record = text ? cJSON_Parse(text) : NULL;
  const cJSON *token = cJSON_GetObjectItemCaseSensitive(record, "token");
  cJSON *claims = cJSON_IsString(token) ? lc__peek_claims(token->valuestring) : NULL;
  struct stat info;
  int mode = stat(path, &info) == 0 ? (int)(info.st_mode & 0777) : -1;
  int entries = 0, others = 0;
  DIR *directory = opendir(folder);
  for (struct dirent *entry; directory && (entry = readdir(directory)) != NULL;)
    if (strcmp(entry->d_name, "offline-token.json") == 0 || strcmp(entry->d_name, "clock.json") == 0) entries++;
    else if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) others++;
  if (directory) closedir(directory);
  int same_token = status == LC_OK && cJSON_IsString(token) && strstr(lc_result_data_json(result), token->valuestring) != NULL;
  const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
  const cJSON *hwid = cJSON_GetObjectItemCaseSensitive(claims, "hwid");
  int names = cJSON_IsString(sub) && strcmp(sub->valuestring, key) == 0 && cJSON_IsString(hwid) && strcmp(hwid->valuestring, "laptop") == 0;
  cJSON_Delete(claims);
  cJSON_Delete(record);
  free(text);
  free(path);
  lc_result_free(result);
  lc_client_free(client);
  free(key);
  CHECK(status == LC_OK);
  CHECK(same_token && names);
  CHECK(mode == 0600);
  CHECK(entries == 2 && others == 0); /* the token and the latest time seen, no temporary file left beside them */
}

static void the_kept_token_answers_while_the_service_is_dark_until_it_expires(void) {
  char *key = new_license("\"hwid_lock\":true,\"features\":[\"export.pdf\"]");
  const char *folder = state_folder();
  fake_clock clock;
  fake_clock_start(&clock);
  lc_client *running = online_client(folder, &clock);
  lc_credentials laptop = {key, NULL, NULL, "laptop"};
  lc_result *online = NULL, *offline = NULL, *result = NULL;
  int online_status = lc_check(running, &laptop, &online);
  set_server(0);
  lc_client *client = offline_client(folder, &clock);
  int offline_status = lc_check(client, &laptop, &offline);
  if (offline_status == LC_OK) {
    CHECK(lc_result_offline(offline));
    CHECK_STR(lc_result_message(offline), "OFFLINE_TOKEN_VALID");
    CHECK_STR(lc_result_string(offline, "key"), key);
    CHECK_STR(lc_result_string(offline, "subscription_name"), "C client tests");
    CHECK(lc_result_has_feature(offline, "export.pdf"));
    CHECK(lc_result_string(offline, "offline_until") != NULL);
  }
  lc_credentials other_device = {key, NULL, NULL, "another-pc"}, other_key = {"ANOTHER-KEY", NULL, NULL, "laptop"};
  int device_status = lc_check(client, &other_device, &result);
  CHECK_CODE(client, device_status, result, "NETWORK_ERROR");
  int key_status = lc_check(client, &other_key, &result);
  CHECK_CODE(client, key_status, result, "NETWORK_ERROR");
  clock.now_ms += (7 * 86400 + 60) * 1000LL;
  int expired = lc_check(client, &laptop, &result);
  CHECK_CODE(client, expired, result, "OFFLINE_TOKEN_EXPIRED");
  CHECK(expired == LC_ERR_OFFLINE_TOKEN_EXPIRED);
  CHECK(strstr(lc_last_error_data_json(client), "\"expired_at\"") != NULL);
  set_server(1);
  int back = lc_check(running, &laptop, &result);
  if (back == LC_OK) CHECK(!lc_result_offline(result));
  lc_result_free(result);
  lc_result_free(online);
  lc_result_free(offline);
  lc_client_free(running);
  lc_client_free(client);
  free(key);
  CHECK(online_status == LC_OK && offline_status == LC_OK && back == LC_OK);
}

static void a_username_login_works_offline_with_its_username(void) {
  char *key = new_license("");
  const char *folder = state_folder();
  lc_client *running = online_client(folder, NULL);
  char username[64], shouted[64];
  snprintf(username, sizeof username, "offline-c-%ld", (long)getpid());
  for (size_t i = 0; i <= strlen(username); i++) shouted[i] = (char)(username[i] >= 'a' && username[i] <= 'z' ? username[i] - 32 : username[i]);
  lc_result *result = NULL;
  int registered = lc_register(running, key, username, "password-123", &result);
  lc_result_free(result);
  lc_credentials by_name = {NULL, username, "password-123", NULL};
  int online = lc_check(running, &by_name, &result);
  lc_result_free(result);
  lc_client_free(running);
  set_server(0);
  lc_client *client = offline_client(folder, NULL);
  lc_credentials shouting = {NULL, shouted, "anything", NULL};
  int offline = lc_check(client, &shouting, &result);
  if (offline == LC_OK) {
    CHECK(lc_result_offline(result));
    CHECK_STR(lc_result_string(result, "key"), key);
  }
  lc_result_free(result);
  lc_credentials somebody = {NULL, "somebody-else", "password-123", NULL};
  int other = lc_check(client, &somebody, &result);
  CHECK_CODE(client, other, result, "NETWORK_ERROR");
  lc_client_free(client);
  free(key);
  CHECK(registered == LC_OK && online == LC_OK && offline == LC_OK);
}

static void an_edited_token_file_is_invalid_signature(void) {
  kept saved = keep_a_token(SERVICE_URL, DARK_MS, NULL);
  char *text = read_file(saved.path);
  cJSON *record = text ? cJSON_Parse(text) : NULL;
  const cJSON *token = cJSON_GetObjectItemCaseSensitive(record, "token");
  cJSON *claims = cJSON_IsString(token) ? lc__peek_claims(token->valuestring) : NULL;
  int edited = 0;
  if (claims != NULL) {
    cJSON *exp = cJSON_GetObjectItemCaseSensitive(claims, "exp");
    cJSON_SetNumberValue(exp, exp->valuedouble + 365 * 86400.0);
    char *payload_json = cJSON_PrintUnformatted(claims);
    char *payload = lc__base64url((const unsigned char *)payload_json, strlen(payload_json));
    const char *first = strchr(token->valuestring, '.');
    const char *second = strchr(first + 1, '.');
    char *forged = lc__format("{\"token\":\"%.*s.%s%s\"}", (int)(first - token->valuestring), token->valuestring, payload, second);
    edited = write_file(saved.path, forged);
    free(forged);
    free(payload);
    free(payload_json);
  }
  cJSON_Delete(claims);
  cJSON_Delete(record);
  free(text);
  set_server(0);
  lc_result *result = NULL;
  int status = lc_check(saved.client, &saved.credentials, &result);
  CHECK(saved.online && edited);
  CHECK_CODE(saved.client, status, result, "INVALID_SIGNATURE");
  kept_free(&saved);
}

static void no_kept_token_means_network_error(void) {
  lc_client *client = offline_client(state_folder(), NULL);
  set_server(0);
  lc_credentials credentials = {"ANY-KEY", NULL, NULL, NULL};
  lc_result *result = NULL;
  int status = lc_check(client, &credentials, &result);
  CHECK_CODE(client, status, result, "NETWORK_ERROR");
  lc_client_free(client);
}

static void a_refusal_by_the_service_forgets_the_token(void) {
  kept saved = keep_a_token(SERVICE_URL, ONLINE_MS, NULL);
  int was_kept = access(saved.path, F_OK) == 0;
  char body[256];
  snprintf(body, sizeof body, "{\"license_key\":\"%s\",\"status\":\"paused\"}", saved.key);
  cJSON_Delete(manage("/license/update-status", body));
  lc_result *result = NULL;
  int paused = lc_check(saved.client, &saved.credentials, &result);
  int gone = access(saved.path, F_OK) != 0;
  CHECK(saved.online && was_kept);
  CHECK_CODE(saved.client, paused, result, "LICENSE_NOT_ACTIVE");
  CHECK(gone);
  kept_free(&saved);
}

static void unsigned_gateway_answers_fall_back_to_the_kept_token(void) {
  /* Short: each unsigned answer is retried until the deadline before the kept token answers. */
  kept saved = keep_a_token(PROXY_URL, 1500, NULL);
  lc_result *result = NULL;
  proxy_mode("gateway-502", 0, NULL);
  int after_502 = lc_check(saved.client, &saved.credentials, &result);
  int offline_502 = after_502 == LC_OK && lc_result_offline(result);
  lc_result_free(result);
  result = NULL;
  proxy_mode("rate-limited", 0, NULL);
  int after_429 = lc_check(saved.client, &saved.credentials, &result);
  int offline_429 = after_429 == LC_OK && lc_result_offline(result);
  lc_result_free(result);
  int online = saved.online;
  kept_free(&saved);
  CHECK(online);
  CHECK(offline_502);
  CHECK(offline_429);
}

static void a_kept_token_serves_up_to_a_minute_before_its_nbf_and_not_earlier(void) {
  fake_clock clock;
  fake_clock_start(&clock);
  kept saved = keep_a_token(SERVICE_URL, DARK_MS, &clock);
  set_server(0);
  clock.now_ms -= 30 * 1000;
  lc_result *result = NULL;
  int skewed = lc_check(saved.client, &saved.credentials, &result);
  int offline = skewed == LC_OK && lc_result_offline(result);
  lc_result_free(result);
  result = NULL;
  clock.now_ms -= 90 * 1000;
  int early = lc_check(saved.client, &saved.credentials, &result);
  CHECK(saved.online && offline);
  CHECK_CODE(saved.client, early, result, "NETWORK_ERROR");
  kept_free(&saved);
}

static void fresh_answers_and_their_tokens_are_accepted_whatever_the_computer_clock_says(void) {
  int statuses[2];
  for (int i = 0; i < 2; i++) {
    char *key = new_license("");
    fake_clock clock;
    fake_clock_start(&clock);
    clock.now_ms += (i == 0 ? -30 : 30) * 86400 * 1000LL;
    lc_client *client = online_client(state_folder(), &clock);
    lc_credentials credentials = {key, NULL, NULL, NULL};
    lc_result *result = NULL;
    statuses[i] = lc_check(client, &credentials, &result);
    lc_result_free(result);
    lc_client_free(client);
    free(key);
  }
  CHECK(statuses[0] == LC_OK && statuses[1] == LC_OK);
}

static void a_state_folder_that_cannot_be_written_costs_only_the_fallback(void) {
  char *key = new_license("");
  const char *folder = state_folder();
  char *blocker = lc__format("%s-file", folder);
  int made = write_file(blocker, "");
  lc_client *client = online_client(blocker, NULL);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  int status = lc_check(client, &credentials, &result);
  lc_result_free(result);
  lc_client_free(client);
  free(blocker);
  free(key);
  CHECK(made);
  CHECK(status == LC_OK);
}

const test_case offline_tests[] = {
    {"offline: a success keeps the offline token atomically and privately", a_success_keeps_the_offline_token_atomically_and_privately},
    {"offline: the kept token answers while the service is dark, until it expires", the_kept_token_answers_while_the_service_is_dark_until_it_expires},
    {"offline: a username login works offline with its username", a_username_login_works_offline_with_its_username},
    {"offline: an edited token file is INVALID_SIGNATURE", an_edited_token_file_is_invalid_signature},
    {"offline: no kept token means NETWORK_ERROR", no_kept_token_means_network_error},
    {"offline: a refusal by the service forgets the token", a_refusal_by_the_service_forgets_the_token},
    {"offline: unsigned gateway answers (502, 429) fall back to the kept token", unsigned_gateway_answers_fall_back_to_the_kept_token},
    {"offline: a kept token serves up to a minute before its nbf, and not earlier", a_kept_token_serves_up_to_a_minute_before_its_nbf_and_not_earlier},
    {"offline: fresh answers and their tokens are accepted whatever the computer clock says",
     fresh_answers_and_their_tokens_are_accepted_whatever_the_computer_clock_says},
    {"offline: a state folder that cannot be written costs only the fallback", a_state_folder_that_cannot_be_written_costs_only_the_fallback},
    {NULL, NULL}};
