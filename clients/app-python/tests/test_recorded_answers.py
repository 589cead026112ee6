"""The recorded answers every client library checks (clients/testdata/answers.json, see its README).

Each case goes through the code a live answer or a stored token goes through, and
must come out as the case says: verified with its message, a verified refusal
raising the service's code, or rejected with the case's code.
"""

import email.message
import json
import os
import tempfile
import unittest

from licensing_client import LicenseClient, LicenseError
from licensing_client import _license_file, _offline
from licensing_client._answers import PinnedKey

VECTORS_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "answers.json")

with open(VECTORS_FILE, encoding="utf-8") as vectors_file:
    VECTORS = json.load(vectors_file)


def _headers(fields):
    headers = email.message.Message()
    for name, value in fields.items():
        headers[name] = value
    return headers


def _outcome(call):
    try:
        return {"ok": True, "value": call()}
    except LicenseError as error:
        return {"code": error.code}


class RecordedAnswersTest(unittest.TestCase):
    def client(self, app_id=VECTORS["app_id"], token_file=None, now=0):
        return LicenseClient("http://127.0.0.1:9", app_id, VECTORS["public_key_pem"], token_file=token_file, clock=lambda: now)

    def test_every_recorded_answer_is_decided_as_its_case_expects(self):
        for vector in VECTORS["answers"]:
            with self.subTest(vector["name"]):
                request, answer, expected = vector["request"], vector["answer"], vector["expect"]
                decided = _outcome(
                    lambda: self.client()._decide(
                        answer["status"], _headers(answer["headers"]), answer["body"].encode("utf-8"), request["nonce"], request["content_digest"], request["license"]
                    )
                )
                if "message" in expected:
                    self.assertTrue(decided.get("ok"), decided)
                    self.assertEqual(decided["value"].message, expected["message"])
                else:
                    self.assertEqual(decided, {"code": expected.get("refused", expected.get("code"))})

    def test_every_recorded_token_is_decided_as_its_case_expects(self):
        for vector in VECTORS["tokens"]:
            with self.subTest(vector["name"]):
                client = self.client(app_id=vector["app_id"], now=vector["now"])
                if vector["nonce"] is not None:
                    decided = _outcome(lambda: client._token_claims(vector["token"], vector["nonce"], vector["license"], vector["hwid"]))
                else:
                    with tempfile.TemporaryDirectory() as folder:
                        token_file = os.path.join(folder, "token.json")
                        _offline.write(token_file, vector["token"], None)
                        client.token_file = token_file
                        network_error = LicenseError("NETWORK_ERROR")
                        decided = _outcome(lambda: client._offline(network_error, vector["license"], None, vector["hwid"]))
                if "ok" in vector["expect"]:
                    self.assertTrue(decided.get("ok"), decided)
                else:
                    self.assertEqual(decided, {"code": vector["expect"]["code"]})

    def test_every_recorded_license_file_is_decided_as_its_case_expects(self):
        pinned = PinnedKey(VECTORS["public_key_pem"])
        for vector in VECTORS["files"]:
            with self.subTest(vector["name"]):
                license, hwid = vector["license"], vector["hwid"]
                decided = _outcome(
                    lambda: _license_file.check_claims(
                        _license_file.open_file(vector["file"], pinned, license, hwid), vector["app_id"], license, hwid, vector["nonce"], vector["now"]
                    )
                )
                if "ok" in vector["expect"]:
                    self.assertTrue(decided.get("ok"), decided)
                    self.assertEqual((decided["value"]["sub"], decided["value"]["hwid"]), (license, hwid))
                else:
                    self.assertEqual(decided, {"code": vector["expect"]["code"]})


if __name__ == "__main__":
    unittest.main()
