// A program licensed per concurrent seat: it holds one while it runs and counts each export.
#include <atomic>
#include <cstdlib>
#include <iostream>

#include <licensing.hpp>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " LICENSE-KEY\n";
    return 2;
  }
  licensing::Client client({std::getenv("LICENSING_URL"), std::getenv("LICENSING_APP_ID"), std::getenv("LICENSING_PUBLIC_KEY"), ""});
  licensing::Credentials device{argv[1], "", "", client.machine_id()};
  std::atomic<bool> lost{false};
  try {
    // Takes the seat now and renews it on its own thread; leaving this scope gives it back.
    licensing::Heartbeat seat = client.start_heartbeat(device, [&lost](const licensing::Error &why) {
      std::cerr << "The seat was lost: " << why.code() << "\n";
      lost = true;
    });
    std::cout << "Seat held\n";

    // ... the program's work, checking `lost` between steps ...
    licensing::Result usage = client.record_usage(device, "exports");
    std::cout << "Export counted: " << usage.data_json << "\n";
    if (lost) return 3;
  } catch (const licensing::Error &error) {
    if (error.code() == "SEATS_EXHAUSTED") std::cerr << "Every seat is in use (" << error.data_json() << ")\n";
    else std::cerr << "Not licensed: " << error.code() << "\n";
    return 1;
  }
  return 0;
}
