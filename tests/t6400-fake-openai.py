#!/usr/bin/env python3
"""A tiny OpenAI-compatible chat server for tests/t6400-agents.sh.

    t6400-fake-openai.py DIR [SECONDS]

Listens on 127.0.0.1 on a free port, which it writes to DIR/port once it
is listening. POST /v1/chat/completions records the request (headers and
body) in DIR/request.N, then answers:

  - model "missing"            404 with an OpenAI error object
  - "Authorization: Bearer bad" 401 with an OpenAI error object
  - model "busy"               429 with an OpenAI error object
  - model "broken"             500 with an OpenAI error object
  - model "keyed"              401 with an OpenAI error object unless
                               "Authorization: Bearer sk-test-key" (a
                               server that needs a key), else as below
  - model "nostream"           one chat-completion JSON object, even when
                               a stream was asked for
  - model "slow"               the stream below, after 1.5 seconds
  - model "hang"               nothing at all: the request is read and
                               never answered (until the server stops)
  - model "stall"              the stream's first two chunks, then nothing
  - model "cut"                the stream's first two chunks, then the
                               connection closed before the answer's
                               announced length
  - model "plain500"           500 with a plain-text body, not JSON
  - model "html502"            502 with an HTML page
  - model "midstream-error"    a chunk, then an error event in the stream
  - model "huge-usage"         the stream, its usage counts past 2^63
                               (exact), a total of its own
  - model "odd-usage"          the stream, a count written 1e30
  - model "huge"               a stream of 17 MiB of text (more than a
                               reply may hold), cut off quietly when the
                               client goes away
  - model "json"               the stream below, its text a JSON object
                               {"name": "hermes", "tags": ["a"]}
  - model "json-bad"           the same, "name" a number
  - model "vision"             the stream, one chunk that describes every
                               content part of a list content (OpenAI's
                               image input): "text: ...", "image: TYPE, N
                               bytes, sha256 HEX" for each image_url data
                               URL decoded, "bad image URL" for another
  - model "code"               the replies below, with CODE's text: two
                               fenced code blocks (chat -x)
  - model "command"            the same with COMMAND's: one fenced command
  - "stream": true             a server-sent-event stream of three chunks,
                               then, when "stream_options" asks for it
                               ("include_usage": true), a chunk with no
                               choices and the usage (see below)
  - otherwise                  one chat-completion JSON object, whose text
                               says it was not streamed, with its usage

The usage it reports: prompt_tokens, the characters of the messages'
contents; completion_tokens, 3; total_tokens, their sum.

GET /v1/models lists MODELS as OpenAI does ({"object": "list", "data":
[{"id": ...}, ...]}), or 401 for "Authorization: Bearer bad"; it is
recorded as a POST is.

It serves at most 20 requests and stops by itself after SECONDS (default
30), so a test that forgets it leaves nothing running for long.
"""

import base64
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = ["Hello", " from the", " fake server"]
CODE = ["Try:\n\n```sh\nls -l\n", "```\n\nthen\n\n~~~\necho done\n", "echo again\n~~~\n"]
COMMAND = ["```sh\n", "echo ran-it\n", "```\n"]
MODELS = ["gpt-test-mini", "gpt-test-large", "llama3.2"]
LIFETIME = 30
MAX_REQUESTS = 300


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self):
        with self.server.lock:
            self.server.served += 1
            served = self.server.served
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        path = os.path.join(self.server.dir, "request.%d" % served)
        with open(path, "wb") as f:
            f.write(("%s %s\n" % (self.command, self.path)).encode())
            f.write(bytes(self.headers))
            f.write(body)
            f.write(b"\n")
        return body

    def do_GET(self):
        self.record()
        if self.path != "/v1/models":
            return self.error(404, "no route %s" % self.path)
        if self.headers.get("Authorization") == "Bearer bad":
            return self.error(401, "Incorrect API key provided")
        self.reply(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in MODELS]})

    def do_POST(self):
        body = self.record()
        if self.path != "/v1/chat/completions":
            return self.error(404, "no route %s" % self.path)
        if self.headers.get("Authorization") == "Bearer bad":
            return self.error(401, "Incorrect API key provided")
        try:
            request = json.loads(body)
        except ValueError:
            return self.error(400, "the body is not JSON")
        model = request.get("model")
        if model == "missing":
            return self.error(404, "model 'missing' not found")
        if model == "busy":
            return self.error(429, "Rate limit reached for requests")
        if model == "broken":
            return self.error(500, "The server had an error while processing your request")
        if model == "keyed" and self.headers.get("Authorization") != "Bearer sk-test-key":
            return self.error(401, "You didn't provide an API key")
        if model == "slow":
            time.sleep(1.5)
        if model == "hang":
            time.sleep(self.server.lifetime)
            return
        if model == "plain500":
            return self.raw(500, "text/plain", b"Internal Server Error")
        if model == "html502":
            page = b"<html><head><title>502</title></head><body><h1>502 Bad Gateway</h1></body></html>"
            return self.raw(502, "text/html", page)
        if model in ("stall", "cut", "midstream-error"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if model == "cut":
                self.send_header("Content-Length", "100000")
            self.end_headers()
            for piece in REPLY[:2]:
                chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
            if model == "midstream-error":
                error = {"error": {"message": "upstream overloaded", "type": "server_error"}}
                self.wfile.write(b"data: " + json.dumps(error).encode() + b"\n\n")
            elif model == "stall":
                time.sleep(self.server.lifetime)
            self.close_connection = True
            return
        prompt = sum(len(m.get("content") or "") for m in request.get("messages", []))
        usage = {"prompt_tokens": prompt, "completion_tokens": 3, "total_tokens": prompt + 3}
        if model == "huge-usage":
            usage = {"prompt_tokens": 9223372036854775807, "completion_tokens": 18446744073709551615,
                     "total_tokens": 7}
        raw_usage = None
        if model == "odd-usage":
            raw_usage = b'{"prompt_tokens":1e30,"completion_tokens":3}'
        if model == "huge":
            return self.huge()
        pieces = {"code": CODE, "command": COMMAND}.get(model, REPLY)
        if model in ("json", "json-bad"):
            pieces = ['{"name": ', '"hermes"' if model == "json" else "5", ', "tags": ["a"]}']
        if request.get("stream") and model != "nostream":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for piece in (describe_parts(request) if model == "vision" else pieces):
                chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
                time.sleep(0.05)
            if raw_usage is not None:
                self.wfile.write(b'data: {"choices":[],"usage":' + raw_usage + b"}\n\n")
            elif (request.get("stream_options") or {}).get("include_usage"):
                chunk = {"choices": [], "usage": usage}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
        else:
            text = "".join(pieces) + " (not streamed)"
            answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}], "usage": usage}
            self.reply(200, answer)

    def huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        chunk = {"choices": [{"index": 0, "delta": {"content": "a" * 65536}}]}
        event = b"data: " + json.dumps(chunk).encode() + b"\n\n"
        try:
            for _ in range(17 * 16):
                self.wfile.write(event)
            self.wfile.write(b"data: [DONE]\n\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def error(self, code, message):
        self.reply(code, {"error": {"message": message, "type": "invalid_request_error"}})

    def raw(self, code, kind, body):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client gone mid-answer (a test killed it) is no error


def describe_parts(request):
    """What the list contents of a request's messages hold, part by part."""
    said = []
    for message in request.get("messages", []):
        if not isinstance(message.get("content"), list):
            continue
        for part in message["content"]:
            if part.get("type") == "text":
                said.append("text: " + part.get("text", ""))
                continue
            url = (part.get("image_url") or {}).get("url", "")
            head, _, data = url.partition(";base64,")
            if part.get("type") != "image_url" or not head.startswith("data:"):
                said.append("bad image URL")
                continue
            raw = base64.b64decode(data, validate=True)
            said.append("image: %s, %d bytes, sha256 %s" % (head[5:], len(raw), hashlib.sha256(raw).hexdigest()))
    return ["\n".join(said) or "no parts"]


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.dir = sys.argv[1]
    server.served = 0
    server.lock = threading.Lock()
    server.timeout = 0.2
    port_file = os.path.join(server.dir, "port")
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(port_file + ".tmp", port_file)
    lifetime = float(sys.argv[2]) if len(sys.argv) > 2 else LIFETIME
    server.lifetime = lifetime
    deadline = time.time() + lifetime
    while time.time() < deadline and server.served < MAX_REQUESTS:
        server.handle_request()
    server.server_close()


if __name__ == "__main__":
    main()
