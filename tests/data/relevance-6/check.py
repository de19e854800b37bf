#!/usr/bin/env python3
"""Standalone checker for relevance set 6 (Meg Halloran, sourdough baker, Leeds).

Run:  python3 check.py      (needs: pip install snowballstemmer)
Exits non-zero and lists the problems if any check fails.
"""
import calendar
import datetime as dt
import json
import os
import re
import sys
from collections import Counter

import snowballstemmer

ROOT = os.path.dirname(os.path.abspath(__file__))
WS = os.path.join(ROOT, "workspace")
QFILE = os.path.join(ROOT, "queries.jsonl")

errors = []


def fail(msg):
    errors.append(msg)


# ---------------------------------------------------------------- reading
def read_texts(rel):
    """All decodings of a note that must be checked (UTF-8, or Latin-1 + lossy UTF-8)."""
    raw = open(os.path.join(WS, rel), "rb").read()
    try:
        return [raw.decode("utf-8")]
    except UnicodeDecodeError:
        return [raw.decode("latin-1"), raw.decode("utf-8", "replace")]


def all_notes():
    out = []
    for dirpath, _, files in os.walk(WS):
        for f in files:
            if f.endswith(".md"):
                out.append(os.path.relpath(os.path.join(dirpath, f), WS).replace(os.sep, "/"))
    return sorted(out)


def frontmatter(text):
    """Return the YAML frontmatter block (str) if the file starts with '---', else None."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return None
    return text[4:end]


def tags_of(text):
    fm = frontmatter(text)
    if fm is None:
        return set()
    m = re.search(r"^tags:\s*\[(.*?)\]\s*$", fm, re.M)
    if not m:
        return set()
    return {t.strip().strip("'\"") for t in m.group(1).split(",") if t.strip()}


# ---------------------------------------------------------------- stems
STOP = set("""
a about above after again against all am an and any are aren aren't as at be because been before being below
between both but by can cannot could couldn couldn't did didn didn't do does doesn doesn't doing don don't down
during each few for from further had hadn hadn't has hasn hasn't have haven haven't having he he'd he'll he's her
here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn isn't it it's its itself
let's me more most mustn my myself no nor not of off on once only or other ought our ours ourselves out over own
same shan she she'd she'll she's should shouldn shouldn't so some such than that that's the their theirs them
themselves then there there's these they they'd they'll they're they've this those through to too under until up
very was wasn wasn't we we'd we'll we're we've were weren weren't what what's when when's where where's which
while who who's whom why why's will with won won't would wouldn wouldn't you you'd you'll you're you've your yours
yourself yourselves ll ve re d s t m o y ma ain
whats whose whichever whatever whenever wherever however
may might must shall can could would should will
get gets got getting also just any anything anyone something someone ever every much many
""".split())
_stem = snowballstemmer.stemmer("english").stemWord


def stems(text):
    out = set()
    for tok in re.findall(r"[a-z0-9]+", text.lower()):
        if len(tok) < 2 or tok in STOP:
            continue
        out.add(_stem(tok))
    return out


def note_stems(rel):
    s = set()
    for t in read_texts(rel):
        s |= stems(t)
    s |= stems(re.sub(r"[/_.\-]", " ", rel))
    return s


# ---------------------------------------------------------------- load
queries = [json.loads(l) for l in open(QFILE, encoding="utf-8") if l.strip()]
notes = all_notes()
noteset = set(notes)

# ids, kinds, targets
ids = [q["id"] for q in queries]
for i, c in Counter(ids).items():
    if c > 1:
        fail(f"duplicate id {i}")
EXPECTED = {"paraphrase": 30, "temporal": 25, "offtopic": 50, "lexical": 10, "tag": 6, "multi": 6}
PREFIX = {"paraphrase": "p6-", "temporal": "t6-", "offtopic": "o6-", "lexical": "l6-", "tag": "g6-", "multi": "m6-"}
kinds = Counter(q["kind"] for q in queries)
for k, n in EXPECTED.items():
    if kinds.get(k, 0) != n:
        fail(f"kind {k}: {kinds.get(k, 0)} questions, expected {n}")
for k in kinds:
    if k not in EXPECTED:
        fail(f"unknown kind {k}")
for q in queries:
    if not q["id"].startswith(PREFIX.get(q["kind"], "?")):
        fail(f"{q['id']}: id prefix does not match kind {q['kind']}")
    if len(set(q["targets"])) != len(q["targets"]):
        fail(f"{q['id']}: repeated target")
    for t in q["targets"]:
        if t not in noteset:
            fail(f"{q['id']}: target does not exist: {t}")
    if q["kind"] == "offtopic" and q["targets"]:
        fail(f"{q['id']}: offtopic must have no targets")
    if q["kind"] != "offtopic" and not q["targets"]:
        fail(f"{q['id']}: no targets")
    if q["kind"] == "multi" and len(q["targets"]) != 2:
        fail(f"{q['id']}: multi needs exactly two targets")

# ---------------------------------------------------------------- daily notes
DAILY_RE = re.compile(r"^memory/daily/(\d{4}-\d{2}-\d{2})\.md$")
daily = {}
for n in notes:
    m = DAILY_RE.match(n)
    if m:
        daily[dt.date.fromisoformat(m.group(1))] = n
        text = read_texts(n)[0]
        if text.startswith("---"):
            fail(f"{n}: daily note has frontmatter")
        if text.splitlines()[0].strip() != f"# {m.group(1)}":
            fail(f"{n}: does not open with '# {m.group(1)}'")
if not 30 <= len(daily) <= 40:
    fail(f"{len(daily)} daily notes, expected 30-40")
if not 60 <= len(notes) <= 75:
    fail(f"{len(notes)} notes, expected 60-75")

FIRST, REF = min(daily), max(daily)  # reference day = date of the last daily note

# trip dates from the trip note
trip_text = read_texts("memory/copenhagen-trip.md")[0]
m = re.search(r"Out on (\d{4}-\d{2}-\d{2}), back on (\d{4}-\d{2}-\d{2})\.", trip_text)
if not m:
    fail("trip note lacks 'Out on YYYY-MM-DD, back on YYYY-MM-DD.'")
    TRIP_OUT = TRIP_BACK = REF
else:
    TRIP_OUT, TRIP_BACK = (dt.date.fromisoformat(x) for x in m.groups())


# ---------------------------------------------------------------- date helpers
def day(y, mo, d):
    return (dt.date(y, mo, d), dt.date(y, mo, d))


def month(y, mo):
    return (dt.date(y, mo, 1), dt.date(y, mo, calendar.monthrange(y, mo)[1]))


def month_part(y, mo, part):  # early 1-10, mid 11-20, late 21-end
    last = calendar.monthrange(y, mo)[1]
    a, b = {"early": (1, 10), "mid": (11, 20), "late": (21, last)}[part]
    return (dt.date(y, mo, a), dt.date(y, mo, b))


def week_of_month(y, mo, which):  # first = days 1-7, last = the month's last 7 days
    last = calendar.monthrange(y, mo)[1]
    if which == "first":
        return (dt.date(y, mo, 1), dt.date(y, mo, 7))
    return (dt.date(y, mo, last - 6), dt.date(y, mo, last))


def month_half(y, mo, half):  # first 1-15, second 16-end
    last = calendar.monthrange(y, mo)[1]
    return (dt.date(y, mo, 1), dt.date(y, mo, 15)) if half == 1 else (dt.date(y, mo, 16), dt.date(y, mo, last))


def last_weekday(ref, wd):  # latest given weekday strictly before ref (Mon=0)
    d = ref - dt.timedelta(days=1)
    while d.weekday() != wd:
        d -= dt.timedelta(days=1)
    return (d, d)


def last_week(ref):  # Monday-Sunday week before the reference day's week
    mon = ref - dt.timedelta(days=ref.weekday()) - dt.timedelta(days=7)
    return (mon, mon + dt.timedelta(days=6))


def last_month(ref):
    y, mo = (ref.year, ref.month - 1) if ref.month > 1 else (ref.year - 1, 12)
    return month(y, mo)


def thanksgiving(y):  # US: fourth Thursday of November
    d = dt.date(y, 11, 1)
    while d.weekday() != 3:
        d += dt.timedelta(days=1)
    d += dt.timedelta(days=21)
    return (d, d)


def one(d):
    return (d, d)


# Machine-readable range for every temporal question.
RANGES = {
    "t6-01": ("absolute", day(2024, 9, 12)),
    "t6-02": ("absolute", day(2024, 10, 15)),
    "t6-03": ("absolute-iso", day(2024, 12, 19)),
    "t6-04": ("absolute-iso", day(2025, 1, 10)),
    "t6-05": ("partial-day", day(2024, 9, 24)),        # September 24th -> 2024 (within the notes' span)
    "t6-06": ("partial-day", day(2025, 1, 6)),         # January 6th -> 2025
    "t6-07": ("partial-month", month(2024, 10)),
    "t6-08": ("weekday-date", day(2024, 11, 14)),      # Thursday 14 November 2024
    "t6-09": ("month-part", month_part(2024, 9, "early")),
    "t6-10": ("month-part", month_part(2024, 11, "late")),
    "t6-11": ("week-of-month", week_of_month(2024, 12, "first")),
    "t6-12": ("week-of-month", week_of_month(2024, 9, "last")),
    "t6-13": ("month-half", month_half(2024, 11, 2)),
    "t6-14": ("month-last-day", one(dt.date(2024, 10, 31))),
    "t6-15": ("yesterday", one(REF - dt.timedelta(days=1))),
    "t6-16": ("days-ago", one(REF - dt.timedelta(days=8))),
    "t6-17": ("last-week", last_week(REF)),
    "t6-18": ("last-weekday", last_weekday(REF, 1)),   # last Tuesday
    "t6-19": ("last-month", last_month(REF)),
    "t6-20": ("holiday-us", thanksgiving(2024)),
    "t6-21": ("holiday-uk", one(dt.date(2024, 12, 25))),  # Christmas Day (Wednesday)
    "t6-22": ("holiday-uk", one(dt.date(2024, 12, 26))),  # Boxing Day (Thursday, no substitute)
    "t6-23": ("holiday-uk", one(dt.date(2025, 1, 1))),    # New Year's Day (Wednesday)
    "t6-24": ("event-relative", one(TRIP_BACK + dt.timedelta(days=1))),
    "t6-25": ("event-relative", one(TRIP_OUT - dt.timedelta(days=1))),
}
FORMS = {"absolute", "absolute-iso", "partial-day", "partial-month", "weekday-date", "month-part",
         "week-of-month", "month-half", "month-last-day", "yesterday", "days-ago", "last-week",
         "last-weekday", "last-month", "holiday-us", "holiday-uk", "event-relative"}

# sanity on the weekday named in t6-08
if dt.date(2024, 11, 14).weekday() != 3:
    fail("t6-08: 14 November 2024 is not a Thursday")

temporal = [q for q in queries if q["kind"] == "temporal"]
forms = Counter(q.get("form") for q in temporal)
for f in FORMS:
    if forms.get(f, 0) == 0:
        fail(f"temporal form missing: {f}")
if forms.get("event-relative", 0) != 2:
    fail("need exactly 2 event-relative questions")
for f in forms:
    if f not in FORMS:
        fail(f"unknown temporal form {f}")

resolved = {}
for q in temporal:
    if q["id"] not in RANGES:
        fail(f"{q['id']}: no range in check.py")
        continue
    form, (a, b) = RANGES[q["id"]]
    resolved[q["id"]] = (form, a, b)
    if q.get("form") != form:
        fail(f"{q['id']}: form {q.get('form')} != {form} in check.py")
    expected = {n for d, n in daily.items() if a <= d <= b}
    if not expected:
        fail(f"{q['id']}: range {a}..{b} holds no daily note")
    got_daily = {t for t in q["targets"] if DAILY_RE.match(t)}
    if got_daily != expected:
        fail(f"{q['id']}: daily targets {sorted(got_daily)} != expected {sorted(expected)}")
    for t in q["targets"]:
        if DAILY_RE.match(t):
            continue
        mm = re.match(r"^memory/decisions/(\d{4}-\d{2}-\d{2})-", t)
        if not mm or "decide" not in q["question"].lower():
            fail(f"{q['id']}: non-daily target {t} only allowed for a 'what did I decide' question")
        elif not a <= dt.date.fromisoformat(mm.group(1)) <= b:
            fail(f"{q['id']}: decision {t} outside range")
for i in RANGES:
    if i not in {q["id"] for q in temporal}:
        fail(f"range for {i} but no such question")

# ---------------------------------------------------------------- paraphrase
for q in queries:
    if q["kind"] != "paraphrase":
        continue
    qs = stems(q["question"])
    if not qs:
        fail(f"{q['id']}: no content words")
    for t in q["targets"]:
        shared = qs & note_stems(t)
        if shared:
            fail(f"{q['id']}: shares stems {sorted(shared)} with {t}")

# ---------------------------------------------------------------- tags
tagmap = {}
for n in notes:
    for tg in tags_of(read_texts(n)[0]):
        tagmap.setdefault(tg, set()).add(n)
if not 6 <= len(tagmap) <= 8:
    fail(f"{len(tagmap)} distinct tags, expected 6-8")
TAG_OF = {"g6-01": "pricing", "g6-02": "stall", "g6-03": "suppliers", "g6-04": "staff",
          "g6-05": "equipment", "g6-06": "flat"}
for q in queries:
    if q["kind"] != "tag":
        continue
    tg = TAG_OF.get(q["id"])
    if tg is None or tg not in q["question"].lower():
        fail(f"{q['id']}: tag not named in question / not mapped")
        continue
    if set(q["targets"]) != tagmap.get(tg, set()):
        fail(f"{q['id']}: targets {sorted(q['targets'])} != notes tagged {tg} {sorted(tagmap.get(tg, set()))}")

# decisions: most with frontmatter date+tags, exactly one with none
dec = [n for n in notes if n.startswith("memory/decisions/")]
no_fm = [n for n in dec if frontmatter(read_texts(n)[0]) is None]
if len(no_fm) != 1:
    fail(f"expected exactly one decision note without frontmatter, got {no_fm}")
for n in dec:
    fm = frontmatter(read_texts(n)[0])
    if fm is not None:
        dm = re.search(r"^date:\s*(\d{4}-\d{2}-\d{2})\s*$", fm, re.M)
        if not dm or not os.path.basename(n).startswith(dm.group(1)):
            fail(f"{n}: frontmatter date missing or differs from file name")

# ---------------------------------------------------------------- report
nondaily = [n for n in notes if not DAILY_RE.match(n)]
tagged = [n for n in nondaily if tags_of(read_texts(n)[0])]
print(f"notes: {len(notes)} ({len(daily)} daily, {len(nondaily)} other, {len(tagged)} of those tagged)")
print(f"daily span: {FIRST} .. {REF}; reference day {REF} ({REF:%A}); trip {TRIP_OUT} .. {TRIP_BACK}")
print("kinds:", dict(sorted(kinds.items())))
print("tags:", {k: len(v) for k, v in sorted(tagmap.items())})
print("temporal ranges:")
for i, (form, a, b) in sorted(resolved.items()):
    print(f"  {i} {form:15s} {a} .. {b}")
if errors:
    print(f"\nFAILED: {len(errors)} problem(s)")
    for e in errors:
        print("  -", e)
    sys.exit(1)
print("\nALL CHECKS PASSED")
