/*
 * The operating system's own id of this installation, and the user's name:
 * the inputs of lc_machine_id, read from the same sources as the other client
 * libraries of this service read them, so one machine gets one id in each.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(_WIN32)
/* RegGetValueA is Vista's and later. */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0600
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0600
#endif
#include <windows.h>
#else
#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#if defined(__APPLE__)
#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/IOKitLib.h>
#endif

#if defined(__FreeBSD__)
#include <kenv.h>
#endif

#if defined(__linux__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
/* The file's first line once surrounding white space is trimmed; NULL when unreadable or empty. */
static char *first_line(const char *path) {
  FILE *file = fopen(path, "r");
  if (file == NULL) return NULL;
  char text[512];
  size_t length = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  text[length] = '\0';
  char *start = text;
  while (*start && isspace((unsigned char)*start)) start++;
  size_t end = strcspn(start, "\n");
  while (end > 0 && isspace((unsigned char)start[end - 1])) end--;
  start[end] = '\0';
  return *start ? lc__strdup(start) : NULL;
}
#endif

#if defined(__APPLE__)
/* IOPlatformUUID of IOPlatformExpertDevice: the hardware UUID `ioreg -rd1 -c IOPlatformExpertDevice` shows. */
static char *platform_uuid(void) {
  io_service_t device = IOServiceGetMatchingService(0, IOServiceMatching("IOPlatformExpertDevice"));
  if (device == 0) return NULL;
  CFTypeRef uuid = IORegistryEntryCreateCFProperty(device, CFSTR(kIOPlatformUUIDKey), kCFAllocatorDefault, 0);
  IOObjectRelease(device);
  char text[128];
  int ok = uuid != NULL && CFGetTypeID(uuid) == CFStringGetTypeID() && CFStringGetCString((CFStringRef)uuid, text, sizeof text, kCFStringEncodingUTF8);
  if (uuid != NULL) CFRelease(uuid);
  return ok && text[0] ? lc__strdup(text) : NULL;
}
#endif

#if defined(_WIN32)
/* MachineGuid under HKLM\SOFTWARE\Microsoft\Cryptography, from the 64-bit view whatever this process is. */
static char *machine_guid(void) {
  char text[128];
  DWORD size = sizeof text;
  if (RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid", RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, NULL, text, &size) !=
      ERROR_SUCCESS)
    return NULL;
  return text[0] ? lc__strdup(text) : NULL;
}
#endif

char *lc__machine_source(void) {
  char *found = NULL;
#if defined(__linux__)
  found = first_line("/etc/machine-id");
  if (found == NULL) found = first_line("/var/lib/dbus/machine-id");
#elif defined(__APPLE__)
  found = platform_uuid();
#elif defined(_WIN32)
  found = machine_guid();
#elif defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
  found = first_line("/etc/hostid");
#if defined(__FreeBSD__)
  if (found == NULL) {
    char uuid[128];
    if (kenv(KENV_GET, "smbios.system.uuid", uuid, sizeof uuid) > 0 && uuid[0]) found = lc__strdup(uuid);
  }
#endif
#endif
  if (found != NULL) return found;
  char host[256] = "";
#if defined(_WIN32)
  DWORD size = sizeof host;
  GetComputerNameExA(ComputerNameDnsHostname, host, &size);
#else
  gethostname(host, sizeof host - 1);
#endif
  return lc__format("host:%s", host);
}

char *lc__user_name(void) {
#if defined(_WIN32)
  wchar_t wide[257];
  DWORD size = 257;
  if (!GetUserNameW(wide, &size)) return lc__strdup("");
  char name[1024];
  int length = WideCharToMultiByte(CP_UTF8, 0, wide, -1, name, sizeof name, NULL, NULL);
  return length > 0 ? lc__strdup(name) : lc__strdup("");
#else
  /* The effective user's entry, as Node's os.userInfo() reads it; none (a user id without an entry) gives an empty name. */
  struct passwd entry, *found = NULL;
  char buffer[4096];
  if (getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found) != 0 || found == NULL) return lc__strdup("");
  return lc__strdup(found->pw_name);
#endif
}
