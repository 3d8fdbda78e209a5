#!/usr/bin/env python3
"""A local HTTP server that holds requests. Prints its port, then serves:

POST /hold      waits, unanswered, until /release; then answers 200 {}
GET  /counts    {"held": requests waiting now, "seen": requests received}
POST /release   lets every held request (and every later one) through
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
released = threading.Event()
counts = {"held": 0, "seen": 0}


class Hold(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        if self.path == "/hold":
            with lock:
                counts["seen"] += 1
                counts["held"] += 1
            released.wait()
            with lock:
                counts["held"] -= 1
            self.answer({})
        elif self.path == "/release":
            released.set()
            self.answer({})
        else:
            self.send_response(404)
            self.end_headers()

    def do_GET(self):
        with lock:
            self.answer(dict(counts))

    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", 0), Hold)
print(server.server_address[1], flush=True)
server.serve_forever()
