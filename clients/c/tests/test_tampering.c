/* What an intercepting proxy does to genuine answers: each is refused with INVALID_SIGNATURE, never answered from the stored token. */
#include <stdlib.h>

#include "harness.h"

/* Each is what the steered proxy (test/support/steered-proxy.ts) does to a genuine answer. */
static const char *const alterations[] = {
    "status",        /* 200 made 403, 403 made 200 */
    "status-5xx",    /* a signed answer made a 503 (retrying it would open the offline path) */
    "body",          /* success and level changed, digest left */
    "body-redigest", /* the same with a recomputed Content-Digest */
    "signature",     /* one bit of the signature flipped */
    "strip",         /* signature headers removed */
    "nonce-request", /* the request's nonce replaced (digest recomputed): a genuine answer to another nonce */
    "nonce-answer",  /* the nonce parameter of Signature-Input replaced */
};

static void every_alteration_of_a_success_is_rejected_even_with_a_stored_token(void) {
  char *key = new_license("");
  const char *folder = state_folder();
  char token_path[600];
  snprintf(token_path, sizeof token_path, "%s/offline-token.json", folder);
  lc_client *direct = client_for(NULL, NULL, folder, 0);
  lc_client *proxied = client_for(PROXY_URL, NULL, folder, 3000);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  int stored_ok = lc_check(direct, &credentials, &result) == LC_OK;
  lc_result_free(result);
  char *stored = read_file(token_path);
  int failures = 0;
  for (size_t i = 0; stored_ok && stored != NULL && i < sizeof alterations / sizeof *alterations; i++) {
    proxy_mode(alterations[i], 0, NULL);
    result = NULL;
    int status = lc_check(proxied, &credentials, &result);
    const char *code = lc_last_error_code(proxied);
    char *after = read_file(token_path);
    if (status != LC_ERR_INVALID_SIGNATURE || result != NULL || code == NULL || strcmp(code, "INVALID_SIGNATURE") != 0 || after == NULL ||
        strcmp(after, stored) != 0) {
      printf("    %s: status %d, code %s\n", alterations[i], status, code ? code : "(null)");
      failures++;
    }
    lc_result_free(result);
    free(after);
  }
  free(stored);
  lc_client_free(direct);
  lc_client_free(proxied);
  free(key);
  CHECK(stored_ok);
  CHECK(failures == 0);
}

static void every_alteration_of_a_refusal_is_rejected(void) {
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 3000);
  lc_credentials credentials = {"NOT-A-LICENSE", NULL, NULL, NULL};
  int failures = 0;
  for (size_t i = 0; i < sizeof alterations / sizeof *alterations; i++) {
    proxy_mode(alterations[i], 0, NULL);
    lc_result *result = NULL;
    int status = lc_check(client, &credentials, &result);
    const char *code = lc_last_error_code(client);
    if (status != LC_ERR_INVALID_SIGNATURE || code == NULL || strcmp(code, "INVALID_SIGNATURE") != 0) {
      printf("    %s: status %d, code %s\n", alterations[i], status, code ? code : "(null)");
      failures++;
    }
    lc_result_free(result);
  }
  lc_client_free(client);
  CHECK(failures == 0);
}

static void an_old_answer_replayed_is_rejected(void) {
  char *key = new_license("");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials credentials = {key, NULL, NULL, NULL};
  lc_result *result = NULL;
  int first = lc_check(client, &credentials, &result);
  lc_result_free(result);
  proxy_mode("replay", 1, NULL);
  int replayed = lc_check(client, &credentials, &result);
  cJSON *log = proxy_log();
  int asked = cJSON_GetArraySize(log);
  cJSON_Delete(log);
  free(key);
  CHECK(first == LC_OK);
  CHECK_CODE(client, replayed, result, "INVALID_SIGNATURE");
  CHECK(asked == 0); /* the proxy answered from its record, without asking the service */
  lc_client_free(client);
}

static void a_relayed_answer_about_another_license_is_rejected(void) {
  char *genuine = new_license("");
  lc_client *client = client_for(PROXY_URL, NULL, NULL, 0);
  proxy_mode("relay", 0, genuine);
  lc_credentials cracked = {"CRACKED-KEY", NULL, NULL, NULL};
  lc_result *result = NULL;
  int status = lc_check(client, &cracked, &result);
  cJSON *log = proxy_log();
  const cJSON *sent = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(log, 0), "license");
  /* The relay sends the genuine key upstream; what the client asked was the cracked one. */
  int asked_cracked = cJSON_IsString(sent) && strcmp(sent->valuestring, "CRACKED-KEY") == 0;
  cJSON_Delete(log);
  free(genuine);
  CHECK_CODE(client, status, result, "INVALID_SIGNATURE");
  CHECK(asked_cracked);
  lc_client_free(client);
}

static void the_other_routes_are_verified_too(void) {
  char *key = new_license("\"hwid_lock\":true");
  lc_client *direct = client_for(NULL, NULL, NULL, 0);
  lc_client *proxied = client_for(PROXY_URL, NULL, NULL, 0);
  lc_credentials pc = {key, NULL, NULL, "pc-1"};
  lc_result *result = NULL;
  int bound = lc_check(direct, &pc, &result);
  lc_result_free(result);
  result = NULL;
  int statuses[5];
  proxy_mode("body-redigest", 0, NULL);
  statuses[0] = lc_record_usage(proxied, &pc, "exports", 1, NULL, &result);
  statuses[1] = lc_reset_hwid(proxied, &pc, &result);
  statuses[2] = lc_register(proxied, key, "tampered-user-c", "password-123", &result);
  statuses[3] = lc_release(proxied, &pc, &result);
  statuses[4] = lc_borrow(proxied, &pc, 120, &result);
  lc_client_free(direct);
  lc_client_free(proxied);
  free(key);
  CHECK(bound == LC_OK);
  CHECK(result == NULL);
  for (int i = 0; i < 5; i++) CHECK(statuses[i] == LC_ERR_INVALID_SIGNATURE);
}

const test_case tampering_tests[] = {
    {"tampering: every alteration of a success is rejected, even with a stored token",
     every_alteration_of_a_success_is_rejected_even_with_a_stored_token},
    {"tampering: every alteration of a refusal is rejected", every_alteration_of_a_refusal_is_rejected},
    {"tampering: an old answer replayed is rejected", an_old_answer_replayed_is_rejected},
    {"tampering: a relayed answer about another license is rejected", a_relayed_answer_about_another_license_is_rejected},
    {"tampering: the other routes are verified too", the_other_routes_are_verified_too},
    {NULL, NULL}};
