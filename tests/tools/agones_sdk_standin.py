#!/usr/bin/env python3
"""A stand-in for the Agones SDK sidecar's local REST API, for tests (Agones itself needs Kubernetes).

It serves exactly the documented endpoints (agones.dev "REST Game Server Client API", the SDK's
sdk.swagger.json) with their documented bodies:

  POST /ready            {}                        state RequestReady -> Ready
  POST /health           {}                        a health ping
  POST /allocate         {}                        state -> Allocated (what a GameServerAllocation does)
  POST /shutdown         {}                        state -> Shutdown
  GET  /gameserver                                 the GameServer: object_meta, status.state/address/ports
  PUT  /metadata/label   {"key": K, "value": V}    label "agones.dev/sdk-K" = V
  GET  /watch/gameserver                           a stream of {"result": GameServer}, one per change

Anything else is 404; a POST/PUT whose body is not the documented JSON object is 400. Every request
is appended to --record FILE as one JSON line {"t": seconds since start, "method", "path", "body",
"status", "state"}. --start-after SECONDS binds the port only that late (a sidecar that comes up after
the game server). --game-port is the port reported in status.ports; --initial-state the state before
any call (default RequestReady). Python standard library only.
usage: agones_sdk_standin.py --port P --record FILE [--start-after S] [--game-port G] [--initial-state S]
"""
import argparse
import http.server
import json
import socketserver
import sys
import threading
import time

START = time.monotonic()


class GameServer:
    def __init__(self, game_port, state):
        self.lock = threading.Condition()
        self.state = state
        self.labels = {}
        self.game_port = game_port
        self.version = 0

    def doc(self):
        return {
            "object_meta": {"name": "blendsync-standin", "namespace": "default", "uid": "standin-1",
                            "resource_version": str(self.version), "generation": "1",
                            "creation_timestamp": "0", "annotations": {}, "labels": dict(self.labels)},
            "spec": {"health": {"disabled": False, "period_seconds": 5, "failure_threshold": 3,
                                "initial_delay_seconds": 5}},
            "status": {"state": self.state, "address": "127.0.0.1",
                       "ports": [{"name": "default", "port": self.game_port}]},
        }

    def change(self, fn):
        with self.lock:
            fn()
            self.version += 1
            self.lock.notify_all()


def make_handler(gs, record):
    rec_lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def note(self, body, status):
            with rec_lock, open(record, "a") as f:
                f.write(json.dumps({"t": round(time.monotonic() - START, 3), "method": self.command,
                                    "path": self.path, "body": body, "status": status,
                                    "state": gs.state}) + "\n")

        def send_json(self, status, obj):
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def read_body(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            try:
                return json.loads(raw.decode() or "null")
            except ValueError:
                return "<not json>"

        def do_POST(self):
            body = self.read_body()
            routes = {"/ready": "Ready", "/health": None, "/allocate": "Allocated", "/shutdown": "Shutdown"}
            if self.path not in routes:
                self.note(body, 404)
                return self.send_json(404, {"error": "not found"})
            if not isinstance(body, dict):
                self.note(body, 400)
                return self.send_json(400, {"error": "body must be a JSON object ({})"})
            new = routes[self.path]
            if new:
                gs.change(lambda: setattr(gs, "state", new))
            self.note(body, 200)
            self.send_json(200, {})

        def do_PUT(self):
            body = self.read_body()
            if self.path != "/metadata/label":
                self.note(body, 404)
                return self.send_json(404, {"error": "not found"})
            if not (isinstance(body, dict) and isinstance(body.get("key"), str) and isinstance(body.get("value"), str)):
                self.note(body, 400)
                return self.send_json(400, {"error": "body must be {\"key\": ..., \"value\": ...}"})
            gs.change(lambda: gs.labels.__setitem__("agones.dev/sdk-" + body["key"], body["value"]))
            self.note(body, 200)
            self.send_json(200, {})

        def do_GET(self):
            if self.path == "/gameserver":
                self.note(None, 200)
                with gs.lock:
                    doc = gs.doc()
                return self.send_json(200, doc)
            if self.path == "/watch/gameserver":
                self.note(None, 200)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                seen = -1
                try:
                    while True:
                        with gs.lock:
                            while gs.version == seen:
                                gs.lock.wait(1.0)
                            seen = gs.version
                            line = (json.dumps({"result": gs.doc()}) + "\n").encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
            self.note(None, 404)
            self.send_json(404, {"error": "not found"})

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--start-after", type=float, default=0.0)
    ap.add_argument("--game-port", type=int, default=7777)
    ap.add_argument("--initial-state", default="RequestReady",
                    help="the GameServer's state before any call (Allocated: a server restarted in its pod)")
    a = ap.parse_args()
    open(a.record, "w").close()
    time.sleep(a.start_after)
    gs = GameServer(a.game_port, a.initial_state)
    srv = Server(("127.0.0.1", a.port), make_handler(gs, a.record))
    print("standin listening on 127.0.0.1:%d" % a.port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
