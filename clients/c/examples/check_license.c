/* A protected program: it runs only with a valid license, online or (for a while) offline. */
#include <stdio.h>
#include <stdlib.h>

#include <licensing.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s LICENSE-KEY\n", argv[0]);
    return 2;
  }
  /* The offline token is kept in the user's home, so the program also starts without a network for a while. */
  char state_dir[4096];
  snprintf(state_dir, sizeof state_dir, "%s/.example-app", getenv("HOME") ? getenv("HOME") : ".");

  /* Ship these three with the program; the key is your application's public key (PEM or JWK), pinned. */
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

  lc_credentials credentials = {.license = argv[1], .hwid = lc_machine_id(client)};
  lc_result *result = NULL;
  if (lc_check(client, &credentials, &result) != LC_OK) {
    fprintf(stderr, "This copy is not licensed: %s\n", lc_last_error_code(client));
    lc_client_free(client);
    return 1;
  }
  const char *until = lc_result_string(result, "expires_at");
  if (lc_result_offline(result)) printf("Offline: licensed until %s at the latest\n", lc_result_string(result, "offline_until"));
  printf("Licensed (%s), valid until %s\n", lc_result_string(result, "subscription_name"), until ? until : "forever");
  lc_result_free(result);
  lc_client_free(client);

  /* ... the program itself ... */
  return 0;
}
