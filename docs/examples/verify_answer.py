# Verifies a signed /auth answer and its offline token with the application's public key alone.
# Usage: BASE_URL=... APP_ID=... LICENSE=... PUBLIC_JWK='{"kty":"OKP",...}' python3 verify_answer.py
import base64, hashlib, json, os, re, secrets, time, urllib.error, urllib.request

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def public_key(jwk):
    x = jwk["x"] + "=" * (-len(jwk["x"]) % 4)
    return Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(x))


def content_digest(body):
    """RFC 9530 Content-Digest of a body: send it with the request, then pass it to verify_answer."""
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"


def verify_answer(status, headers, body, jwk, nonce, request_digest=None, license=None, max_age_seconds=300):
    """Raises unless the answer was signed by this key, for this request (its Content-Digest and nonce),
    and, on success, is about the license asked for; returns the parsed body."""
    digest = content_digest(body)
    if headers.get("content-digest") != digest:
        raise ValueError("body does not match Content-Digest")
    sig_input = headers.get("signature-input") or ""
    created = re.search(r";created=(\d+)", sig_input)
    if not created:
        raise ValueError("no Signature-Input")
    # Rebuild the parameters we expect (our key, our request, our nonce) instead of trusting the ones sent.
    components = '"@status" "content-digest"' + (' "content-digest";req' if request_digest else "")
    params = '(%s);created=%s;keyid="%s";alg="ed25519"' % (components, created.group(1), jwk["kid"])
    if nonce:
        params += ';nonce="%s"' % nonce
    if sig_input != "sig1=" + params:
        raise ValueError("unexpected Signature-Input (another key, request or nonce)")
    if abs(time.time() - int(created.group(1))) > max_age_seconds:
        raise ValueError("signature too old")
    signature = re.fullmatch(r"sig1=:([A-Za-z0-9+/=]+):", headers.get("signature") or "")
    if not signature:
        raise ValueError("no signature")
    request_line = '\n"content-digest";req: %s' % request_digest if request_digest else ""
    base = '"@status": %d\n"content-digest": %s%s\n"@signature-params": %s' % (status, digest, request_line, params)
    public_key(jwk).verify(base64.b64decode(signature.group(1)), base.encode())  # raises InvalidSignature
    answer = json.loads(body)
    # A genuine answer about another license (one a relaying proxy holds) must not pass for ours.
    if license is not None and answer.get("success") and answer.get("data") and answer["data"].get("key") != license:
        raise ValueError("answer about another license")
    return answer


def verify_offline_token(token, jwk, app_id, nonce, license=None, hwid=None):
    """The claims, once signature, issuer, lifetime, nonce, license (sub) and, when given, device
    (hwid or one of hwids: a license without an HWID lock names none) check out."""
    claims = jwt.decode(token, public_key(jwk), algorithms=["EdDSA"], issuer=app_id)
    if nonce is not None and claims.get("nonce") != nonce:
        raise ValueError("offline token for another request")
    if license is not None and claims.get("sub") != license:
        raise ValueError("offline token for another license")
    if hwid is not None and claims.get("hwid") != hwid and hwid not in (claims.get("hwids") or []):
        raise ValueError("offline token for another device")
    return claims


if __name__ == "__main__":
    jwk = json.loads(os.environ["PUBLIC_JWK"])
    app_id, license = os.environ["APP_ID"], os.environ["LICENSE"]
    nonce = secrets.token_urlsafe(16)
    body = json.dumps({"app_id": app_id, "license": license, "nonce": nonce, "offline_token": True}).encode()
    request_digest = content_digest(body)
    request = urllib.request.Request(
        os.environ["BASE_URL"] + "/auth",
        data=body,
        headers={"content-type": "application/json", "content-digest": request_digest},
    )
    try:
        response = urllib.request.urlopen(request)
    except urllib.error.HTTPError as failure:
        response = failure
    headers = {name.lower(): value for name, value in response.headers.items()}
    answer = verify_answer(response.status, headers, response.read(), jwk, nonce, request_digest, license)
    claims = verify_offline_token(answer["data"]["offline_token"], jwk, app_id, nonce, license) if answer["success"] else None
    print(json.dumps({"verified": True, "status": response.status, "message": answer["message"], "claims": claims}))
