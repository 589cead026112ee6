"""A test key that signs license files and offline tokens as the service makes them, and a stand-in for the service.

Files are a compact JWS (EdDSA, kid = the key's RFC 7638 thumbprint, typ license+jwt) carrying the offline token's
claims plus `data` and `air_gapped`, or a compact JWE (alg dir, enc A256GCM, cty license+jwt) holding one, keyed by
HKDF-SHA256(license key, salt HWID, info "license-file"). The stand-in answers the routes a test sets, signing each
answer as the service does (RFC 9421 over the status, the body's digest and the request's digest, with its nonce).
"""

import base64
import hashlib
import http.server
import json
import os
import threading
import time
import uuid

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

DAY = 86400


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def iso(seconds):
    """A time as the service and the clients write it: UTC, milliseconds, Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % round((seconds % 1) * 1000)


def decode_code(code, prefix):
    """The fields of an activation request or return code: `prefix`, then unpadded base64url of UTF-8 JSON."""
    assert code.startswith(prefix), code
    body = code[len(prefix) :]
    assert body and all(character.isalnum() or character in "-_" for character in body), body
    return json.loads(b64url_decode(body).decode("utf-8"))


class TestKey:
    """An Ed25519 key pair standing in for an application's signing key."""

    def __init__(self):
        self.private = Ed25519PrivateKey.generate()
        raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}
        self.kid = b64url(hashlib.sha256(('{"crv":"Ed25519","kty":"OKP","x":"%s"}' % self.jwk["x"]).encode()).digest())
        self.pem = self.private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def license_data(license, hwid, now, **fields):
    stamp = iso(now)
    return {
        "key": license,
        "created_at": stamp,
        "expires_at": None,
        "initial_duration": "lifetime",
        "first_used_at": stamp,
        "hwid_lock": True,
        "last_hwid_reset_at": None,
        "hwid_reset_cooldown": 0,
        "hwid_reset_allowed": True,
        "username": None,
        "last_login": stamp,
        "subscription_level": 2,
        "subscription_name": "Pro",
        "hwids": [hwid],
        "max_devices": 1,
        "features": ["export.pdf"],
        **fields,
    }


def file_key(license, hwid):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=hwid.encode("utf-8"), info=b"license-file").derive(license.encode("utf-8"))


def encrypt(jws, key, cty="license+jwt"):
    """A compact JWE (dir, A256GCM) of `jws`, as RFC 7516 builds one: the protected header's text is the AAD."""
    protected = b64url(json.dumps({"alg": "dir", "enc": "A256GCM", "cty": cty}).encode())
    iv = os.urandom(12)
    sealed = AESGCM(key).encrypt(iv, jws.encode("utf-8"), protected.encode("ascii"))
    return ".".join([protected, "", b64url(iv), b64url(sealed[:-16]), b64url(sealed[-16:])])


def _token_claims(app_id, license, hwid, now, lifetime):
    """An offline token's claims, for `lifetime` seconds from `now`."""
    return {
        "iss": app_id,
        "sub": license,
        "hwid": hwid,
        "hwids": [hwid],
        "subscription_name": "Pro",
        "subscription_level": 2,
        "expires_at": None,
        "features": ["export.pdf"],
        "iat": now,
        "nbf": now,
        "exp": now + lifetime,
        "jti": str(uuid.uuid4()),
    }


def mint_file(key, app_id, license, hwid, now, nonce=None, claims=None, header=None, signer=None, encrypt_for=None):
    """A license file; `claims` and `header` override the service's, `signer` signs instead of `key`, and
    `encrypt_for` ((license, hwid), or True for the file's own) makes it a JWE."""
    payload = {**_token_claims(app_id, license, hwid, now, 30 * DAY), "data": license_data(license, hwid, now), "air_gapped": nonce is not None}
    if nonce is not None:
        payload["nonce"] = nonce
    payload.update(claims or {})
    payload = {name: value for name, value in payload.items() if value is not None or name in ("expires_at",)}
    jws = jwt.encode(payload, (signer or key.private), algorithm="EdDSA", headers={"kid": key.kid, "typ": "license+jwt", **(header or {})})
    if not encrypt_for:
        return jws
    device = (license, hwid) if encrypt_for is True else encrypt_for
    return encrypt(jws, file_key(*device))


def mint_token(key, app_id, license, hwid, now, **claims):
    """An offline token as /auth gives it."""
    payload = {**_token_claims(app_id, license, hwid, now, 7 * DAY), **claims}
    return jwt.encode(payload, key.private, algorithm="EdDSA", headers={"kid": key.kid, "typ": "JWT"})


class StandIn:
    """The service on loopback for the routes a test sets: `answers[path]` is (status, body) or a function of the
    request body giving one; `seen` the (path, body) of every request."""

    def __init__(self, key):
        self.key = key
        self.answers = {}
        self.seen = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw)
                stand_in.seen.append((self.path, body))
                planned = stand_in.answers.get(self.path, (404, {"success": False, "message": "Not Found"}))
                status, answer = planned(body) if callable(planned) else planned
                payload = json.dumps(answer).encode()
                headers = stand_in.sign(status, payload, body.get("nonce"), self.headers.get("content-digest"))
                self.send_response(status)
                for name, value in {"content-type": "application/json", "content-length": str(len(payload)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *arguments):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def sign(self, status, body, nonce, request_digest):
        digest = "sha-256=:%s:" % base64.b64encode(hashlib.sha256(body).digest()).decode()
        params = '("@status" "content-digest" "content-digest";req);created=%d;keyid="%s";alg="ed25519";nonce="%s"' % (time.time(), self.key.kid, nonce)
        base = '"@status": %d\n"content-digest": %s\n"content-digest";req: %s\n"@signature-params": %s' % (status, digest, request_digest, params)
        signature = base64.b64encode(self.key.private.sign(base.encode("ascii"))).decode()
        return {"content-digest": digest, "signature-input": "sig1=" + params, "signature": "sig1=:%s:" % signature}

    def sent_to(self, path):
        return [body for seen_path, body in self.seen if seen_path == path][-1]

    def close(self):
        self._server.shutdown()
        self._server.server_close()
