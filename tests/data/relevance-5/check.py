#!/usr/bin/env python3
"""Standalone checker for held-out relevance set 5 (Greg Albrecht, Chicago).

Run: python3 check.py   (from anywhere; paths are relative to this file)
Needs: snowballstemmer (pip install snowballstemmer).
Exits non-zero and prints FAIL lines if anything is wrong.
"""
import calendar
import datetime as dt
import json
import os
import re
import sys
from collections import Counter

import snowballstemmer

HERE = os.path.dirname(os.path.abspath(__file__))
WS = os.path.join(HERE, "workspace")
QFILE = os.path.join(HERE, "queries.jsonl")

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL:", msg)


def ok(msg):
    print("ok:  ", msg)


# --------------------------------------------------------------------------- files
def all_files():
    out = []
    for root, _, files in os.walk(WS):
        for f in files:
            out.append(os.path.relpath(os.path.join(root, f), WS))
    return sorted(out)


def read_bytes(rel):
    with open(os.path.join(WS, rel), "rb") as fh:
        return fh.read()


def decodings(rel):
    """All text views of a file: UTF-8 if valid, else Latin-1 and lossy UTF-8."""
    b = read_bytes(rel)
    try:
        return [b.decode("utf-8")]
    except UnicodeDecodeError:
        return [b.decode("latin-1"), b.decode("utf-8", errors="replace")]


DATE_RE = re.compile(r"^memory/daily/(\d{4}-\d{2}-\d{2})\.md$")


def daily_notes():
    out = {}
    for rel in all_files():
        m = DATE_RE.match(rel)
        if m:
            try:
                d = dt.date.fromisoformat(m.group(1))
            except ValueError:
                continue
            out[d] = rel
    return out


# --------------------------------------------------------------------------- frontmatter
def frontmatter(text):
    """Return (status, tags). status: 'none', 'closed', 'unclosed'."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return "none", []
    end = None
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            end = i
            break
    block = lines[1:end] if end else lines[1:]
    tags = []
    for ln in block:
        m = re.match(r"^tags:\s*\[(.*)\]\s*$", ln.strip())
        if m:
            tags = [t.strip().strip("'\"") for t in m.group(1).split(",") if t.strip()]
    return ("closed" if end else "unclosed"), tags


# --------------------------------------------------------------------------- stems
STOP = set("""
a about above across after afterwards again against all almost alone along already also although always am among an and
another any anybody anyone anything anyway anywhere are aren around as at be became because become been before being
below beside besides between beyond both but by can cannot could couldn did didn do does doesn doing don done down during
each either else elsewhere enough etc even ever every everyone everything except few for former from further had hadn has
hasn have haven having he her here hers herself him himself his how however i if in indeed into is isn it its itself just
least less ll many may me meanwhile might mine more moreover most mostly much must my myself neither never nevertheless
next no nobody none nor not nothing now of off often on once only onto or other others otherwise our ours ourselves out
over own per perhaps please quite rather re really s same shall shan she should shouldn since so some somehow someone
something sometime sometimes somewhere still such t than that the their theirs them themselves then there thereafter
thereby therefore these they this those though through throughout thus to together too toward towards under until up upon
us very via ve was wasn we well were weren what whatever when whence whenever where whereas wherever whether which while
who whoever whole whom whose why will with within without would wouldn yet you your yours yourself yourselves let lets
tell d m o y ain ok okay hey
""".split())
# Deliberately NOT stop words (kept strict): back, one, get, know, like, make, take, go.

STEMMER = snowballstemmer.stemmer("english")
TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def stems(text):
    toks = [t for t in TOKEN.findall(text.lower()) if len(t) > 1 and t not in STOP]
    return set(STEMMER.stemWords(toks))


# --------------------------------------------------------------------------- temporal ranges
# Machine-readable range per temporal question. Relative ones are resolved from the
# reference day (date of the last daily note) with datetime, not hard-coded.
RANGES = {
    "t5-01": ("absolute", "2025-03-12", "2025-03-12"),
    "t5-02": ("absolute", "2025-03-14", "2025-03-14", "with-decision"),
    "t5-03": ("absolute", "2025-05-18", "2025-05-18"),
    "t5-04": ("absolute", "2025-03-18", "2025-03-18"),
    "t5-05": ("month", 2025, 2),
    "t5-06": ("weekday-date", 2025, 4, 8, "Tuesday"),
    "t5-07": ("weekday-date", 2025, 1, 16, "Thursday"),
    "t5-08": ("month-part", 2025, 1, "early"),
    "t5-09": ("month-part", 2025, 3, "late"),
    "t5-10": ("month-part", 2025, 4, "mid"),
    "t5-11": ("week-of-month", 2025, 1, "last"),
    "t5-12": ("week-of-month", 2025, 4, "first"),
    "t5-13": ("month-half", 2025, 2, 2),
    "t5-14": ("month-last-day", 2025, 3),
    "t5-15": ("yesterday",),
    "t5-16": ("days-ago", 8),
    "t5-17": ("last-week",),
    "t5-18": ("last-weekday", "Tuesday"),
    "t5-19": ("last-month",),
    "t5-20": ("holiday", "mlk"),
    "t5-21": ("holiday", "presidents"),
    "t5-22": ("holiday", "memorial"),
    "t5-23": ("holiday", "uk-early-may"),
    "t5-24": ("event", "day-after-back"),
    "t5-25": ("event", "day-before-out"),
}
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def nth_weekday(year, month, weekday, n):
    d = dt.date(year, month, 1)
    d += dt.timedelta(days=(weekday - d.weekday()) % 7)
    return d + dt.timedelta(weeks=n - 1)


def last_weekday_of_month(year, month, weekday):
    d = dt.date(year, month, calendar.monthrange(year, month)[1])
    return d - dt.timedelta(days=(d.weekday() - weekday) % 7)


def trip_dates():
    text = decodings("memory/london-trip.md")[0]
    m = re.search(r"Out on (\d{4}-\d{2}-\d{2}), back on (\d{4}-\d{2}-\d{2})\.", text)
    return dt.date.fromisoformat(m.group(1)), dt.date.fromisoformat(m.group(2))


def resolve(spec, ref):
    k = spec[0]
    if k == "absolute":
        return dt.date.fromisoformat(spec[1]), dt.date.fromisoformat(spec[2])
    if k == "month":
        y, m = spec[1], spec[2]
        return dt.date(y, m, 1), dt.date(y, m, calendar.monthrange(y, m)[1])
    if k == "weekday-date":
        d = dt.date(spec[1], spec[2], spec[3])
        assert WEEKDAYS[d.weekday()] == spec[4], f"{d} is not a {spec[4]}"
        return d, d
    if k == "month-part":
        y, m, part = spec[1:]
        last = calendar.monthrange(y, m)[1]
        a, b = {"early": (1, 10), "mid": (11, 20), "late": (21, last)}[part]
        return dt.date(y, m, a), dt.date(y, m, b)
    if k == "week-of-month":
        y, m, which = spec[1:]
        last = calendar.monthrange(y, m)[1]
        a, b = (1, 7) if which == "first" else (last - 6, last)
        return dt.date(y, m, a), dt.date(y, m, b)
    if k == "month-half":
        y, m, h = spec[1:]
        last = calendar.monthrange(y, m)[1]
        a, b = (1, 15) if h == 1 else (16, last)
        return dt.date(y, m, a), dt.date(y, m, b)
    if k == "month-last-day":
        y, m = spec[1:]
        d = dt.date(y, m, calendar.monthrange(y, m)[1])
        return d, d
    if k == "yesterday":
        d = ref - dt.timedelta(days=1)
        return d, d
    if k == "days-ago":
        d = ref - dt.timedelta(days=spec[1])
        return d, d
    if k == "last-week":
        this_monday = ref - dt.timedelta(days=ref.weekday())
        return this_monday - dt.timedelta(days=7), this_monday - dt.timedelta(days=1)
    if k == "last-weekday":
        wd = WEEKDAYS.index(spec[1])
        d = ref - dt.timedelta(days=1)
        while d.weekday() != wd:
            d -= dt.timedelta(days=1)
        return d, d
    if k == "last-month":
        first_this = ref.replace(day=1)
        last_prev = first_this - dt.timedelta(days=1)
        return last_prev.replace(day=1), last_prev
    if k == "holiday":
        y = ref.year
        d = {
            "mlk": lambda: nth_weekday(y, 1, 0, 3),
            "presidents": lambda: nth_weekday(y, 2, 0, 3),
            "memorial": lambda: last_weekday_of_month(y, 5, 0),
            "uk-early-may": lambda: nth_weekday(y, 5, 0, 1),
        }[spec[1]]()
        return d, d
    if k == "event":
        out, back = trip_dates()
        d = back + dt.timedelta(days=1) if spec[1] == "day-after-back" else out - dt.timedelta(days=1)
        return d, d
    raise ValueError(spec)


FORMS = ["absolute", "absolute-iso", "partial-day", "partial-month", "weekday-date", "month-part",
         "week-of-month", "month-half", "month-last-day", "yesterday", "days-ago", "last-week",
         "last-weekday", "last-month", "holiday-us", "holiday-uk", "event-relative"]

TAG_OF = {"g5-01": "work", "g5-02": "basement", "g5-03": "money", "g5-04": "mom",
          "g5-05": "running", "g5-06": "family"}

LEXICAL_TERM = {"l5-01": "QX7T2M", "l5-02": "Graphwell", "l5-03": "INC-2291", "l5-04": "Lefèvre",
                "l5-05": "Rookwood DJ-12", "l5-06": "Brennick SP-33", "l5-07": "BP-2025-118734",
                "l5-08": "REQ-4471", "l5-09": "Vantor Glide 4", "l5-10": "Lindqvist & Harrow"}

EXPECTED = {"paraphrase": 30, "temporal": 25, "offtopic": 50, "lexical": 10, "tag": 6, "multi": 6}
PREFIX = {"paraphrase": "p5-", "temporal": "t5-", "offtopic": "o5-", "lexical": "l5-", "tag": "g5-", "multi": "m5-"}


def main():
    qs = [json.loads(l) for l in open(QFILE, encoding="utf-8") if l.strip()]
    files = set(all_files())
    dailies = daily_notes()
    ref = max(dailies)
    print(f"reference day: {ref} ({WEEKDAYS[ref.weekday()]}); daily notes: {len(dailies)} "
          f"({min(dailies)} .. {ref})")

    # ---- ids, kinds, targets exist
    ids = [q["id"] for q in qs]
    dup = [i for i, c in Counter(ids).items() if c > 1]
    fail(f"duplicate ids {dup}") if dup else ok(f"{len(ids)} unique ids")
    kinds = Counter(q["kind"] for q in qs)
    if dict(kinds) != EXPECTED:
        fail(f"kind counts {dict(kinds)} != {EXPECTED}")
    else:
        ok(f"kind counts {dict(kinds)}")
    for q in qs:
        if not q["id"].startswith(PREFIX[q["kind"]]):
            fail(f"{q['id']}: prefix does not match kind {q['kind']}")
        if not set(q) <= {"id", "kind", "question", "targets", "form"}:
            fail(f"{q['id']}: unexpected keys {set(q)}")
        for t in q["targets"]:
            if t not in files:
                fail(f"{q['id']}: target missing: {t}")
        if len(set(q["targets"])) != len(q["targets"]):
            fail(f"{q['id']}: duplicate targets")
        if q["kind"] == "offtopic" and q["targets"]:
            fail(f"{q['id']}: offtopic with targets")
        if q["kind"] != "offtopic" and not q["targets"]:
            fail(f"{q['id']}: no targets")
        if q["kind"] == "multi" and len(q["targets"]) != 2:
            fail(f"{q['id']}: multi needs exactly two targets")
        if (q["kind"] == "temporal") != ("form" in q):
            fail(f"{q['id']}: form present iff temporal")
    ok("targets exist / per-kind target shape checked")

    # ---- workspace shape
    nondaily = [f for f in files if f.endswith(".md") and not f.startswith("memory/daily/")
                and f != "memory/scan.md"]
    answerable = len(dailies) + len(nondaily)
    checks = [
        (30 <= len(dailies) <= 40, f"{len(dailies)} daily notes (30-40)"),
        (5 <= len([f for f in files if f.startswith("memory/projects/")]) <= 7, "5-7 project notes"),
        (4 <= len([f for f in files if f.startswith("memory/decisions/")]) <= 6, "4-6 decision notes"),
        (8 <= len([f for f in files if f.startswith("memory/contacts/")]) <= 10, "8-10 contact notes"),
        (5 <= len([f for f in files if re.match(r"^memory/[^/]+\.md$", f) and f != "memory/scan.md"]) <= 7,
         "5-7 topical notes in memory/"),
        (60 <= answerable <= 75, f"{answerable} answerable notes (60-75)"),
        (30 <= len(decodings("MEMORY.md")[0].splitlines()) <= 60, "MEMORY.md 30-60 lines"),
        (10 <= len(decodings("USER.md")[0].splitlines()) <= 25, "USER.md 10-25 lines"),
    ]
    for cond, msg in checks:
        ok(msg) if cond else fail(msg)

    # ---- damaged files
    png = read_bytes("memory/scan.md")
    ok("scan.md is a PNG") if png.startswith(b"\x89PNG\r\n\x1a\n") else fail("scan.md not PNG")
    empties = [f for f in files if f.startswith("memory/daily/") and f.endswith(".md")
               and len(read_bytes(f)) == 0]
    invalid_named = []
    for f in files:
        m = re.match(r"^memory/daily/(.+)\.md$", f)
        if m:
            try:
                dt.date.fromisoformat(m.group(1))
            except ValueError:
                invalid_named.append(f)
    if empties and set(empties) <= set(invalid_named):
        ok(f"empty non-date daily file: {empties}")
    else:
        fail(f"expected one empty non-date daily file, got empties={empties} invalid={invalid_named}")
    latin = []
    for f in files:
        if f.endswith(".md") and f != "memory/scan.md":
            try:
                read_bytes(f).decode("utf-8")
            except UnicodeDecodeError:
                latin.append(f)
    if latin == ["memory/contacts/zoe-lefevre.md"]:
        txt = read_bytes(latin[0]).decode("latin-1")
        ok(f"Latin-1 note {latin[0]} (accents: {'ë' in txt and 'è' in txt})")
    else:
        fail(f"non-UTF-8 notes: {latin}")

    # ---- frontmatter / tags
    tagmap, unclosed = {}, {}
    for f in sorted(files):
        if not f.endswith(".md") or f == "memory/scan.md":
            continue
        status, tags = frontmatter(decodings(f)[0])
        if status == "closed":
            for t in tags:
                tagmap.setdefault(t, set()).add(f)
        elif status == "unclosed":
            unclosed[f] = tags
    if list(unclosed) == ["memory/hobbies.md"]:
        ok(f"unclosed frontmatter note: {unclosed}")
    else:
        fail(f"unclosed frontmatter notes: {unclosed}")
    unclosed_tags = {t for ts in unclosed.values() for t in ts}
    tagged_notes = {f for s in tagmap.values() for f in s} | set(unclosed)
    print(f"      tags (closed frontmatter): " +
          ", ".join(f"{t}={len(s)}" for t, s in sorted(tagmap.items())) +
          f"; unclosed-only tags: {sorted(unclosed_tags)}; "
          f"{len(tagged_notes)}/{len(nondaily)} non-daily notes carry tags")
    ntags = len(set(tagmap) | unclosed_tags)
    ok(f"{ntags} distinct tags") if 6 <= ntags <= 8 else fail(f"{ntags} distinct tags (want 6-8)")
    for q in qs:
        if q["kind"] != "tag":
            continue
        tag = TAG_OF[q["id"]]
        if tag in unclosed_tags:
            fail(f"{q['id']}: tag {tag} appears in an unclosed frontmatter (ambiguous)")
        if tag.lower() not in q["question"].lower():
            fail(f"{q['id']}: question does not name tag {tag}")
        if set(q["targets"]) != tagmap.get(tag, set()):
            fail(f"{q['id']}: targets {sorted(q['targets'])} != notes tagged {tag} {sorted(tagmap.get(tag, []))}")
    ok("tag targets equal the notes carrying each tag")

    # decisions: frontmatter date equals filename date; exactly one without frontmatter
    nofm = []
    for f in files:
        m = re.match(r"^memory/decisions/(\d{4}-\d{2}-\d{2})-[a-z0-9-]+\.md$", f)
        if f.startswith("memory/decisions/") and not m:
            fail(f"bad decision filename {f}")
            continue
        if not m:
            continue
        text = decodings(f)[0]
        status, _ = frontmatter(text)
        if status == "none":
            nofm.append(f)
        else:
            dm = re.search(r"^date:\s*(\S+)", text, re.M)
            if not dm or dm.group(1) != m.group(1):
                fail(f"{f}: frontmatter date != filename date")
    ok(f"decision without frontmatter: {nofm}") if len(nofm) == 1 else fail(f"decisions without fm: {nofm}")

    # ---- daily notes format
    for d, f in sorted(dailies.items()):
        text = decodings(f)[0]
        if text.startswith("---"):
            fail(f"{f}: has frontmatter")
        if text.splitlines()[0] != f"# {d.isoformat()}":
            fail(f"{f}: does not open with '# {d}'")
        n = sum(1 for l in text.splitlines() if l.startswith("- "))
        if not 3 <= n <= 6:
            fail(f"{f}: {n} bullets")
    ok("daily notes: no frontmatter, open with their heading, 3-6 bullets")

    # ---- temporal
    forms = Counter(q["form"] for q in qs if q["kind"] == "temporal")
    missing = [f for f in FORMS if f not in forms]
    fail(f"temporal forms missing: {missing}") if missing else ok(f"all {len(FORMS)} temporal forms present")
    bad = [f for f in forms if f not in FORMS]
    if bad:
        fail(f"unknown forms {bad}")
    if forms["event-relative"] != 2:
        fail("want exactly 2 event-relative questions")
    for q in qs:
        if q["kind"] != "temporal":
            continue
        spec = RANGES.get(q["id"])
        if spec is None:
            fail(f"{q['id']}: no range")
            continue
        a, b = resolve(spec, ref)
        want = {f for d, f in dailies.items() if a <= d <= b}
        if not want:
            fail(f"{q['id']}: range {a}..{b} has no daily note")
        got_daily = {t for t in q["targets"] if t.startswith("memory/daily/")}
        other = set(q["targets"]) - got_daily
        if got_daily != want:
            fail(f"{q['id']}: daily targets {sorted(got_daily)} != {sorted(want)} for {a}..{b}")
        if "with-decision" in spec:
            decs = {f for f in files if f.startswith("memory/decisions/")
                    and a <= dt.date.fromisoformat(f.split("/")[-1][:10]) <= b}
            if other != decs or not decs:
                fail(f"{q['id']}: decision targets {other} != {decs}")
        elif other:
            fail(f"{q['id']}: unexpected non-daily targets {other}")
        print(f"      {q['id']} [{q['form']}] {a}..{b} -> {len(want)} note(s)")
    ok("temporal targets equal the daily notes in each range")

    # ---- paraphrase: no shared stems
    for q in qs:
        if q["kind"] != "paraphrase":
            continue
        qs_ = stems(q["question"])
        for t in q["targets"]:
            pathwords = t.replace("/", " ").replace("-", " ").replace(".", " ")
            for view in decodings(t):
                shared = qs_ & (stems(view) | stems(pathwords))
                if shared:
                    fail(f"{q['id']}: shares {sorted(shared)} with {t}")
    ok("paraphrase questions share no content stem with their targets")

    # ---- lexical: the distinctive term is in the target (and only there)
    for q in qs:
        if q["kind"] != "lexical":
            continue
        term = LEXICAL_TERM[q["id"]]
        if term.lower() not in q["question"].lower():
            fail(f"{q['id']}: question lacks its term {term}")
        holders = {f for f in files if f.endswith(".md") and f != "memory/scan.md"
                   and any(term.lower() in v.lower() for v in decodings(f))}
        if holders != set(q["targets"]):
            fail(f"{q['id']}: '{term}' found in {sorted(holders)} but targets {q['targets']}")
    ok("lexical terms occur exactly in their targets")

    # damaged-but-readable notes are each the target of a lexical question
    lex_targets = {t for q in qs if q["kind"] == "lexical" for t in q["targets"]}
    for f in ["memory/contacts/zoe-lefevre.md", "memory/hobbies.md"]:
        ok(f"{f} is a lexical target") if f in lex_targets else fail(f"{f} not a lexical target")

    # ---- invented contact data only
    for f in files:
        if f == "memory/scan.md":
            continue
        for v in decodings(f)[:1]:
            for ph in re.findall(r"\b\d{3}-\d{4}\b", v):
                if not re.match(r"555-01\d\d", ph):
                    fail(f"{f}: phone {ph} outside 555-01xx")
            for em in re.findall(r"[\w.+-]+@([\w.-]+)", v):
                if em not in ("example.com", "example.org", "example.net"):
                    fail(f"{f}: email domain {em}")
    ok("phones 555-01xx, emails at example.com/org/net")

    print()
    if FAILS:
        print(f"{len(FAILS)} FAILURE(S)")
        sys.exit(1)
    print("ALL CHECKS PASSED")


if __name__ == "__main__":
    main()
