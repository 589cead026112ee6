"""Verification of signed answers (RFC 9421 over an RFC 9530 digest) with a pinned Ed25519 key.

What is signed and how is described in the repository's docs/verifying-answers.md.
"""

import base64
import hashlib
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ._fields import FieldError, parse_dictionary, serialize_inner_list

# The components every answer must cover: ours is a request that always carries
# its Content-Digest, so the answer must be bound to it too (a relaying proxy
# that sends another body cannot hand us the answer to its own request).
EXPECTED_COMPONENTS = [("@status", {}), ("content-digest", {}), ("content-digest", {"req": True})]
EXPECTED_PARAMETERS = {"created", "keyid", "alg", "nonce"}


class Rejected(Exception):
    """An answer (or token) that does not verify; the reason is for logs, never for trust."""


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class PinnedKey:
    """The application's public key as shipped in the program: never fetched at run time."""

    def __init__(self, public_key):
        if isinstance(public_key, str) and public_key.lstrip().startswith("{"):
            public_key = json.loads(public_key)
        if isinstance(public_key, dict):
            if public_key.get("kty") != "OKP" or public_key.get("crv") != "Ed25519" or not isinstance(public_key.get("x"), str):
                raise ValueError("public_key: an Ed25519 JWK ({kty: OKP, crv: Ed25519, x}) is expected")
            raw = _b64url_decode(public_key["x"])
            if len(raw) != 32:
                raise ValueError("public_key: x is not a 32-byte Ed25519 key")
            self.key = Ed25519PublicKey.from_public_bytes(raw)
        elif isinstance(public_key, (str, bytes)):
            pem = public_key.encode("ascii") if isinstance(public_key, str) else public_key
            loaded = serialization.load_pem_public_key(pem)
            if not isinstance(loaded, Ed25519PublicKey):
                raise ValueError("public_key: the PEM is not an Ed25519 public key")
            self.key = loaded
            raw = loaded.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        else:
            raise TypeError("public_key: a PEM string or a JWK dict is expected")
        # RFC 7638 thumbprint: the key id the service names in every signature and token.
        canonical = '{"crv":"Ed25519","kty":"OKP","x":"%s"}' % _b64url(raw)
        self.kid = _b64url(hashlib.sha256(canonical.encode("ascii")).digest())
        if isinstance(public_key, dict) and public_key.get("kid") not in (None, self.kid):
            raise ValueError("public_key: kid is not the RFC 7638 thumbprint of x")


def content_digest(body):
    """RFC 9530 Content-Digest (sha-256) of body bytes."""
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii") + ":"


def _single(headers, name):
    values = headers.get_all(name) or []
    if len(values) != 1:
        raise Rejected("expected exactly one %s header, got %d" % (name, len(values)))
    return values[0].strip(" \t")


def verify_answer(pinned, status, headers, body, nonce, request_digest):
    """The parsed JSON body, once the answer is proven to be the service's answer to this very request.

    Expected parameters are checked one by one (our key, our nonce, our request's
    digest) rather than trusted, then the signature base is rebuilt and verified.
    """
    digest_field = _single(headers, "content-digest")
    try:
        digests = parse_dictionary(digest_field)
        sig_inputs = parse_dictionary(_single(headers, "signature-input"))
        signatures = parse_dictionary(_single(headers, "signature"))
    except FieldError as error:
        raise Rejected("malformed signature field: %s" % error) from error
    if digests.get("sha-256", (None,))[0] != hashlib.sha256(body).digest():
        raise Rejected("body does not match Content-Digest")
    if "sig1" not in sig_inputs or "sig1" not in signatures:
        raise Rejected("no sig1 signature")
    components, params = sig_inputs["sig1"]
    signature = signatures["sig1"][0]
    if not isinstance(components, list) or not isinstance(signature, bytes):
        raise Rejected("malformed sig1")
    if components != EXPECTED_COMPONENTS:
        raise Rejected("the signature does not cover status, body digest and request digest")
    # Parameters beyond these would change what the signature means (an expiry, a tag): refuse rather than ignore.
    if set(params) != EXPECTED_PARAMETERS:
        raise Rejected("unexpected signature parameters")
    if params["keyid"] != pinned.kid or params["alg"] != "ed25519":
        raise Rejected("signed with another key")
    if params["nonce"] != nonce:
        raise Rejected("answer to another request (nonce)")
    if not isinstance(params["created"], int):
        raise Rejected("malformed created")
    # No freshness window on `created`: the fresh nonce already proves the answer is this request's,
    # and a window would refuse every answer on a machine whose clock is off.
    base = "\n".join(
        [
            '"@status": %d' % status,
            '"content-digest": %s' % digest_field,
            '"content-digest";req: %s' % request_digest,
            '"@signature-params": %s' % serialize_inner_list(components, params),
        ]
    )
    try:
        pinned.key.verify(signature, base.encode("ascii"))
    except InvalidSignature as error:
        raise Rejected("bad signature") from error
    try:
        answer = json.loads(body)
    except ValueError as error:
        raise Rejected("signed body is not JSON") from error
    if not isinstance(answer, dict) or not isinstance(answer.get("success"), bool):
        raise Rejected("signed body is not an answer")
    return answer


def has_signature(headers):
    return any(headers.get_all(name) for name in ("signature", "signature-input", "content-digest"))
