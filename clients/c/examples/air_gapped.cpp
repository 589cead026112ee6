// An air-gapped program: the computer never reaches the service. It shows an
// activation request (a link a phone can open), accepts the license file made
// from it, and from then on runs from that file until the file's end.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <licensing.hpp>

static std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: " << argv[0] << " LICENSE-KEY [LICENSE-FILE] | --return LICENSE-KEY\n";
    return 2;
  }
  try {
    // No url: this client never goes online. The license file and the pending request live in the state folder.
    licensing::Options options;
    options.app_id = env("LICENSING_APP_ID");
    options.public_key = env("LICENSING_PUBLIC_KEY");
    options.state_dir = env("HOME") + "/.example-app";
    licensing::Client client(options);
    const std::string hwid = client.machine_id();

    if (std::string(argv[1]) == "--return" && argc == 3) {
      // Moving to another computer: the file is deleted, and the code tells the vendor this one no longer uses it.
      std::cout << "Give this return code to your vendor: " << client.return_code(argv[2], hwid) << "\n";
      return 0;
    }
    const std::string license = argv[1];
    if (argc == 3) {
      std::ifstream file(argv[2]);
      std::stringstream text;
      text << file.rdbuf();
      client.load_license_file(text.str());
    }
    try {
      licensing::Result result = client.check({license, "", "", hwid});
      std::cout << "Licensed with the license file of this computer: " << result.message << "\n";
      return 0;
    } catch (const licensing::Error &error) {
      if (error.code() != "NETWORK_ERROR") throw;  // NETWORK_ERROR: no file is stored for this license and computer yet
    }
    licensing::ActivationRequest request = client.activation_request(license, hwid, 0, true, env("LICENSING_PORTAL_URL"));
    std::cout << "This computer is not activated yet. Open this link on a phone or another computer:\n"
              << request.link << "\nthen start the program again with the license file it gives: " << argv[0] << " " << license << " license.lic\n";
    return 3;
  } catch (const licensing::Error &error) {
    std::cerr << "This copy is not licensed: " << error.code() << "\n";
    return 1;
  }
}
