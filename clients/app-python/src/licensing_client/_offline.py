"""Offline tokens: checked as they arrive, kept in the program's file, and trusted offline only while valid."""

import json
import os
import unicodedata

import jwt

from ._answers import Rejected
from ._state import replace_file


def _normal_username(name):
    return unicodedata.normalize("NFC", name.strip()).lower()


def same_username(a, b):
    """Usernames as the service compares them: trimmed, Unicode NFC, in any case."""
    return isinstance(a, str) and isinstance(b, str) and _normal_username(a) == _normal_username(b)


def names_device(claims, hwid):
    """A token of a device-locked license names its devices; one of an unlocked license names none."""
    devices = [device for device in [claims.get("hwid"), *(claims.get("hwids") or [])] if device]
    if not devices:
        return True
    return hwid in devices


def decode(pinned, app_id, token):
    """The claims once signature, key id and issuer check out; times are the caller's to judge (its clock)."""
    try:
        if jwt.get_unverified_header(token).get("kid") != pinned.kid:
            raise Rejected("offline token of another key")
        return jwt.decode(
            token,
            pinned.key,
            algorithms=["EdDSA"],
            issuer=app_id,
            options={"verify_exp": False, "verify_nbf": False, "verify_iat": False, "require": ["iss", "sub", "exp", "nbf"]},
        )
    except jwt.PyJWTError as error:
        raise Rejected("offline token does not verify: %s" % error) from error


def read(path):
    """The stored record ({token, username}), or None when there is none or it is unreadable."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("token"), str):
        return None
    return record


def write(path, token, username):
    """Replaces the token file whole (see _state.replace_file)."""
    replace_file(path, json.dumps({"token": token, "username": username}))


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
