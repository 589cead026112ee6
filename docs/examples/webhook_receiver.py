# A webhook receiver that verifies each delivery with the official Standard Webhooks library
# (pip install standardwebhooks). Usage: WEBHOOK_SECRET=whsec_... PORT=8080 python3 webhook_receiver.py
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook

webhook = Webhook(os.environ["WEBHOOK_SECRET"])
seen = set()  # webhook-id of events handled: a retry or redelivery sends the same id again


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            # Verify the exact bytes received, before parsing: checks the signature and that the timestamp is recent.
            event = webhook.verify(body, {name.lower(): value for name, value in self.headers.items()})
        except Exception:
            self.send_response(400)
            self.end_headers()
            return
        if event["id"] not in seen:
            seen.add(event["id"])
            print(json.dumps({"verified": True, "id": event["id"], "type": event["type"], "subject": event["subject"]}), flush=True)
        # Answer 2xx quickly (within 15 seconds); do slow work after answering.
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Receiver)
print(json.dumps({"listening": server.server_address[1]}), flush=True)
sys.stdout.flush()
server.serve_forever()
