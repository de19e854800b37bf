#!/usr/bin/env python3
"""Mock OpenAI-compatible model server for the OpenClaw end-to-end test.

Answers POST /v1/chat/completions (an SSE stream when the body says `stream: true`, one JSON object otherwise)
and appends every request body as one JSON line to the record file. The reply is chosen by the replies file:
a JSON object {trigger: reply}; the first trigger found in the user messages selects its reply, otherwise
the reply is "OK.". A reply may be {"tool": NAME, "arguments": {...}}: the model then calls that tool, and once
the conversation holds a tool result it answers "Done.". GET /v1/models lists the one model.

usage: mock_model.py --port-file FILE --record FILE --replies FILE [--model ID]
"""
import argparse
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


INJECTED = re.compile(r"<(cairn-context|cairn-task-context|pack-context|cairn-fallback)\b.*?</\1>", re.S)


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--replies", required=True)
    ap.add_argument("--model", default="mock-1")
    args = ap.parse_args()
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
            if self.path.rstrip("/").endswith("/models"):
                self.send_json(200, {"object": "list", "data": [{"id": args.model, "object": "model", "owned_by": "mock"}]})
            else:
                self.send_json(404, {"error": {"message": "not found"}})

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send_json(404, {"error": {"message": "not found"}})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self.send_json(400, {"error": {"message": "invalid json"}})
                return
            with lock:
                with open(args.record, "a", encoding="utf-8") as f:
                    f.write(json.dumps(body) + "\n")
            try:
                with open(args.replies, encoding="utf-8") as f:
                    replies = json.load(f)
            except (OSError, ValueError):
                replies = {}
            msgs = body.get("messages", [])
            users = [m for m in msgs if m.get("role") == "user"]
            # OpenClaw sends the prompt and then its own context as separate user messages: look in all of them,
            # but not inside injected context blocks (recalled turns there would trigger replies of their own).
            said = INJECTED.sub("", "\n".join(text_of(m.get("content")) for m in users))
            reply = next((r for t, r in replies.items() if t in said), "OK.")
            tool = None
            if isinstance(reply, dict):
                # OpenClaw appends its own user message after a tool result: any tool result ends the loop.
                if any(m.get("role") == "tool" for m in msgs):
                    reply = "Done."
                else:
                    tool, reply = reply, ""
            created = int(time.time())
            cid = f"chatcmpl-{created}"
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            if body.get("stream"):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()

                def chunk(delta, finish=None, extra=None):
                    obj = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": args.model,
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    if extra:
                        obj.update(extra)
                    self.wfile.write(f"data: {json.dumps(obj)}\n\n".encode())

                chunk({"role": "assistant", "content": ""})
                if tool:
                    chunk({"tool_calls": [{"index": 0, "id": f"call_{created}", "type": "function",
                                           "function": {"name": tool["tool"],
                                                        "arguments": json.dumps(tool.get("arguments", {}))}}]})
                    chunk({}, "tool_calls", {"usage": usage})
                else:
                    chunk({"content": reply})
                    chunk({}, "stop", {"usage": usage})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True
            else:
                message = {"role": "assistant", "content": reply or None}
                if tool:
                    message["tool_calls"] = [{"id": f"call_{created}", "type": "function",
                                              "function": {"name": tool["tool"],
                                                           "arguments": json.dumps(tool.get("arguments", {}))}}]
                self.send_json(200, {"id": cid, "object": "chat.completion", "created": created, "model": args.model,
                                     "choices": [{"index": 0, "finish_reason": "tool_calls" if tool else "stop",
                                                  "message": message}],
                                     "usage": usage})

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file, "w") as f:
        f.write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()
