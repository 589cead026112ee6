// The C++ wrapper (licensing.hpp) over the public library, against the service.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "licensing.hpp"

namespace {

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

const std::string url = environment("LICENSING_URL"), app_id = environment("LICENSING_APP_ID"), jwk = environment("LICENSING_PUBLIC_JWK"),
                  pem = environment("LICENSING_PUBLIC_KEY_PEM"), floating_key = environment("LICENSING_FLOATING_LICENSE"),
                  plain_key = environment("LICENSING_LICENSE");

struct Failure {
  std::string what;
};

void expect(bool condition, const std::string &what) {
  if (!condition) throw Failure{what};
}

licensing::Client client() { return licensing::Client({url, app_id, pem, "", 0}); }

void checks_a_license_and_answers_with_its_message_and_data() {
  licensing::Client moved = client();
  licensing::Client app = std::move(moved);
  licensing::Result result = app.check({plain_key, "", "", ""});
  expect(result.message.rfind("LICENSE_VERIFIED_", 0) == 0, "message is " + result.message);
  expect(result.data_json.find("\"key\":\"" + plain_key + "\"") != std::string::npos, "data names the key");
  expect(!result.offline, "online");
  expect(app.machine_id().size() == 64, "a machine id of 64 hex digits");
}

void throws_refusals_as_errors_with_their_code() {
  licensing::Client app = client();
  try {
    app.check({"NO-SUCH-LICENSE", "", "", ""});
    throw Failure{"no exception"};
  } catch (const licensing::Error &error) {
    expect(error.code() == "LICENSE_NOT_FOUND", "code is " + error.code());
    const std::runtime_error &plain = error;
    expect(std::string(plain.what()).find("LICENSE_NOT_FOUND") == 0, "what() starts with the code");
  }
  try {
    licensing::Client({url, "not-a-uuid", pem, ""});
    throw Failure{"no exception"};
  } catch (const licensing::Error &error) {
    expect(error.code() == "INVALID_ARGUMENT", "code is " + error.code());
  }
  try {
    licensing::Client({"http://127.0.0.1:9", app_id, jwk, "", 800}).check({plain_key, "", "", ""});
    throw Failure{"no exception"};
  } catch (const licensing::Error &error) {
    expect(error.code() == "NETWORK_ERROR", "code is " + error.code());
  }
}

void a_heartbeat_gives_its_seat_back_when_it_goes_out_of_scope() {
  licensing::Client app = client();
  licensing::Credentials desk_a{floating_key, "", "", "desk-a"}, desk_b{floating_key, "", "", "desk-b"};
  {
    licensing::Heartbeat seat = app.start_heartbeat(desk_a, [](const licensing::Error &) {}, 200);
    expect(seat.lease_expires_at() > 0, "a lease");
    expect(seat.lost_code().empty(), "held");
    try {
      app.check(desk_b);
      throw Failure{"desk-b took a seat that was held"};
    } catch (const licensing::Error &error) {
      expect(error.code() == "SEATS_EXHAUSTED", "code is " + error.code());
      expect(error.data_json().find("\"max_devices\":1") != std::string::npos, "data is " + error.data_json());
    }
    licensing::Heartbeat moved = std::move(seat);
    moved.renew_now();
  }
  licensing::Result taken = app.check(desk_b);
  expect(taken.data_json.find("\"hwids\":[\"desk-b\"]") != std::string::npos, "desk-b holds the seat");
  licensing::Result released = app.release(desk_b);
  expect(released.message == "SEAT_RELEASED", "message is " + released.message);
}

}  // namespace

int main() {
  if (url.empty() || app_id.empty() || floating_key.empty() || plain_key.empty()) {
    std::cerr << "run by test/clients/c.test.ts, which sets LICENSING_URL, LICENSING_LICENSE, ...\n";
    return 2;
  }
  const std::vector<std::pair<const char *, std::function<void()>>> tests = {
      {"c++: checks a license and answers with its message and data", checks_a_license_and_answers_with_its_message_and_data},
      {"c++: throws refusals as errors with their code", throws_refusals_as_errors_with_their_code},
      {"c++: a heartbeat gives its seat back when it goes out of scope", a_heartbeat_gives_its_seat_back_when_it_goes_out_of_scope},
  };
  int passed = 0, failed = 0;
  for (const auto &[name, run] : tests) {
    try {
      run();
      std::cout << "ok - " << name << "\n";
      passed++;
    } catch (const Failure &failure) {
      std::cout << "    " << failure.what << "\nnot ok - " << name << "\n";
      failed++;
    } catch (const std::exception &unexpected) {
      std::cout << "    unexpected: " << unexpected.what() << "\nnot ok - " << name << "\n";
      failed++;
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
