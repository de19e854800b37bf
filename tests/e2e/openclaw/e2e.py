#!/usr/bin/env python3
"""End-to-end test of the Cairn OpenClaw plugin inside the real OpenClaw host.

Harvests a small workspace (one public and one private memory) with a routing config (a public and a private
pack), starts a mock OpenAI-compatible model server and a fake Graphiti (a remote source) on 127.0.0.1 and
`openclaw gateway` with the plugin (whose managed service starts `cairn serve`), runs `openclaw agent` turns through the gateway and two one-shot
`openclaw agent --local` runs, and asserts on the model requests the mock recorded.

usage: e2e.py --cairn BIN --openclaw BIN --plugin DIR [--keep]
(run by tests/e2e/openclaw/run.sh, which installs Node and OpenClaw and builds cairn first)
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Markers planted in the fixture; each appears in exactly one place.
PUBMEM = "PUBMEM-7Q2X"  # public memory (memory/greenhouse.md)
PRIVMEM = "PRIVMEM-9K4Z"  # private memory (memory/supplier-ledger.md)
PUBPACK = "PUBPACK-4M1R"  # public pack garden_care
PRIVPACK = "PRIVPACK-8D2N"  # private pack ledger_review
AGENTSMARK = "AGENTSMARK-5T8W"  # workspace AGENTS.md
EDITMARK = "KILNMARK-9Q4Z"  # a memory file written while the gateway runs
FACT = "QUILLFEATHER-8812"  # only ever said by the mock model, in turn 1's reply
ERRAND = "how often the orchid greenhouse is watered"  # the task the mock model gives the sub-agent it spawns
CHILDFACT = "VALVE-5521"  # only ever said by the mock model, in the sub-agent's reply
HIVEFACT = "HIVEMARK-3J7P"  # only in the fake Graphiti's fact about the allotment beehives
HIVE_PROMPT = "Who looks after the allotment beehives these days?"
FALLBACK_TAG = "<cairn-fallback>"
NO_ACCESS_SETTING = "plugins.entries.cairn.hooks.allowConversationAccess"


class Failure(Exception):
    pass


def log(msg):
    print(f"[e2e {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def check(cond, msg):
    if not cond:
        raise Failure(msg)
    log(f"ok: {msg}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(method, url, body=None, timeout=5.0, token=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as res:
        return json.loads(res.read() or b"{}")


def wait_for(pred, what, timeout=30.0, every=0.2):
    until = time.monotonic() + timeout
    last = None
    while time.monotonic() < until:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - polled until the deadline
            last = e
        time.sleep(every)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what} (last error: {last})")


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def block(text, tag):
    """Content of the first <tag ...>...</tag> block, or None."""
    m = re.search(rf"<{tag}\b[^>]*>(.*?)</{tag}>", text, re.S)
    return m.group(1) if m else None


class Env:
    def __init__(self, args):
        self.args = args
        self.root = Path(tempfile.mkdtemp(prefix="cairn-openclaw-e2e-"))
        self.procs = {}
        self.serve_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.serve_port}"
        self.record = self.root / "requests.jsonl"
        self.replies = self.root / "replies.json"
        self.home = self.root / "home"
        self.ws = self.root / "workspace"
        self.cfgdir = self.root / "config"
        self.cairn_toml = self.root / "cairn.toml"
        self.timings = {}

    # ---------- processes ----------
    def start(self, name, argv, **kw):
        logf = open(self.root / f"{name}.log", "w")
        self.procs[name] = (subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, **kw), logf)
        return self.procs[name][0]

    def stop(self, name, sig=signal.SIGTERM, timeout=15):
        entry = self.procs.pop(name, None)
        if not entry:
            return None
        p, logf = entry
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        logf.close()
        return p.returncode

    def cleanup(self):
        for name in list(self.procs):
            self.stop(name)
        if not self.args.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            log(f"kept {self.root}")

    def tail(self, name, n=40):
        f = self.root / f"{name}.log"
        return "\n".join(f.read_text(errors="replace").splitlines()[-n:]) if f.exists() else ""

    # ---------- setup ----------
    def setup(self):
        shutil.copytree(HERE / "fixture" / "workspace", self.ws)
        shutil.copytree(HERE / "fixture" / "config", self.cfgdir)
        self.start_graphiti()
        self.cairn_toml.write_text(
            f'data_dir = "{self.root / "data"}"\n'
            f'workspace = "{self.ws}"\n'
            f'[route]\nconfig_dir = "{self.cfgdir}"\n'
            # A private remote source, checked twice a second so its going down is seen at once.
            f'[remote.kg]\nkind = "graphiti"\nendpoint = "{self.graphiti_url}"\nhealth_interval_ms = 500\n'
        )
        # The first trigger found in a request's user messages (the whole conversation) picks the reply.
        self.replies.write_text(json.dumps({
            # The sub-agent's task (first: the child's request must not spawn again).
            ERRAND: f"Errand done: the greenhouse misting valve code is {CHILDFACT}.",
            # The parent spawns a sub-agent with a task about the greenhouse (core tools sit behind tool search
            # too, so the model calls them through OpenClaw's tool_call).
            "delegate the greenhouse errand": {"tool": "tool_call", "arguments": {"id": "sessions_spawn", "args": {
                "task": f"Find out {ERRAND}.", "label": "greenhouse"}}},
            "hybrid orchid": f"The new hybrid orchid is registered as {FACT}.",
            # The model calls cairn_search through OpenClaw's tool_call (plugin tools sit behind tool search).
            "supplier invoice ledger": {"tool": "tool_call", "arguments": {
                "id": "cairn_search", "args": {"query": "supplier ledger account number"}}},
            # The remote source's tool, through the plugin (and the daemon's POST /v1/sources/query).
            "ask the knowledge graph about the beehives": {"tool": "tool_call", "arguments": {
                "id": "graphiti_search", "args": {"query": "allotment beehives", "limit": 3}}},
        }))
        self.home.mkdir()

    def cairn(self, *argv, check_rc=True):
        cmd = [self.args.cairn, "--config", str(self.cairn_toml), *argv]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check_rc and r.returncode != 0:
            raise Failure(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return r

    def harvest(self):
        t = time.monotonic()
        r = self.cairn("harvest")
        self.timings["harvest"] = time.monotonic() - t
        log(f"harvest: {r.stdout.strip().splitlines()[-1] if r.stdout.strip() else 'done'}")

    def start_graphiti(self):
        facts = self.root / "graphiti-facts.json"
        facts.write_text(json.dumps([{
            "uuid": "hive-1", "name": "LOOKS_AFTER", "group_id": "default", "valid_at": "2026-03-02T00:00:00Z",
            "fact": f"The allotment beehives are looked after by Wren Halloway ({HIVEFACT})",
        }]))
        port_file = self.root / "graphiti.port"
        self.graphiti_record = self.root / "graphiti-requests.jsonl"
        self.start("graphiti", [sys.executable, str(HERE / "fake_graphiti.py"), "--port-file", str(port_file),
                                "--facts", str(facts), "--record", str(self.graphiti_record)])
        port = wait_for(lambda: port_file.read_text().strip() if port_file.exists() else None, "fake Graphiti port")
        self.graphiti_url = f"http://127.0.0.1:{port}"

    def start_mock(self):
        port_file = self.root / "mock.port"
        self.start("mock", [sys.executable, str(HERE / "mock_model.py"), "--port-file", str(port_file),
                            "--record", str(self.record), "--replies", str(self.replies)])
        port = wait_for(lambda: port_file.read_text().strip() if port_file.exists() else None, "mock model port")
        self.mock_url = f"http://127.0.0.1:{port}/v1"

    def openclaw_config(self, allow_access=True):
        entry = {
            "enabled": True,
            "config": {"baseUrl": self.base_url, "timeoutMs": 3000, "autoStart": False, "debug": True,
                       "dataDir": str(self.root / "data")},
        }
        if allow_access:
            entry["hooks"] = {"allowConversationAccess": True}
        return {
            "models": {"providers": {"mock": {
                "baseUrl": self.mock_url, "apiKey": "mock-key", "api": "openai-completions",
                "models": [{"id": "mock-1", "name": "Mock", "input": ["text"], "contextWindow": 128000,
                            "maxTokens": 4096, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}],
            }}},
            # No heartbeat: the host's (every 30 min, at a random phase) would now and then run a turn of its
            # own in the middle of the test and hold the gateway's stop while it drains.
            "agents": {"defaults": {"model": {"primary": "mock/mock-1"}, "workspace": str(self.ws),
                                    "heartbeat": {"every": "0m"}}},
            "plugins": ({"entries": {"cairn": entry}} if self.args.plugin_tarball else
                        {"load": {"paths": [str(self.args.plugin)]}, "entries": {"cairn": entry}}),
        }

    def install_plugin(self):
        """`openclaw plugins install <tarball>`, as a user installs the packed plugin."""
        cfg = self.write_openclaw_config()
        r = subprocess.run(
            [self.args.openclaw, "plugins", "install", str(self.args.plugin_tarball), "--force",
             "--accept-capabilities"],
            capture_output=True, text=True, env=self.oc_env(cfg), cwd=self.root, timeout=300,
        )
        (self.root / "plugins-install.log").write_text(r.stdout + r.stderr)
        check(r.returncode == 0 and "Installed plugin: cairn" in r.stdout + r.stderr,
              f"(install) openclaw plugins install {self.args.plugin_tarball.name} installed the packed plugin")

    def write_openclaw_config(self, allow_access=True):
        path = self.home / ("openclaw.json" if allow_access else "openclaw-no-access.json")
        path.write_text(json.dumps(self.openclaw_config(allow_access), indent=2))
        return path

    def oc_env(self, config_path):
        env = dict(os.environ)
        env.update({
            "HOME": str(self.home),
            "OPENCLAW_CONFIG_PATH": str(config_path),
            "OPENCLAW_STATE_DIR": str(self.home / "state"),
            "NO_COLOR": "1",
        })
        return env

    # ---------- turns ----------
    def requests(self):
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line.strip()]

    def agent(self, session_key, message, config_path, label, expect_request=True, gateway_env=None):
        before = len(self.requests())
        t = time.monotonic()
        env = self.oc_env(config_path)
        env.update(gateway_env or {})
        local = [] if gateway_env else ["--local"]
        r = subprocess.run(
            [self.args.openclaw, "agent", *local, "--json", "--session-key", session_key, "--message", message],
            capture_output=True, text=True, env=env, cwd=self.root, timeout=300,
        )
        took = time.monotonic() - t
        self.timings[label] = took
        (self.root / f"agent-{label}.out").write_text(r.stdout)
        (self.root / f"agent-{label}.err").write_text(r.stderr)
        log(f"{label}: openclaw agent --session-key {session_key} ({took:.1f} s, rc {r.returncode})")
        new = self.requests()[before:]
        mine = [q for q in new if any(message in text_of(m.get("content")) for m in q.get("messages", [])
                                      if m.get("role") == "user")]
        if not expect_request:
            return {"rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr, "requests": mine}
        if not mine:
            raise Failure(f"{label}: no model request carried the prompt (rc {r.returncode}); stderr tail:\n"
                          + "\n".join(r.stderr.splitlines()[-30:]))
        req = mine[0]
        user = next(text_of(m.get("content")) for m in req["messages"]
                    if m.get("role") == "user" and message in text_of(m.get("content")))
        system = "\n".join(text_of(m.get("content")) for m in req["messages"] if m.get("role") in ("system", "developer"))
        tools = "\n".join(text_of(m.get("content")) for q in mine for m in q["messages"] if m.get("role") == "tool")
        return {"rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr, "user": user, "system": system,
                "tools": tools}


def reply_text(run):
    try:
        out = json.loads(run["stdout"])
    except ValueError:
        return ""
    # `--local` prints the run result; through the gateway it is wrapped in {runId, status, result}.
    result = out.get("result", out) if isinstance(out, dict) else {}
    return " ".join(p.get("text") or "" for p in result.get("payloads", []))


def start_gateway(env):
    """Run `openclaw gateway` with the plugin's managed service on: no daemon answers at `baseUrl`, so the
    service must start `cairn serve` there. Turns then go through the warm gateway (much faster than
    `openclaw agent --local`, which loads every plugin again per run)."""
    daemon_url = f"http://127.0.0.1:{free_port()}"
    gw_cfg = env.openclaw_config(True)
    # The plugin starts the daemon with the token it is configured with (passed as `CAIRN_SERVE__TOKEN`).
    env.serve_token = uuid.uuid4().hex
    gw_cfg["plugins"]["entries"]["cairn"]["config"] = {
        "baseUrl": daemon_url, "autoStart": True, "cairnBin": env.args.cairn, "configPath": str(env.cairn_toml),
        "dataDir": str(env.root / "data"), "timeoutMs": 3000, "debug": True, "token": env.serve_token,
    }
    gw_path = env.home / "openclaw-gateway.json"
    gw_path.write_text(json.dumps(gw_cfg, indent=2))
    gw_env = {"OPENCLAW_GATEWAY_PORT": str(free_port()), "OPENCLAW_GATEWAY_TOKEN": uuid.uuid4().hex}
    t = time.monotonic()
    genv = env.oc_env(gw_path)
    genv.update(gw_env)
    env.start("gateway", [env.args.openclaw, "gateway", "run", "--port", gw_env["OPENCLAW_GATEWAY_PORT"], "--bind",
                          "loopback", "--auth", "token", "--token", gw_env["OPENCLAW_GATEWAY_TOKEN"],
                          "--allow-unconfigured"], env=genv, cwd=env.root)
    wait_for(lambda: http_json("GET", f"{daemon_url}/v1/health", timeout=1).get("status") == "ok",
             f"the gateway's plugin service to start cairn serve at {daemon_url} (log: gateway.log)", timeout=300,
             every=1.0)
    env.timings["gateway-start"] = time.monotonic() - t
    check(True, "(service) with no daemon running, the gateway's plugin service started cairn serve")
    env.base_url = daemon_url
    return gw_path, gw_env


def scenario(env):
    owner_dm = "agent:main:telegram:direct:1001"
    run_id = uuid.uuid4().hex[:8]
    cfg, gw = start_gateway(env)

    # (a) a matching prompt: the public pack and the public memory are injected. The mock model answers this
    # prompt with a unique fact, which (e) later expects to be recalled.
    a = env.agent(owner_dm, "How often is the orchid greenhouse watered, and what name did the society give "
                  "the new hybrid orchid?", cfg, "a", gateway_env=gw)
    ctx_a = block(a["user"], "cairn-context") or ""
    pack_a = block(a["user"], "pack-context") or ""
    check(PUBMEM in ctx_a, f"(a) the harvested memory {PUBMEM} is in the <cairn-context> block of the model request")
    check(PUBPACK in pack_a, f"(a) the garden_care pack ({PUBPACK}) is in a <pack-context> block")
    check(a["rc"] == 0 and FACT in reply_text(a), f"(a) the turn completed; the model replied with the fact {FACT}")

    # (e) the finished turn was captured: its fact becomes searchable, then is recalled on the next turn,
    # without turn 1's injected blocks.
    token = env.serve_token
    check(http_json("GET", f"{env.base_url}/v1/status", token=token).get("store") is not None,
          "(service) the daemon the plugin started answers with the plugin's configured token")
    try:
        http_json("GET", f"{env.base_url}/v1/status", token="wrong")
        check(False, "(service) the daemon refuses a wrong token")
    except urllib.error.HTTPError as e:
        check(e.code == 401, "(service) the daemon refuses a wrong token (401)")
    wait_for(lambda: any(FACT in json.dumps(h) for h in http_json(
        "POST", f"{env.base_url}/v1/search", {"query": FACT, "k": 5, "session_key": owner_dm}, token=token)["hits"]),
        "the captured turn to become searchable", timeout=30)
    log("(e) the captured turn is searchable")
    e2 = env.agent(owner_dm, "Remind me: what is the registered name of that new hybrid?", cfg, "e2", gateway_env=gw)
    ctx_e2 = block(e2["user"], "cairn-context") or ""
    check(FACT in ctx_e2, f"(e) turn 2: the captured fact {FACT} is recalled into <cairn-context>")
    check("<cairn-context" not in ctx_e2 and "<pack-context" not in ctx_e2 and "<cairn-fallback" not in ctx_e2,
          "(e) the recalled turn carries no nested injected blocks")
    check(PUBPACK not in ctx_e2, "(e) the recalled turn carries no text of turn 1's injected pack")

    # (g) a memory file saved during the run: the daemon the plugin started watches the workspace, so the next
    # turn's block has the new words (no harvest run by hand).
    (env.ws / "memory" / "kiln.md").write_text(
        f"---\naudience: public\n---\n# Pottery kiln\n\nThe pottery kiln firing schedule code is {EDITMARK}.\n")
    wait_for(lambda: any(EDITMARK in json.dumps(h) for h in http_json(
        "POST", f"{env.base_url}/v1/search", {"query": "pottery kiln firing schedule", "k": 5,
                                               "session_key": owner_dm}, token=token)["hits"]),
        "the saved memory file to become searchable", timeout=15)
    g = env.agent(owner_dm, "What is the pottery kiln firing schedule code?", cfg, "g", gateway_env=gw)
    check(EDITMARK in (block(g["user"], "cairn-context") or ""),
          f"(g) a memory file saved during the run ({EDITMARK}) is in the next turn's <cairn-context>")

    # (h) a sub-agent: the model spawns one with `sessions_spawn`; the plugin records the spawn, the child's first
    # model request carries a <cairn-task-context> block with the parent's memory and last turns, and once the
    # child's turn is captured the parent's next turn recalls what the child found.
    # Its own owner session, so no later turn's conversation holds the spawning prompt; a first turn there gives
    # the parent a last turn to pass on.
    parent = "agent:main:direct:1001"
    env.agent(parent, "What is the new hybrid orchid called?", cfg, "h0", gateway_env=gw)
    before = len(env.requests())
    h = env.agent(parent, "Please delegate the greenhouse errand to a sub-agent.", cfg, "h", gateway_env=gw)
    check(h["rc"] == 0, "(h) the parent's turn that spawned a sub-agent completed")

    def child_request():
        for q in env.requests()[before:]:
            said = "\n".join(text_of(m.get("content")) for m in q.get("messages", []) if m.get("role") == "user")
            bare = re.sub(r"<(cairn-context|cairn-task-context|pack-context)\b.*?</\1>", "", said, flags=re.S)
            if ERRAND in bare and "delegate the greenhouse errand" not in bare:
                return said
        return None

    said = wait_for(child_request, "the sub-agent's first model request", timeout=120)
    (env.root / "subagent-request.txt").write_text(said)
    task_ctx = block(said, "cairn-task-context") or ""
    check(task_ctx != "", "(h) the sub-agent's model request has a <cairn-task-context> block")
    check(PUBMEM in task_ctx, f"(h) the task context holds the parent's memory about the task ({PUBMEM})")
    check(FACT in task_ctx, f"(h) the task context holds the parent's last turns ({FACT} from turn (a))")
    sessions = json.loads(env.cairn("sessions", "--json").stdout)
    child = next((s for s in sessions if s.get("parent") == parent), None)
    check(child is not None and child["kind"] == "subagent", f"(h) cairn sessions lists the sub-agent under {parent}")
    wait_for(lambda: any(CHILDFACT in json.dumps(h) for h in http_json(
        "POST", f"{env.base_url}/v1/search", {"query": "greenhouse misting valve code", "k": 5,
                                               "session_key": owner_dm}, token=token)["hits"]),
        "the sub-agent's captured turn to become searchable", timeout=60)
    h2 = env.agent(owner_dm, "What misting valve code did the sub-agent report?", cfg, "h2", gateway_env=gw)
    check(CHILDFACT in (block(h2["user"], "cairn-context") or ""),
          f"(h) the parent's next turn recalls what the sub-agent found ({CHILDFACT})")

    # (i) a remote source: the fake Graphiti's fact joins the owner's turn with its provenance, and the plugin's
    # graphiti_search tool returns it. Then Graphiti goes down: the turn still answers without it (the daemon's
    # prober saw it down, so no call is made), and the tool's answer names the source.
    # Owner DMs of their own (private; no other scenario's conversation, whose tool results would end the
    # mock model's tool loop).
    i1 = env.agent("agent:main:whatsapp:direct:1001", HIVE_PROMPT, cfg, "i-up", gateway_env=gw)
    ctx_i1 = block(i1["user"], "cairn-context") or ""
    check(HIVEFACT in ctx_i1 and "remote:kg:fact:hive-1" in ctx_i1,
          f"(i) Graphiti up: its fact ({HIVEFACT}) is in <cairn-context> with its provenance remote:kg:fact:hive-1")
    i1g = env.agent(f"agent:main:telegram:group:-200{run_id}", HIVE_PROMPT, cfg, "i-group", gateway_env=gw)
    check(HIVEFACT not in i1g["user"], "(i) a group turn gets nothing from the private remote source")
    it = env.agent("agent:main:whatsapp:direct:1001", "Please ask the knowledge graph about the beehives.", cfg,
                   "i-tool", gateway_env=gw)
    check('"graphiti_search"' in it["tools"] and HIVEFACT in it["tools"],
          f"(i) the plugin's graphiti_search tool returned the fact ({HIVEFACT})")
    asked = [json.loads(line) for line in env.graphiti_record.read_text().splitlines() if line.strip()]
    check(any(q.get("max_facts") == 3 and q.get("query") == "allotment beehives" for q in asked),
          "(i) the tool's call reached Graphiti's POST /search with max_facts = limit")
    env.stop("graphiti", sig=signal.SIGKILL)
    wait_for(lambda: any(s["name"] == "kg" and s["state"] == "down" for s in http_json(
        "GET", f"{env.base_url}/v1/sources", token=token)["sources"]), "the daemon to see Graphiti down", timeout=15)
    i2 = env.agent("agent:main:signal:direct:1001", HIVE_PROMPT, cfg, "i-down", gateway_env=gw)
    check(i2["rc"] == 0 and "remote:kg:" not in i2["user"] and FALLBACK_TAG not in i2["user"],
          "(i) Graphiti down: the turn completed, with no remote fact and no fallback note")
    check(env.timings["i-down"] < env.timings["i-up"] + 5,
          f"(i) Graphiti down: the turn took {env.timings['i-down']:.1f} s (up: {env.timings['i-up']:.1f} s)")
    it2 = env.agent("agent:main:discord:direct:1001", "Please ask the knowledge graph about the beehives.", cfg,
                    "i-tool-down", gateway_env=gw)
    check("source `kg`" in it2["tools"] and "is down" in it2["tools"],
          "(i) Graphiti down: the tool's answer names the source and says it is down")

    # (b) a non-matching prompt (fresh session, so nothing sticky): no pack.
    b = env.agent(f"agent:main:telegram:direct:1001:thread:b{run_id}", "What is the capital of France?", cfg, "b",
                  gateway_env=gw)
    check("<pack-context" not in b["user"], "(b) no <pack-context> block for a prompt matching no intent")

    # (c) the same private prompt: the owner's main session gets the private pack and memory, a group does not.
    # The mock model also calls cairn_search here; its result must follow the same scope.
    prompt_c = "Please reconcile the supplier invoice ledger for the nursery."
    c_main = env.agent("agent:main:main", prompt_c, cfg, "c-main", gateway_env=gw)
    check(PRIVPACK in c_main["user"], f"(c) main session: the private pack ({PRIVPACK}) is injected")
    check(PRIVMEM in c_main["user"], f"(c) main session: the private memory ({PRIVMEM}) is injected")
    check(PRIVMEM in c_main["tools"], "(tool) main session: the model's cairn_search call returned the private memory")
    c_group = env.agent(f"agent:main:telegram:group:-100{run_id}", prompt_c, cfg, "c-group", gateway_env=gw)
    check(PRIVPACK not in c_group["user"] and PRIVPACK not in c_group["system"],
          "(c) group session: no private pack")
    check(PRIVMEM not in c_group["user"] and PRIVMEM not in c_group["system"],
          "(c) group session: no private memory")
    check('"cairn_search"' in c_group["tools"] and "unavailable" not in c_group["tools"],
          "(tool) group session: cairn_search ran")
    check(PRIVMEM not in c_group["tools"], "(tool) group session: cairn_search returned no private memory")

    # (f) the bootstrap hook changes a subagent's file set: Cairn's sessions.yaml gives subagents SOUL.md only,
    # so the host's AGENTS.md is removed (the host then keeps only AGENTS.md-named files for subagents).
    check(AGENTSMARK in a["system"], f"(f) control: a direct session's system prompt has AGENTS.md ({AGENTSMARK})")
    f = env.agent(f"agent:main:subagent:{uuid.uuid4()}", "Summarise your instructions in one line.", cfg, "f",
                  gateway_env=gw)
    check(AGENTSMARK not in f["system"], "(f) subagent: AGENTS.md was filtered out by the bootstrap hook")
    gw_log = (env.root / "gateway.log").read_text(errors="replace")
    check(re.search(r"bootstrap agent:main:subagent:\S+: \d+ files.*removed \[[^\]]*AGENTS\.md", gw_log) is not None,
          "(f) the plugin logged the removal for the subagent key")
    check("CAIRN_CONTEXT.md" in a["system"], "(f) main/direct sessions get the generated CAIRN_CONTEXT.md")

    # (j) tiered bootstrap and the way back: a forum topic gets its small set (AGENTS.md filtered out, within
    # the 500-token target); after `cairn workspace backup` and `cairn workspace rollback --bulk` the host's
    # next topic turn gets its full set again (AGENTS.md back); `cairn workspace tiered on` restores tiering.
    topic = f"agent:main:telegram:group:-300{run_id}:topic:"
    j1 = env.agent(topic + "1", "Summarise your instructions in one line.", cfg, "j-tiered", gateway_env=gw)
    check(AGENTSMARK not in j1["system"], "(j) tiered: a forum topic's system prompt has no AGENTS.md")
    sizes = json.loads(env.cairn("bootstrap", "--session-key", topic + "1", "--json", check_rc=False).stdout)
    check(sizes["total_tokens"] <= sizes["target"] == 500,
          f"(j) tiered: the topic's bootstrap set is {sizes['total_tokens']} tokens, within its 500-token target")
    env.cairn("workspace", "backup")
    rolled = env.cairn("workspace", "rollback", "--bulk")
    check("tiered bootstrap off" in rolled.stdout + rolled.stderr, "(j) `cairn workspace rollback --bulk` ran")
    j2 = env.agent(topic + "2", "Summarise your instructions in one line.", cfg, "j-bulk", gateway_env=gw)
    check(AGENTSMARK in j2["system"], "(j) after rollback --bulk: the host's full set is back (AGENTS.md injected)")
    env.cairn("workspace", "tiered", "on")
    j3 = env.agent(topic + "3", "Summarise your instructions in one line.", cfg, "j-tiered-again", gateway_env=gw)
    check(AGENTSMARK not in j3["system"], "(j) `cairn workspace tiered on`: the topic's small set again")

    # (service) stopping the gateway stops the daemon its plugin started.
    daemon_url = env.base_url
    rc = env.stop("gateway", timeout=60)
    check(rc != -signal.SIGKILL, f"(service) the gateway stopped on SIGTERM within 60 s (rc {rc})")

    def daemon_gone():
        try:
            http_json("GET", f"{daemon_url}/v1/health", timeout=1)
            return False
        except (urllib.error.URLError, OSError):
            return True

    wait_for(daemon_gone, "the started cairn serve to stop with the gateway", timeout=30)
    check(True, "(service) stopping the gateway stopped the daemon it had started")

    # (d) daemon down (a one-shot local run starts no plugin service): the fallback note is in the request and
    # the turn still completes.
    d = env.agent(owner_dm, "Is the orchid greenhouse humid enough today?", cfg, "d")
    check(FALLBACK_TAG in d["user"], "(d) daemon down: the <cairn-fallback> note is in the model request")
    check(d["rc"] == 0 and reply_text(d) != "", "(d) daemon down: the turn still completed with a reply")

    # Load failure: without allowConversationAccess the plugin refuses to load, naming the setting.
    # OpenClaw turns a plugin that throws in register() into a failed command, with the plugin's message.
    no = env.agent(owner_dm, "Is anyone there?", env.write_openclaw_config(False), "no-access", expect_request=False)
    check(no["rc"] != 0, "(load) without the grant, the host refuses to run (plugin load failed)")
    check(NO_ACCESS_SETTING in no["stderr"] + no["stdout"],
          f"(load) without the grant, the host output names {NO_ACCESS_SETTING}")
    check(not no["requests"], "(load) without the grant, no silent half-working turn reached the model")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cairn", required=True)
    ap.add_argument("--openclaw", required=True)
    ap.add_argument("--plugin", required=True, type=Path)
    ap.add_argument("--plugin-tarball", type=Path,
                    help="install this packed plugin with `openclaw plugins install` instead of loading --plugin")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    env = Env(args)
    t0 = time.monotonic()
    ok = False
    try:
        env.setup()
        env.harvest()
        env.start_mock()
        if args.plugin_tarball:
            env.install_plugin()
        scenario(env)
        ok = True
    except Failure as e:
        log(f"FAIL: {e}")
        for name in ("gateway", "mock"):
            if (env.root / f"{name}.log").exists():
                log(f"--- {name}.log tail ---\n{env.tail(name)}")
    finally:
        env.timings["total"] = time.monotonic() - t0
        log("timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in env.timings.items()))
        if not ok:
            env.args.keep = True
        env.cleanup()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
