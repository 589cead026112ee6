/*
 * One call of the license-file and trial surface per run, for the shared cases of
 * test/support/native-license-files.ts, which mints the files and plays the service:
 *   license_files_driver <call> [name=value ...]
 * with the client's settings in LICENSING_URL (unset: no service), LICENSING_APP_ID,
 * LICENSING_PUBLIC_KEY, LICENSING_STATE_DIR and LICENSING_NOW (seconds; unset: the
 * system's clock). Prints one JSON line: {"ok":true,"message","data","offline"} or
 * {"ok":false,"code","data"}.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "licensing.h"

static int64_t fixed_clock(void *clock_data) { return *(const int64_t *)clock_data; }

/* The value of name=value among the arguments, or NULL. */
static const char *argument(int count, char **arguments, const char *name) {
  size_t length = strlen(name);
  for (int i = 2; i < count; i++)
    if (strncmp(arguments[i], name, length) == 0 && arguments[i][length] == '=') return arguments[i] + length + 1;
  return NULL;
}

static void print(lc_client *client, int status, lc_result *result) {
  cJSON *line = cJSON_CreateObject();
  cJSON_AddBoolToObject(line, "ok", status == LC_OK);
  if (status == LC_OK) {
    cJSON_AddStringToObject(line, "message", lc_result_message(result));
    cJSON_AddItemToObject(line, "data", cJSON_Parse(lc_result_data_json(result)));
    cJSON_AddBoolToObject(line, "offline", lc_result_offline(result));
  } else {
    cJSON_AddStringToObject(line, "code", lc_last_error_code(client));
    const char *data = lc_last_error_data_json(client);
    cJSON_AddItemToObject(line, "data", data == NULL ? cJSON_CreateNull() : cJSON_Parse(data));
  }
  char *text = cJSON_PrintUnformatted(line);
  printf("%s\n", text);
  free(text);
  cJSON_Delete(line);
  lc_result_free(result);
}

int main(int count, char **arguments) {
  if (count < 2) {
    fprintf(stderr, "usage: license_files_driver <call> [name=value ...]\n");
    return 2;
  }
  const char *now = getenv("LICENSING_NOW");
  int64_t now_ms = now == NULL ? 0 : (int64_t)(strtod(now, NULL) * 1000);
  const char *timeout = getenv("LICENSING_TIMEOUT_MS");
  lc_options options = {getenv("LICENSING_URL"), getenv("LICENSING_APP_ID"), getenv("LICENSING_PUBLIC_KEY"), getenv("LICENSING_STATE_DIR"),
                        timeout == NULL ? 0 : strtol(timeout, NULL, 10),
                        now == NULL ? NULL : fixed_clock, &now_ms};
  lc_client *client = lc_client_new(&options);
  if (client == NULL) {
    fprintf(stderr, "the client's options are malformed\n");
    return 2;
  }
  const char *call = arguments[1];
#define ARG(name) argument(count, arguments, name)
  lc_credentials credentials = {ARG("license"), ARG("username"), ARG("password"), ARG("hwid")};
  const char *lifetime = ARG("lifetime_seconds");
  const char *encrypt = ARG("encrypt");
  lc_file_options file_options = {lifetime == NULL ? 0 : strtoll(lifetime, NULL, 10), encrypt != NULL && strcmp(encrypt, "true") == 0};
  lc_result *result = NULL;
  int status;
  if (strcmp(call, "check") == 0) status = lc_check(client, &credentials, &result);
  else if (strcmp(call, "license-file") == 0) status = lc_license_file(client, &credentials, &file_options, &result);
  else if (strcmp(call, "activation-request") == 0)
    status = lc_activation_request(client, credentials.license, credentials.hwid, &file_options, ARG("portal_url"), &result);
  else if (strcmp(call, "load") == 0) status = lc_load_license_file(client, ARG("text"), &result);
  else if (strcmp(call, "return-code") == 0) status = lc_return_code(client, credentials.license, credentials.hwid, &result);
  else if (strcmp(call, "return-file") == 0) status = lc_return_license_file(client, credentials.license, credentials.hwid, &result);
  else if (strcmp(call, "trial") == 0) status = lc_start_trial(client, credentials.hwid, &result);
  else {
    fprintf(stderr, "unknown call %s\n", call);
    lc_client_free(client);
    return 2;
  }
  print(client, status, result);
  lc_client_free(client);
  return 0;
}
