"""A device id for programs that have none of their own: stable per machine and user, meaningless elsewhere.

Sources, the first one found:
- Linux: /etc/machine-id, then /var/lib/dbus/machine-id (systemd's and D-Bus's per-installation id);
- macOS: IOPlatformUUID, read with `ioreg -rd1 -c IOPlatformExpertDevice`;
- Windows: MachineGuid under HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography;
- FreeBSD and others: /etc/hostid, then `kenv -q smbios.system.uuid`;
- anywhere else: "host:" and the host name.
The user is the effective user's name (the password database's entry on POSIX, as Node's os.userInfo() reads it).
The value is the one the TypeScript, Go, C and C# libraries compute on the same machine for the same user and app.
"""

import getpass
import hashlib
import os
import platform
import re
import subprocess
import sys


def _read(path):
    """The file's first line, trimmed."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            value = handle.read().strip().split("\n")[0].strip()
    except OSError:
        return None
    return value or None


def _command(arguments, pattern=None):
    try:
        output = subprocess.run(arguments, capture_output=True, text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    if pattern is None:
        return output.strip() or None
    found = re.search(pattern, output)
    return found.group(1) if found else None


def _windows_guid():
    try:
        import winreg  # Windows only

        with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography", 0, winreg.KEY_READ | winreg.KEY_WOW64_64KEY) as key:
            return str(winreg.QueryValueEx(key, "MachineGuid")[0]) or None
    except (ImportError, OSError):
        return None


def machine_source():
    """The raw machine identifier, before hashing (never send this one)."""
    if sys.platform.startswith("linux"):
        found = _read("/etc/machine-id") or _read("/var/lib/dbus/machine-id")
    elif sys.platform == "darwin":
        found = _command(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"], r'"IOPlatformUUID"\s*=\s*"([^"]+)"')
    elif sys.platform in ("win32", "cygwin"):
        found = _windows_guid()
    else:
        found = _read("/etc/hostid") or _command(["kenv", "-q", "smbios.system.uuid"])
    return found or "host:%s" % platform.node()


def _user():
    if hasattr(os, "geteuid"):
        try:
            import pwd  # POSIX only

            return pwd.getpwuid(os.geteuid()).pw_name
        except (ImportError, KeyError):
            # A user id without an entry has no name, as Node's os.userInfo() would fail to give one.
            return ""
    try:
        return getpass.getuser()
    except (KeyError, OSError, ImportError):
        return ""


def machine_id(app_id):
    """SHA-256 (hex) of "licensing-machine-id-v1", the app id, the machine's id and the user, joined by NUL bytes:
    64 hex digits, different for every application, revealing neither id."""
    return hashlib.sha256("\0".join(("licensing-machine-id-v1", app_id, machine_source(), _user())).encode("utf-8")).hexdigest()
