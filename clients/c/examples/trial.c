/* A program that starts without a key: it asks for this computer's trial (one per computer, however often it asks) and runs while it lasts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <licensing.h>

int main(void) {
  char state_dir[4096];
  snprintf(state_dir, sizeof state_dir, "%s/.example-app", getenv("HOME") ? getenv("HOME") : ".");
  lc_options options = {
      .url = getenv("LICENSING_URL"),
      .app_id = getenv("LICENSING_APP_ID"),
      .public_key = getenv("LICENSING_PUBLIC_KEY"),
      .state_dir = state_dir,
  };
  lc_client *client = lc_client_new(&options);
  if (client == NULL) {
    fprintf(stderr, "The licensing settings are incomplete\n");
    return 2;
  }
  const char *hwid = lc_machine_id(client);
  lc_result *trial = NULL;
  /* TRIAL_STARTED the first time, TRIAL_RESUMED after: the same trial license, whose key the program checks with. */
  if (lc_start_trial(client, hwid, &trial) != LC_OK) {
    const char *code = lc_last_error_code(client);
    if (strcmp(code, "TRIAL_EXPIRED") == 0) fprintf(stderr, "Your trial has ended: buy a license to go on\n");
    else if (strcmp(code, "TRIAL_CONVERTED") == 0) fprintf(stderr, "This computer's trial was bought: start the program with your license key\n");
    else fprintf(stderr, "This copy is not licensed: %s\n", code);
    lc_client_free(client);
    return 1;
  }
  printf("%s until %s\n", lc_result_message(trial), lc_result_string(trial, "expires_at"));
  lc_credentials credentials = {.license = lc_result_string(trial, "license"), .hwid = hwid};
  lc_result *result = NULL;
  int status = lc_check(client, &credentials, &result);
  if (status == LC_OK) printf("Licensed (%s)\n", lc_result_string(result, "subscription_name"));
  else fprintf(stderr, "This copy is not licensed: %s\n", lc_last_error_code(client));
  lc_result_free(result);
  lc_result_free(trial);
  lc_client_free(client);
  return status == LC_OK ? 0 : 1;
}
