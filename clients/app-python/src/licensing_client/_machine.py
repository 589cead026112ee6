"""A device id for programs that have none of their own: stable per machine and user, meaningless elsewhere.

Sources, the first one found:
- Linux: /etc/machine-id, then /var/lib/dbus/machine-id (systemd's and D-Bus's per-installation id);
- macOS: IOPlatformUUID, read with `ioreg -rd1 -c IOPlatformExpertDevice`;
- Windows: MachineGuid under HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography;
- FreeBSD and others: /etc/hostid, then `kenv -q smbios.system.uuid`;
- anywhere else: the host name and the MAC address Python reports (uuid.getnode).
The user is the login name (getpass.getuser) and, on POSIX, the numeric user id.
"""

import getpass
import hashlib
import hmac
import os
import platform
import re
import subprocess
import sys
import uuid


def _read(path):
    try:
        with open(path, "r", encoding="utf-8") as handle:
            value = handle.read().strip()
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
    return found or "%s/%012x" % (platform.node(), uuid.getnode())


def _user():
    try:
        name = getpass.getuser()
    except (KeyError, OSError, ImportError):
        name = ""
    return "%s/%s" % (name, os.getuid()) if hasattr(os, "getuid") else name


def machine_id(app_id):
    """HMAC-SHA-256 of machine and user keyed with the app id: 64 hex digits, different for every application."""
    message = ("%s\n%s" % (machine_source(), _user())).encode("utf-8")
    return hmac.new(app_id.lower().encode("utf-8"), message, hashlib.sha256).hexdigest()
