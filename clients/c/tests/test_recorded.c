/*
 * The recorded answers every client library checks (clients/testdata/answers.json,
 * named by LICENSING_ANSWERS_FILE): each case through lc_verify_answer and
 * lc_verify_token, which apply the very functions live answers and kept tokens
 * go through, judged at the case's own time.
 */
#include <stdlib.h>

#include "harness.h"

static cJSON *load_cases(void) {
  const char *path = getenv("LICENSING_ANSWERS_FILE");
  char *text = path == NULL ? NULL : read_file(path);
  cJSON *cases = text == NULL ? NULL : cJSON_Parse(text);
  free(text);
  return cases;
}

static const char *string_of(const cJSON *object, const char *name) {
  const cJSON *member = cJSON_GetObjectItemCaseSensitive(object, name);
  return cJSON_IsString(member) ? member->valuestring : NULL;
}

/* prefix and text in a new string. */
static char *joined(const char *prefix, const char *text) {
  if (text == NULL) text = "(null)";
  size_t size = strlen(prefix) + strlen(text) + 1;
  char *both = malloc(size);
  if (both != NULL) snprintf(both, size, "%s%s", prefix, text);
  return both;
}

/* A client pinned to the recorded application's key, expecting `app_id`. */
static lc_client *recorded_client(const cJSON *cases, const char *app_id) {
  lc_options options = {SERVICE_URL, app_id, string_of(cases, "public_key_pem"), NULL, 0, NULL, NULL};
  return lc_client_new(&options);
}

/* "ok:<message>", "refused:<code>" or "code:<code>": what the library made of it, or what the case expects. */
static char *outcome(lc_client *client, int status, const lc_result *result) {
  if (status == LC_OK) return joined("ok:", lc_result_message(result));
  return joined(status == LC_ERR_REFUSED ? "refused:" : "code:", lc_last_error_code(client));
}

static void every_recorded_answer_is_decided_as_the_case_expects(void) {
  cJSON *cases = load_cases();
  CHECK(cases != NULL);
  lc_client *client = recorded_client(cases, string_of(cases, "app_id"));
  int failures = 0, decided = 0;
  const cJSON *answers = client != NULL ? cJSON_GetObjectItemCaseSensitive(cases, "answers") : NULL;
  const cJSON *vector;
  cJSON_ArrayForEach(vector, answers) {
    const cJSON *request = cJSON_GetObjectItemCaseSensitive(vector, "request");
    const cJSON *answer = cJSON_GetObjectItemCaseSensitive(vector, "answer");
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(answer, "headers");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(vector, "expect");
    const char *body = string_of(answer, "body");
    lc_exchange exchange = {string_of(request, "nonce"),
                            string_of(request, "content_digest"),
                            string_of(request, "license"),
                            (int32_t)cJSON_GetObjectItemCaseSensitive(answer, "status")->valuedouble,
                            string_of(headers, "content-digest"),
                            string_of(headers, "signature-input"),
                            string_of(headers, "signature"),
                            body,
                            (int64_t)strlen(body)};
    lc_result *result = NULL;
    int status = lc_verify_answer(client, &exchange, &result);
    char *got = outcome(client, status, result);
    char *wanted = string_of(expect, "message")   ? joined("ok:", string_of(expect, "message"))
                   : string_of(expect, "refused") ? joined("refused:", string_of(expect, "refused"))
                                                  : joined("code:", string_of(expect, "code"));
    int same = strcmp(got, wanted) == 0;
    printf("    answer %s: %s%s%s\n", string_of(vector, "name"), got, same ? "" : ", expected ", same ? "" : wanted);
    failures += !same;
    decided++;
    free(got);
    free(wanted);
    lc_result_free(result);
  }
  lc_client_free(client);
  cJSON_Delete(cases);
  CHECK(decided >= 10);
  CHECK(failures == 0);
}

static void every_recorded_token_is_decided_as_the_case_expects(void) {
  cJSON *cases = load_cases();
  CHECK(cases != NULL);
  int failures = 0, decided = 0;
  const cJSON *vector;
  cJSON_ArrayForEach(vector, cJSON_GetObjectItemCaseSensitive(cases, "tokens")) {
    lc_client *client = recorded_client(cases, string_of(vector, "app_id"));
    lc_credentials expected = {string_of(vector, "license"), NULL, NULL, string_of(vector, "hwid")};
    lc_result *result = NULL;
    int status = client == NULL ? LC_ERR_INVALID_ARGUMENT
                                : lc_verify_token(client, string_of(vector, "token"), &expected, string_of(vector, "nonce"),
                                                  (int64_t)cJSON_GetObjectItemCaseSensitive(vector, "now")->valuedouble, &result);
    const char *wanted = string_of(cJSON_GetObjectItemCaseSensitive(vector, "expect"), "code");
    const char *code = client == NULL ? "no client" : status == LC_OK ? "ok" : lc_last_error_code(client);
    const char *sub = status == LC_OK ? lc_result_string(result, "sub") : NULL;
    int same = wanted == NULL ? status == LC_OK && sub != NULL && expected.license != NULL && strcmp(sub, expected.license) == 0
                              : status != LC_OK && strcmp(code, wanted) == 0;
    printf("    token %s: %s%s%s\n", string_of(vector, "name"), code, same ? "" : ", expected ", same ? "" : (wanted ? wanted : "ok"));
    failures += !same;
    decided++;
    lc_result_free(result);
    lc_client_free(client);
  }
  cJSON_Delete(cases);
  CHECK(decided >= 10);
  CHECK(failures == 0);
}

const test_case recorded_tests[] = {
    {"recorded: every recorded answer is decided as the case expects", every_recorded_answer_is_decided_as_the_case_expects},
    {"recorded: every recorded token is decided as the case expects", every_recorded_token_is_decided_as_the_case_expects},
    {NULL, NULL}};
