# Verifies a signed /auth answer and its offline token with the application's public key alone.
# Usage: BASE_URL=... APP_ID=... LICENSE=... PUBLIC_JWK='{"kty":"OKP",...}' python3 verify_answer.py
import base64, hashlib, json, os, re, secrets, time, urllib.error, urllib.request

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def public_key(jwk):
    x = jwk["x"] + "=" * (-len(jwk["x"]) % 4)
    return Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(x))


def verify_answer(status, headers, body, jwk, nonce, max_age_seconds=300):
    """Raises unless the answer was signed by this key, for this request's nonce; returns the parsed body."""
    digest = "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"
    if headers.get("content-digest") != digest:
        raise ValueError("body does not match Content-Digest")
    sig_input = headers.get("signature-input") or ""
    created = re.search(r";created=(\d+)", sig_input)
    if not created:
        raise ValueError("no Signature-Input")
    # Rebuild the parameters we expect (our key, our nonce) instead of trusting the ones sent.
    params = '("@status" "content-digest");created=%s;keyid="%s";alg="ed25519"' % (created.group(1), jwk["kid"])
    if nonce:
        params += ';nonce="%s"' % nonce
    if sig_input != "sig1=" + params:
        raise ValueError("unexpected Signature-Input (another key or another nonce)")
    if abs(time.time() - int(created.group(1))) > max_age_seconds:
        raise ValueError("signature too old")
    signature = re.fullmatch(r"sig1=:([A-Za-z0-9+/=]+):", headers.get("signature") or "")
    if not signature:
        raise ValueError("no signature")
    base = '"@status": %d\n"content-digest": %s\n"@signature-params": %s' % (status, digest, params)
    public_key(jwk).verify(base64.b64decode(signature.group(1)), base.encode())  # raises InvalidSignature
    return json.loads(body)


def verify_offline_token(token, jwk, app_id, nonce):
    claims = jwt.decode(token, public_key(jwk), algorithms=["EdDSA"], issuer=app_id)
    if nonce is not None and claims.get("nonce") != nonce:
        raise ValueError("offline token for another request")
    return claims


if __name__ == "__main__":
    jwk = json.loads(os.environ["PUBLIC_JWK"])
    app_id = os.environ["APP_ID"]
    nonce = secrets.token_urlsafe(16)
    request = urllib.request.Request(
        os.environ["BASE_URL"] + "/auth",
        data=json.dumps({"app_id": app_id, "license": os.environ["LICENSE"], "nonce": nonce, "offline_token": True}).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        response = urllib.request.urlopen(request)
    except urllib.error.HTTPError as failure:
        response = failure
    headers = {name.lower(): value for name, value in response.headers.items()}
    answer = verify_answer(response.status, headers, response.read(), jwk, nonce)
    claims = verify_offline_token(answer["data"]["offline_token"], jwk, app_id, nonce) if answer["success"] else None
    print(json.dumps({"verified": True, "status": response.status, "message": answer["message"], "claims": claims}))
