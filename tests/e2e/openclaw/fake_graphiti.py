#!/usr/bin/env python3
"""A fake Graphiti REST server for the OpenClaw end-to-end test, speaking the routes Cairn uses of
getzep/graphiti's `server/graph_service`: `GET /healthcheck` → {"status": "healthy"}; `POST /search`
{"group_ids": [..] | null, "query": str, "max_facts": int = 10} → {"facts": [FactResult, ..]}, with the
server's 422 (FastAPI's `detail` list) when `query` is missing or not a string.

Facts come from the facts file (a JSON list of {uuid, name, fact, valid_at, group_id}); a search returns those
sharing a word of four letters or more with the query (the real server ranks its nearest facts; Cairn holds
them to its own relevance floor either way), at most `max_facts`. Every search body is appended to the record
file as one JSON line.

usage: fake_graphiti.py --port-file FILE --facts FILE --record FILE
"""
import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def words(text):
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--facts", required=True)
    ap.add_argument("--record", required=True)
    args = ap.parse_args()
    with open(args.facts, encoding="utf-8") as f:
        facts = json.load(f)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def send_json(self, code, obj):
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/healthcheck":
                self.send_json(200, {"status": "healthy"})
            else:
                self.send_json(404, {"detail": "Not Found"})

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path != "/search":
                self.send_json(404, {"detail": "Not Found"})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self.send_json(422, {"detail": [{"type": "json_invalid", "loc": ["body", 0],
                                                 "msg": "JSON decode error", "input": {}}]})
                return
            if not isinstance(body, dict) or not isinstance(body.get("query"), str):
                self.send_json(422, {"detail": [{"type": "missing", "loc": ["body", "query"],
                                                 "msg": "Field required", "input": body}]})
                return
            with lock, open(args.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(body) + "\n")
            groups = body.get("group_ids")
            asked = words(body["query"])
            found = [
                {
                    "uuid": x["uuid"], "name": x["name"], "fact": x["fact"], "valid_at": x.get("valid_at"),
                    "invalid_at": None, "created_at": "2026-01-01T00:00:00Z", "expired_at": None,
                    "source_node_uuid": "n-" + x["uuid"], "target_node_uuid": "m-" + x["uuid"], "episodes": [],
                }
                for x in facts
                if (groups is None or x.get("group_id") in groups) and asked & words(x["fact"])
            ]
            self.send_json(200, {"facts": found[: int(body.get("max_facts") or 10)]})

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file, "w") as f:
        f.write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()
