"""The verifier without a server: fixed vectors (the service's own unit tests sign the same bytes) and the strict parser."""

import ast
import base64
import email.message
import os
import unittest

from cryptography.hazmat.primitives import serialization

from licensing_client._answers import PinnedKey, Rejected, content_digest, verify_answer
from licensing_client._fields import FieldError, parse_dictionary, serialize_inner_list

# RFC 9421 Appendix B.1.4, test-key-ed25519.
RFC_PUBLIC_KEY = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"
REQUEST_BODY = b'{"app_id":"3f0c7f2e-4b1a-4c55-9d7e-0b7f1c2d3e4f","license":"7K2QX-M4TZP-9W3RD-HV8NB-C6YJE","nonce":"n0nce-0001"}'
ANSWER_BODY = b'{"success":true,"message":"LICENSE_VERIFIED_USED_AND_LOCKED_KEY"}'
ANSWER_HEADERS = {
    "Content-Digest": "sha-256=:vHLAVzDNfXDFU6HlyWIxLPbAQVoO7d6/Ii7e1/cIqvE=:",
    "Signature-Input": 'sig1=("@status" "content-digest" "content-digest";req);created=1763856000;keyid="test-key-ed25519";alg="ed25519";nonce="n0nce-0001"',
    "Signature": "sig1=:FF0P7ylI1qrjVdaDn0CU0gwtZ3/gzTBHeVUTT3c69romklOGgRV5rlBeWGIhSURh374cA3Jd4qSgICYcadJ5DQ==:",
}


def headers_of(fields):
    message = email.message.Message()
    for name, value in fields.items():
        message[name] = value
    return message


def rfc_key():
    pinned = PinnedKey(RFC_PUBLIC_KEY)
    pinned.kid = "test-key-ed25519"  # the vector names the RFC's key id rather than its thumbprint
    return pinned


class FixedVectorTest(unittest.TestCase):
    def test_digests_the_request_body_as_the_service_does(self):
        self.assertEqual(content_digest(REQUEST_BODY), "sha-256=:DhJMSqNiEkO7ep1IJIZ3tkFc8dOj6O+ub2tjum+e8+k=:")
        self.assertEqual(content_digest(b""), "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:")

    def test_verifies_the_fixed_answer_for_its_request_and_nonce(self):
        answer = verify_answer(rfc_key(), 200, headers_of(ANSWER_HEADERS), ANSWER_BODY, "n0nce-0001", content_digest(REQUEST_BODY))
        self.assertEqual(answer, {"success": True, "message": "LICENSE_VERIFIED_USED_AND_LOCKED_KEY"})

    def test_refuses_it_for_another_request_nonce_status_key_or_a_second_header(self):
        other_request = content_digest(REQUEST_BODY.replace(b"7K2QX", b"7K2QY"))
        cases = {
            "another request": (200, ANSWER_HEADERS, "n0nce-0001", other_request),
            "another nonce": (200, ANSWER_HEADERS, "n0nce-0002", content_digest(REQUEST_BODY)),
            "another status": (403, ANSWER_HEADERS, "n0nce-0001", content_digest(REQUEST_BODY)),
        }
        for name, (status, fields, nonce, request_digest) in cases.items():
            with self.subTest(name):
                with self.assertRaises(Rejected):
                    verify_answer(rfc_key(), status, headers_of(fields), ANSWER_BODY, nonce, request_digest)
        with self.assertRaises(Rejected):
            verify_answer(PinnedKey(RFC_PUBLIC_KEY), 200, headers_of(ANSWER_HEADERS), ANSWER_BODY, "n0nce-0001", content_digest(REQUEST_BODY))
        doubled = headers_of(ANSWER_HEADERS)
        doubled["Signature"] = ANSWER_HEADERS["Signature"]
        with self.assertRaises(Rejected):
            verify_answer(rfc_key(), 200, doubled, ANSWER_BODY, "n0nce-0001", content_digest(REQUEST_BODY))

    def test_refuses_a_signature_without_the_request_digest_or_with_extra_parameters(self):
        for signature_input in (
            'sig1=("@status" "content-digest");created=1763856000;keyid="test-key-ed25519";alg="ed25519";nonce="n0nce-0001"',
            'sig1=("@status" "content-digest" "content-digest";req);created=1763856000;keyid="test-key-ed25519";alg="ed25519";nonce="n0nce-0001";expires=1',
        ):
            with self.subTest(signature_input), self.assertRaises(Rejected):
                verify_answer(rfc_key(), 200, headers_of({**ANSWER_HEADERS, "Signature-Input": signature_input}), ANSWER_BODY, "n0nce-0001", content_digest(REQUEST_BODY))

    def test_pins_a_pem_and_its_jwk_to_the_same_rfc_7638_key_id(self):
        pem_key = PinnedKey(RFC_PUBLIC_KEY)
        raw = pem_key.key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        self.assertEqual(PinnedKey({"kty": "OKP", "crv": "Ed25519", "x": x}).kid, pem_key.kid)
        self.assertRegex(pem_key.kid, r"^[A-Za-z0-9_-]{43}$")


class StructuredFieldTest(unittest.TestCase):
    def test_parses_and_serialises_what_the_service_sends(self):
        text = ANSWER_HEADERS["Signature-Input"]
        parsed = parse_dictionary(text)
        self.assertEqual(parsed["sig1"][0], [("@status", {}), ("content-digest", {}), ("content-digest", {"req": True})])
        self.assertEqual(parsed["sig1"][1]["created"], 1763856000)
        self.assertEqual("sig1=" + serialize_inner_list(*parsed["sig1"]), text)
        self.assertEqual(parse_dictionary('a="x\\"y\\\\z", b=:AAE=:;p=1')["a"][0], 'x"y\\z')
        self.assertEqual(parse_dictionary('a="x", b=:AAE=:;p=1')["b"], (b"\x00\x01", {"p": 1}))

    def test_refuses_every_shape_the_service_does_not_send(self):
        for text in ("", "a", "a=?1", "a=1.5", "a=token", 'a="x', 'a="\\n"', 'a="é"', "a=1,", "A=1", "a=:not base64!:", 'a=(1 2)', 'a=("x"', 'a=("x""y")', "a=1 b=2"):
            with self.subTest(text=text), self.assertRaises(FieldError):
                parse_dictionary(text)


class PythonVersionTest(unittest.TestCase):
    def test_the_package_and_its_examples_are_python_3_9_grammar(self):
        project = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for folder in ("src/licensing_client", "examples"):
            for name in sorted(os.listdir(os.path.join(project, folder))):
                if name.endswith(".py"):
                    with self.subTest(file=name), open(os.path.join(project, folder, name), encoding="utf-8") as handle:
                        ast.parse(handle.read(), filename=name, feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
