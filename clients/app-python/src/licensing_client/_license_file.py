"""License files: a compact JWS (`typ: license+jwt`) signed by the application's key, or a compact JWE holding one.

An encrypted file is `alg: dir`, `enc: A256GCM`, `cty: license+jwt`, its key HKDF-SHA256 of the license key (input
key material), the HWID (salt) and "license-file" (info): only a program that knows the key and runs on the device
reads it. PyJWT has no JWE, so the five parts are read here and decrypted with `cryptography`'s AES-GCM, the protected
header's base64url text as the additional data, as RFC 7516 says.
"""

import base64
import json
import re

import jwt
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ._errors import LicenseError
from ._offline import names_device
from ._state import iso

# The service's `iat` may be a little ahead of a computer's clock that is right: `nbf` (= `iat`) gets this leeway, `exp` none.
NBF_LEEWAY_SECONDS = 60
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def mismatch(detail):
    return LicenseError("LICENSE_FILE_MISMATCH", detail=detail)


def _decode(part):
    if not _BASE64URL.fullmatch(part) or len(part) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def encode_code(prefix, fields):
    """`prefix` and the base64url (no padding) of the fields' UTF-8 JSON: activation requests (lfr1.), return codes (lfx1.)."""
    raw = json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return prefix + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def file_key(license, hwid):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=hwid.encode("utf-8"), info=b"license-file").derive(license.encode("utf-8"))


def _decrypt(compact, license, hwid):
    protected, encrypted_key, iv, ciphertext, tag = compact.split(".")
    try:
        header = json.loads(_decode(protected))
        iv, ciphertext, tag = _decode(iv), _decode(ciphertext), _decode(tag)
    except ValueError as error:
        raise mismatch("the text is no license file") from error
    if not isinstance(header, dict) or (header.get("alg"), header.get("enc"), header.get("cty")) != ("dir", "A256GCM", "license+jwt"):
        raise mismatch("the encrypted text is no license file (alg dir, enc A256GCM, cty license+jwt)")
    # Compression and critical extensions are not part of the format: refused rather than half understood.
    if "zip" in header or "crit" in header or encrypted_key or len(iv) != 12 or len(tag) != 16:
        raise mismatch("the encrypted license file is not in the service's form")
    try:
        plaintext = AESGCM(file_key(license, hwid)).decrypt(iv, ciphertext + tag, protected.encode("ascii"))
        return plaintext.decode("utf-8")
    except (InvalidTag, UnicodeDecodeError) as error:
        raise mismatch("the encrypted license file does not decrypt with this license key and device") from error


def open_file(text, pinned, license, hwid):
    """The claims of a license file once decrypted with the key of this license and device (LICENSE_FILE_MISMATCH when
    it is no file or does not decrypt: made for another license or device, or altered) and its signature verified with
    the pinned key (INVALID_SIGNATURE). The claims themselves are judged by check_claims."""
    compact = text.strip() if isinstance(text, str) else ""
    parts = compact.count(".") + 1
    if parts == 5:
        jws = _decrypt(compact, license, hwid)
    elif parts == 3:
        jws = compact
    else:
        raise mismatch("the text is no license file")
    try:
        kid = jwt.get_unverified_header(jws).get("kid")
    except jwt.PyJWTError as error:
        raise mismatch("the text is no license file") from error
    if kid != pinned.kid:
        raise LicenseError("INVALID_SIGNATURE", detail="the license file is signed with another key")
    try:
        verified = jwt.PyJWS().decode_complete(jws, pinned.key, algorithms=["EdDSA"])
    except jwt.PyJWTError as error:
        raise LicenseError("INVALID_SIGNATURE", detail="the license file does not verify: %s" % error) from error
    # Checked once the signature holds, so an offline token or another signed document is a mismatch, not a forgery.
    if verified["header"].get("typ") != "license+jwt":
        raise mismatch("the signed text is a %s, not a license file" % verified["header"].get("typ"))
    try:
        claims = json.loads(verified["payload"])
    except ValueError as error:
        raise mismatch("the license file holds no claims") from error
    if not isinstance(claims, dict):
        raise mismatch("the license file holds no claims")
    return claims


def _is_time(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_claims(claims, app_id, license, hwid, nonce=None, now=None):
    """The claims when the file names this application, license and device (and request, when `nonce` is given) and
    holds its license data, else LICENSE_FILE_MISMATCH; judged by `now` (seconds) when given: before `nbf`,
    LICENSE_FILE_MISMATCH; from `exp`, LICENSE_FILE_EXPIRED. A file that came with its request's nonce is fresh and is
    not judged by a clock that may be wrong."""
    if claims.get("iss") != app_id:
        raise mismatch("the license file is for another application")
    if claims.get("sub") != license:
        raise mismatch("the license file is for another license")
    if not names_device(claims, hwid):
        raise mismatch("the license file is for another device")
    data = claims.get("data")
    if not isinstance(data, dict) or data.get("key") != license:
        raise mismatch("the license file holds no license data of its license")
    if not isinstance(claims.get("jti"), str) or not all(_is_time(claims.get(name)) for name in ("iat", "nbf", "exp")):
        raise mismatch("the license file lacks its jti, iat, nbf or exp")
    if nonce is not None and claims.get("nonce") != nonce:
        raise mismatch("the license file was made for another request")
    if now is not None:
        if now + NBF_LEEWAY_SECONDS < claims["nbf"]:
            raise mismatch("the license file is valid from %s only" % iso(claims["nbf"]))
        if now >= claims["exp"]:
            raise LicenseError("LICENSE_FILE_EXPIRED", data={"expired_at": iso(claims["exp"])}, detail="the license file has expired")
    return claims


def peek_license(text):
    """The unverified `sub` of a signed (not encrypted) file: which license it is about, for a check by username."""
    try:
        sub = jwt.decode(text.strip(), options={"verify_signature": False}).get("sub")
    except jwt.PyJWTError:
        return None
    return sub if isinstance(sub, str) else None
